// The one wording of an index cache that could not be saved, for every command that saves one: what
// the next run then does depends on what this run's sync did, and a warning that says the vault
// will be indexed again after an update only frightens the owner of a large vault.
import type { SyncReport } from "../index/types";

/**
 * The warning for a failed save (`reason`: what the disk said). A build saves the index whole, so
 * without it the next run builds again; an update leaves the cache as it was (its manifest is
 * written last), and only this run's changes are read again.
 */
export function indexNotSavedWarning(reason: string, sync: Pick<SyncReport, "mode">): string {
  const next = sync.mode === "rebuild" ? "the next run will index the vault again" : "it stays as it was, and the next run will read this run's changes again";
  return `warning: the index cache could not be written (${reason}); ${next}.\n`;
}
