// Which vault notes are web pages someone saved: a note this plugin promoted (`#research/source`)
// or one Obsidian's Web Clipper made (`#clippings`, its default), with the page's address as its
// `source`. Their text is the page's, not the owner's, so a model is given it fenced as untrusted
// web text (synthesis-prompt.ts), as when it was outside the vault; it stays vault evidence.
import { SOURCE_TAG } from "../notes/source-note";
import type { VaultRow } from "../evidence/research-pack";
import type { IndexedNote } from "../index/types";

/** Tags of a note saved from the web: this plugin's promoted notes, and the Web Clipper's default. */
export const SAVED_PAGE_TAGS: readonly string[] = [SOURCE_TAG, "clippings"];

/** The address a note was saved from, when it is a saved web page; undefined for the owner's own notes. */
export function savedFrom(note: Pick<IndexedNote, "tags" | "sourceUrls"> | undefined): string | undefined {
  if (!note || note.sourceUrls.length === 0) return undefined;
  const tags = new Set(note.tags.map((t) => t.toLowerCase()));
  return SAVED_PAGE_TAGS.some((t) => tags.has(t)) ? note.sourceUrls[0] : undefined;
}

/** Marks each row whose note is a saved web page with its address (in place; a row marked stays so). */
export function markSavedPages(rows: VaultRow[], notes: { note(path: string): Pick<IndexedNote, "tags" | "sourceUrls"> | undefined }): void {
  for (const row of rows) {
    if (row.saved_from !== undefined) continue;
    const from = savedFrom(notes.note(row.note_path));
    if (from !== undefined) row.saved_from = from;
  }
}
