// A section of a note as a search shows it, for a row no word search placed: a note only the vectors
// found, whole (its opening) or by one section's vector (local-retrieval.ts), or a note whose source a
// web result was (outside-evidence.ts). Its text comes from the shown parse (`ShownNotes`) and the
// search's own snippet maker, so it keeps the note's blocks apart as every other row's does: a line
// break where a paragraph, a list item, a table row or a code block ends, none where the writer only
// wrapped a line. A raw parse had one at every line of the file, and the brief quoted half a sentence;
// a flattened one ran a table's rows into one line of words.
import type { VaultSection } from "../../evidence/research-pack";
import { indexedPart, MAX_NOTE_CHARS } from "../../index/note-limit";
import { parseQuery } from "../../index/query";
import { readNotes } from "../../index/read-notes";
import { buildSectionHits } from "../../index/section-hits";
import { ShownNotes } from "../../index/shown-notes";
import { createAnalyzer, type Analyzer } from "../../index/tokenize";
import type { ParsedNote } from "../../index/types";
import type { VaultIndex } from "../../index/vault-index";
import type { NoteStore } from "../../ports";

/** A section wanted: the one that starts at `start` (else the one at `line`), or without them the note's opening. */
export interface WantedSection {
  path: string;
  start?: number;
  line?: number;
}

/** What marks the question's words: the index ranks the query among the notes for the terms each matched. */
export interface SectionMarks {
  index: Pick<VaultIndex, "rank">;
  query: string;
  /** The analyser the index was built with (same stemming). */
  analyzer: Analyzer;
}

/** Each wanted section as a search's section, in order; null where the note cannot be read or has no such section. Without `marks` no word is marked. */
export async function shownSections(store: NoteStore, wanted: readonly WantedSection[], marks?: SectionMarks): Promise<(VaultSection | null)[]> {
  if (wanted.length === 0) return [];
  const paths = wanted.map((w) => w.path);
  const texts = await readNotes(store, paths);
  const termsOf = marks ? matchedTerms(marks, paths) : new Map<string, Map<string, string>>();
  // Without marks no term matches, so any analyser reads the words alike.
  const analyzer = marks?.analyzer ?? createAnalyzer({ stemming: true });
  // One parse a note however many of its sections are wanted; the parse options are the shown notes' own.
  const shown = new ShownNotes();
  return wanted.map((w, i) => {
    const text = texts[i];
    if (typeof text !== "string") return null;
    // Only the part the index holds: a huge note parsed whole would hold the run up for seconds.
    const note = shown.parse(w.path, indexedPart(text, MAX_NOTE_CHARS));
    const section = sectionOf(note, w);
    if (!section) return null;
    const [hit] = buildSectionHits({ ...note, sections: [section] }, termsOf.get(w.path) ?? new Map<string, string>(), analyzer, 1);
    return hit ? { heading: hit.heading, text: hit.snippet, start: hit.start, end: hit.end, line: Math.max(1, hit.line), highlights: hit.highlights } : null;
  });
}

function sectionOf(note: ParsedNote, w: WantedSection): ParsedNote["sections"][number] | undefined {
  if (w.start === undefined && w.line === undefined) return note.sections.find((s) => s.text.trim() !== "");
  return note.sections.find((s) => s.start === w.start) ?? note.sections.find((s) => s.line === w.line);
}

/** Per note, the note terms that matched the query and the query word each stands for. */
function matchedTerms(marks: SectionMarks, paths: readonly string[]): Map<string, Map<string, string>> {
  const wanted = new Set(paths);
  const hits = marks.index.rank(parseQuery(marks.query), wanted.size, { asYouType: false, keep: (path) => wanted.has(path) });
  return new Map(hits.map((hit) => [hit.path, hit.docTerms]));
}
