// Filters every lane honours the same way, so a level never shows a note a lower level would have
// filtered out: folders (the note is inside one of them) and tags (the note has every one).
import type { IndexedNote } from "../types";

export interface DialFilters {
  /** Vault-relative folders; a note inside any of them passes. Empty or absent: every folder. */
  folders?: string[];
  /** Tags without `#`, any case; a note must have all of them (nested tags count: `a/b` has `a`). */
  tags?: string[];
}

/** The filters in one canonical form (sorted, trimmed, tags spelled as notes' tags are), for cache keys and logs. */
export function normalizeFilters(filters: DialFilters | undefined): Required<DialFilters> {
  const folders = (filters?.folders ?? []).map((f) => f.trim().replace(/^\/+|\/+$/g, "")).filter(Boolean);
  const tags = (filters?.tags ?? []).map(asNoteTag).filter(Boolean);
  return { folders: [...new Set(folders)].sort(), tags: [...new Set(tags)].sort() };
}

/**
 * A tag as a note's tags are kept (markdown.ts): no leading `#`s, lower-cased, no empty levels. An
 * agent's "project/" or "##project" names the tag #project, as the query's `#project/` does; kept
 * as typed, it matched no note and the search found nothing.
 */
function asNoteTag(tag: string): string {
  return tag.trim().replace(/^#+/, "").toLowerCase().split("/").filter((level) => level !== "").join("/");
}

export function hasFilters(filters: Required<DialFilters>): boolean {
  return filters.folders.length > 0 || filters.tags.length > 0;
}

/** Whether a note passes; a note the index does not know never does. */
export function passesFilters(note: IndexedNote | undefined, filters: Required<DialFilters>): boolean {
  if (!note) return false;
  if (filters.folders.length > 0 && !filters.folders.some((folder) => note.path.startsWith(`${folder}/`))) return false;
  return filters.tags.every((tag) => note.tags.includes(tag));
}
