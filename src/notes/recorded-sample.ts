// The one wording, in every note, of web text that came from recorded sample responses (a replay
// folder: the demo's are samples we wrote in each provider's real format) rather than the live
// web: the properties a query over the vault reads, and the titles of the callouts a reader sees.
// The trace note and the source note both say it from here, so the two cannot drift apart.
import { escapeMarkdownText, plainLine } from "./markdown-escape";
import { oneLine } from "../text/one-line";
import type { ResearchTrace } from "../evidence/trace-types";

/** Callout titles: a run's web answers, one result of such a run, a page read from recordings. */
export const SAMPLE_RESPONSES_TITLE = "[!note] Recorded sample responses, not a live search";
export const SAMPLE_RESPONSE_TITLE = "[!note] Recorded sample response, not a live search";
export const SAMPLE_PAGE_TITLE = "[!note] Recorded sample page, not the live site";

/**
 * `sample: true`, and the folders the recordings were replayed from (`replayed_from`: the search's
 * answers; `page_replayed_from`: a page fetched for a note); nothing at all for the live web.
 */
export function sampleProperties(searchReplayedFrom: string | null, pageReplayedFrom: string | null = null): Record<string, unknown> {
  if (searchReplayedFrom === null && pageReplayedFrom === null) return {};
  return {
    sample: true,
    ...(searchReplayedFrom !== null ? { replayed_from: plainLine(searchReplayedFrom) } : {}),
    ...(pageReplayedFrom !== null ? { page_replayed_from: plainLine(pageReplayedFrom) } : {}),
  };
}

/** "recordings in fixtures/replay/brave-demo": the folder as note text, on one line and escaped. */
export function recordingsIn(folder: string): string {
  return `recordings in ${escapeMarkdownText(oneLine(folder))}`;
}

/**
 * The folder a run's web answers were replayed from, or null for a live run: the one test the trace
 * note and the panel's copied answer both make. Only a run that asked the web has answers that were
 * replayed; a run that asked nothing has none to call recorded.
 */
export function replayedWebFolder(trace: Pick<ResearchTrace, "replayed_from" | "queries_sent">): string | null {
  return trace.replayed_from !== undefined && trace.queries_sent.length > 0 ? trace.replayed_from : null;
}
