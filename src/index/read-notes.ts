// Reading many notes at once, a bounded number in flight, a failure per note instead of per batch.
import type { NoteStore } from "../ports";
import { errorMessage } from "../text/error-message";
import type { NoteProblem } from "./types";

/** Reads in flight at once: enough to hide a slow disk's latency, few enough not to flood it. */
const READ_CONCURRENCY = 32;

/** Each path's text, or the problem that kept it from being read, in the order of `paths`. */
export async function readNotes(store: NoteStore, paths: string[]): Promise<(string | NoteProblem)[]> {
  const out = new Array<string | NoteProblem>(paths.length);
  let next = 0;
  const worker = async () => {
    while (next < paths.length) {
      const i = next++;
      try {
        out[i] = await store.read(paths[i]);
      } catch (error) {
        out[i] = { kind: "read", message: `Could not be read: ${errorMessage(error)}` };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, paths.length) }, worker));
  return out;
}
