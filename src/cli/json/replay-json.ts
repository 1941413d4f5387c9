// The one `replay` field of every CLI JSON object: where recorded answers came from, or null for
// the live network. Said in data so no reader mistakes a replay for a live search.
import * as z from "zod";

export const replayJsonSchema = z
  .strictObject({ dir: z.string(), note: z.literal("recorded responses, not a live search") })
  .nullable()
  .describe("Set when web answers came from a replay folder of recorded responses; null for the live network.");
export type ReplayJson = z.infer<typeof replayJsonSchema>;

export function replayJson(dir: string | undefined): ReplayJson {
  return dir ? { dir, note: "recorded responses, not a live search" } : null;
}
