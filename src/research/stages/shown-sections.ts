// A section of a note as a search shows it, for a row no word search placed: a note only the vectors
// found, whole (its opening) or by one section's vector (local-retrieval.ts), or a note whose source a
// web result was (outside-evidence.ts). Its text comes from the shown parse (`ShownNotes`) and the
// search's own snippet maker, so it keeps the note's blocks apart as every other row's does: a line
// break where a paragraph, a list item, a table row or a code block ends, none where the writer only
// wrapped a line. A raw parse had one at every line of the file, and the brief quoted half a sentence;
// a flattened one ran a table's rows into one line of words. A section a vector named is found again
// by its heading path (`sectionAt`, as the dial finds it): in a note edited before the index caught
// up, its offsets name another section, whose words were quoted under the matched heading.
import type { VaultSection } from "../../evidence/research-pack";
import { indexedPart, MAX_NOTE_CHARS } from "../../index/note-limit";
import { parseQuery } from "../../index/query";
import { readNotes } from "../../index/read-notes";
import { sectionAt, type SectionPlace } from "../../index/section-at";
import { buildSectionHits } from "../../index/section-hits";
import { ShownNotes } from "../../index/shown-notes";
import { createAnalyzer, type Analyzer } from "../../index/tokenize";
import type { ParsedNote } from "../../index/types";
import type { VaultIndex } from "../../index/vault-index";
import type { NoteStore } from "../../ports";

/** A section wanted: the one at `place` (none when the note no longer has it), or without a place the note's opening. */
export interface WantedSection {
  path: string;
  place?: SectionPlace;
}

/** What marks the question's words: the index ranks the query among the notes for the terms each matched, and shows the notes. */
export interface SectionMarks {
  index: Pick<VaultIndex, "rank" | "shownNote">;
  query: string;
  /** The analyser the index was built with (same stemming). */
  analyzer: Analyzer;
}

/** Each wanted section as a search's section, in order; null where the note cannot be read or has no such section. Without `marks` no word is marked, and the notes are parsed apart from the index's kept parses. */
export async function shownSections(store: NoteStore, wanted: readonly WantedSection[], marks?: SectionMarks): Promise<(VaultSection | null)[]> {
  if (wanted.length === 0) return [];
  const paths = wanted.map((w) => w.path);
  const texts = await readNotes(store, paths);
  const termsOf = marks ? matchedTerms(marks, paths) : new Map<string, Map<string, string>>();
  // Without marks no term matches, so any analyser reads the words alike.
  const analyzer = marks?.analyzer ?? createAnalyzer({ stemming: true });
  const show = shownBy(marks?.index);
  return wanted.map((w, i) => {
    const text = texts[i];
    if (typeof text !== "string") return null;
    const note = show(w.path, text);
    const section = w.place ? sectionAt(note, w.place) : note.sections.find((s) => s.text.trim() !== "");
    if (!section) return null;
    const [hit] = buildSectionHits({ ...note, sections: [section] }, termsOf.get(w.path) ?? new Map<string, string>(), analyzer, 1);
    return hit ? { heading: hit.heading, text: hit.snippet, start: hit.start, end: hit.end, line: Math.max(1, hit.line), highlights: hit.highlights } : null;
  });
}

/**
 * How a note is shown: through the index's shown parses (its limit, and the parses its search and the
 * dial keep), or, for a caller without the index at hand, a parse of its own no further than the
 * index's default limit (a huge note parsed whole would hold the run up for seconds). Either way one
 * parse a note, however many of its sections are wanted.
 */
function shownBy(index: Pick<VaultIndex, "shownNote"> | undefined): (path: string, text: string) => ParsedNote {
  if (index) return (path, text) => index.shownNote(path, text);
  const shown = new ShownNotes();
  return (path, text) => shown.parse(path, indexedPart(text, MAX_NOTE_CHARS));
}

/** Per note, the note terms that matched the query and the query word each stands for. */
function matchedTerms(marks: SectionMarks, paths: readonly string[]): Map<string, Map<string, string>> {
  const wanted = new Set(paths);
  const hits = marks.index.rank(parseQuery(marks.query), wanted.size, { asYouType: false, keep: (path) => wanted.has(path) });
  return new Map(hits.map((hit) => [hit.path, hit.docTerms]));
}
