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
  const filterTags = parsed.tags.filter((tag) => tagExists(notes, tag));
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

function tagExists(notes: ReadonlyMap<string, IndexedNote>, tag: string): boolean {
  for (const note of notes.values()) if (hasTag(note, tag)) return true;
  return false;
}
