// The one wording, in every CLI output, of a run whose web answers came from a replay folder: they
// are sample responses we wrote, replayed, not a live search. Said once here, so the JSON `replay.note`
// and the text lines above the results cannot drift apart (two copies already had: one said "sample",
// the other did not).

/** What a replay folder holds, as every CLI line names it. */
export const RECORDED_SAMPLES = "recorded sample responses";
const NOT_LIVE = "not a live search";

/** `replay.note` in every `--json` object of a replayed run (a `const` in docs/cli-json). */
export const REPLAY_NOTE = `${RECORDED_SAMPLES}, ${NOT_LIVE}`;

/** The line above a replayed run's web results in text output. */
export function replayNoticeLine(dir: string): string {
  return `Note: web results below are ${RECORDED_SAMPLES} replayed from ${dir}, ${NOT_LIVE}.`;
}
