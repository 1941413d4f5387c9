// A note's words and how often it uses them, the way the language lane weighs them: a word of the
// title counts TITLE_WEIGHT times, the properties field (names and figures) not at all (every film
// note has a "year" and a "director": they would make all films alike), any other field once.
// Read two ways that agree: from a note's fields as it is indexed (one changed note), and from the
// index's postings (every note at once, after the meanings are learned or loaded, without reading
// a file).
import { FIELDS, type EngineDoc, type Field, type SearchEngine } from "../search-engine";
import type { Analyzer } from "../tokenize";
import type { WorkSlice } from "../work-slice";
import { postingCount, postingNote } from "../term-postings";
import { TITLE_WEIGHT } from "./vault-language";

export function fieldWeight(field: Field): number {
  return field === "title" ? TITLE_WEIGHT : field === "properties" ? 0 : 1;
}

/** The counts of one note's fields, analysed as the index analyses them. */
export function docTermCounts(doc: EngineDoc, analyzer: Analyzer): Map<string, number> {
  const counts = new Map<string, number>();
  for (const field of FIELDS) {
    const text = doc[field];
    const weight = fieldWeight(field);
    if (!text || weight === 0) continue;
    for (const term of analyzer.terms(text)) if (term) counts.set(term, (counts.get(term) ?? 0) + weight);
  }
  return counts;
}

/**
 * One word's count in each note that holds it (fields weighted as above), by short id: `counts[id]`
 * is added to (the caller sets it back to 0 after use), and each note met is listed once in
 * `notes`, in the order first met. Returns how many notes were listed. Typed arrays the size of
 * the engine's short ids (`nextShortId`), kept by the caller: a Map filled and cleared for each of
 * 20,000 words kept the garbage collector busy while every note's vector was filled.
 */
export function wordCountsInto(engine: SearchEngine, word: string, counts: Float64Array, notes: Uint32Array): number {
  const postings = engine.terms.get(word);
  if (!postings) return 0;
  let met = 0;
  postings.forEach((list, fieldId) => {
    const weight = fieldWeight(FIELDS[fieldId]);
    if (!list || weight === 0) return;
    for (const posting of list) {
      const note = postingNote(posting);
      if (!engine.holds(note)) continue;
      if (counts[note] === 0) notes[met++] = note;
      counts[note] += postingCount(posting) * weight;
    }
  });
  return met;
}

/** Every note's counts of the given words, from the postings: path → term → count. */
export async function postingTermCounts(engine: SearchEngine, words: Iterable<string>, slice: WorkSlice): Promise<Map<string, Map<string, number>>> {
  const byNote = new Map<number, Map<string, number>>();
  // Made once for all the words, as fillNoteVectors does.
  const counts = new Float64Array(engine.nextShortId);
  const notes = new Uint32Array(engine.nextShortId);
  let done = 0;
  for (const word of words) {
    if (++done % 16 === 0 && slice.over()) await slice.pause();
    const met = wordCountsInto(engine, word, counts, notes);
    for (let i = 0; i < met; i++) {
      const note = notes[i];
      let ofNote = byNote.get(note);
      if (!ofNote) byNote.set(note, (ofNote = new Map<string, number>()));
      ofNote.set(word, counts[note]);
      counts[note] = 0;
    }
  }
  const out = new Map<string, Map<string, number>>();
  for (const [note, ofNote] of byNote) {
    const path = engine.pathOf(note);
    if (path !== undefined) out.set(path, ofNote);
  }
  return out;
}
