// The one `replay` field of every CLI JSON object: where recorded answers came from, or null for
// the live network. Said in data so no reader mistakes a replay for a live search.
import * as z from "zod";
import { REPLAY_NOTE } from "../replay-notice";

export const replayJsonSchema = z
  .strictObject({ dir: z.string(), note: z.literal(REPLAY_NOTE) })
  .nullable()
  .describe(
    `Set when web answers came from a replay folder of recorded sample responses; null for the live network. Its note is fixed: "${REPLAY_NOTE}" (earlier builds of this version said "recorded responses, not a live search"; changed on purpose so the note says they are samples).`,
  );
export type ReplayJson = z.infer<typeof replayJsonSchema>;

export function replayJson(dir: string | undefined): ReplayJson {
  return dir ? { dir, note: REPLAY_NOTE } : null;
}
