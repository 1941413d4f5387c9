// #tags in a query: a tag some note carries filters the results (nested tags count: #project finds
// #project/alpha); a tag no note carries is more likely a word the user wrote than a filter.
import type { ParsedQuery } from "../query";
import type { IndexedNote } from "../types";
import type { RankedHit } from "./explain";

export function hasTag(note: IndexedNote, tag: string): boolean {
  return note.tags.includes(tag) || note.tags.some((t) => t.startsWith(`${tag}/`));
}

export function hasAllTags(note: IndexedNote | undefined, tags: string[]): boolean {
  return note !== undefined && tags.every((tag) => hasTag(note, tag));
}

/** The query with unknown tags read as words, and the tags that filter. */
export function readTags(parsed: ParsedQuery, notes: ReadonlyMap<string, IndexedNote>): { query: ParsedQuery; filterTags: string[] } {
  if (parsed.tags.length === 0) return { query: parsed, filterTags: [] };
  const carried = tagsCarried(notes, new Set(parsed.tags));
  const filterTags = parsed.tags.filter((tag) => carried.has(tag));
  const looseTags = parsed.tags.filter((tag) => !filterTags.includes(tag));
  if (looseTags.length === 0) return { query: parsed, filterTags };
  const tagWords = looseTags.flatMap((t) => t.split("/"));
  return { query: { ...parsed, tags: filterTags, words: [...parsed.words, ...tagWords], sequence: [...parsed.sequence, ...tagWords] }, filterTags };
}

/** A search of tags alone: every note that has them all, by title, scored alike. */
export function tagOnlyHits(notes: ReadonlyMap<string, IndexedNote>, tags: string[]): RankedHit[] {
  const tagged: IndexedNote[] = [];
  for (const note of notes.values()) if (hasAllTags(note, tags)) tagged.push(note);
  tagged.sort((a, b) => a.title.localeCompare(b.title));
  return tagged.map((note) => ({
    path: note.path,
    score: 1,
    docTerms: new Map(),
    explanation: {
      termWeights: {},
      termNotes: {},
      matchedTerms: [],
      missingTerms: [],
      fields: { tags: tags.map((t) => `#${t}`) },
      parts: [{ name: "tag", detail: `has #${tags.join(", #")}`, weight: 1 }],
    },
  }));
}

/**
 * Which of `wanted` some note carries (itself or nested below it, as `hasTag` reads it), in one pass
 * over the notes: a pass per tag made a query of two hundred #tags read the vault two hundred times.
 */
function tagsCarried(notes: ReadonlyMap<string, IndexedNote>, wanted: ReadonlySet<string>): Set<string> {
  const carried = new Set<string>();
  for (const note of notes.values()) {
    for (const tag of note.tags) {
      for (let end = tag.indexOf("/"); end >= 0; end = tag.indexOf("/", end + 1)) if (wanted.has(tag.slice(0, end))) carried.add(tag.slice(0, end));
      if (wanted.has(tag)) carried.add(tag);
    }
    if (carried.size === wanted.size) break;
  }
  return carried;
}
