// A note's words and how often it uses them, the way the language lane weighs them: a word of the
// title counts TITLE_WEIGHT times, the properties field (names and figures) not at all (every film
// note has a "year" and a "director": they would make all films alike), any other field once.
// Read two ways that agree: from a note's fields as it is indexed (one changed note), and from the
// index's postings (every note at once, after the meanings are learned or loaded, without reading
// a file).
import { FIELDS, listsLongestFirst, notesWithTerm, type EngineDoc, type Field, type SearchEngine } from "../search-engine";
import type { Analyzer } from "../tokenize";
import { NO_SLICES, type WorkSlice } from "../work-slice";
import { lowerBound, postingCount, postingNote } from "../term-postings";
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

/** Postings walked between two looks at the slice: a word most notes hold has as many postings as
 * the vault has notes, and walked whole it ran the slice past its end by as much again (12 ms of
 * work at 100,000 notes), and by more the larger the vault. */
const POSTINGS_BETWEEN_LOOKS = 4096;

/**
 * One word's count in each note that holds it (fields weighted as above), by short id: `counts[id]`
 * is added to (the caller sets it back to 0 after use), and each note met is listed once in
 * `notes`, in the order first met. Returns how many notes were listed. Typed arrays the size of
 * the engine's short ids (`nextShortId`) when the walk began, kept by the caller: a Map filled and
 * cleared for each of 20,000 words kept the garbage collector busy while every note's vector was
 * filled; a note added since (a larger short id) is left out, as a removed one is.
 */
export async function wordCountsInto(engine: SearchEngine, word: string, counts: Float64Array, notes: Uint32Array, slice: WorkSlice = NO_SLICES): Promise<number> {
  let met = 0;
  for (let fieldId = 0; fieldId < FIELDS.length; fieldId++) {
    const weight = fieldWeight(FIELDS[fieldId]);
    if (weight === 0) continue;
    let list = engine.terms.get(word)?.[fieldId];
    /** The short id of the last posting walked in this field. */
    let last = -1;
    for (let i = 0; list !== undefined && i < list.length; i++) {
      if (i > 0 && i % POSTINGS_BETWEEN_LOOKS === 0 && slice.over()) {
        await slice.pause();
        const next = goOnAfter(engine, word, fieldId, last);
        if (!next) break;
        ({ list, i } = next);
      }
      const posting = list[i];
      const note = (last = postingNote(posting));
      if (note >= counts.length || !engine.holds(note)) continue;
      if (counts[note] === 0) notes[met++] = note;
      counts[note] += postingCount(posting) * weight;
    }
  }
  return met;
}

/**
 * Where a walk of `word`'s postings in a field goes on after a pause: a search meanwhile may have
 * taken a removed note's postings out of the list (or the list out of the index), so it goes on
 * after the last note walked, found by its short id (a list is in ascending order), and no note is
 * skipped or counted twice. Null when nothing is left to walk.
 */
function goOnAfter(engine: SearchEngine, word: string, fieldId: number, last: number): { list: number[]; i: number } | null {
  const list = engine.terms.get(word)?.[fieldId];
  if (list === undefined) return null;
  const i = lowerBound(list, last + 1);
  return i < list.length ? { list, i } : null;
}

/**
 * How many notes of the index hold a word, without a discarded note whose postings MiniSearch has
 * not cleaned up yet (it does only once 200 notes and a tenth of the vault went): a list's length
 * counted a note read again (an edit; a note read too soon and proved: read-too-soon.ts) twice until
 * then, and the lane ranked a search differently the first time than ever after. The count is the
 * engine's (search-engine.ts), the one the words' ranking weighs by too.
 */
export { notesHolding } from "../search-engine";

/** `notesHolding`, counted a span of postings at a time, pausing as `wordCountsInto`'s walk does (every note's vector filled: a word every note holds). */
export async function notesHoldingInSlices(engine: SearchEngine, word: string, slice: WorkSlice): Promise<number> {
  if (!engine.listsDiscarded) return notesWithTerm(engine, word);
  let most = 0;
  for (const field of listsLongestFirst(engine, word)) {
    // A list no longer than the most found holds no more notes.
    if (field.list.length <= most) break;
    let list = field.list;
    let held = 0;
    for (let i = 0; i < list.length; ) {
      const end = Math.min(list.length, i + POSTINGS_BETWEEN_LOOKS);
      held += engine.heldIn(list, i, end);
      if (end === list.length || !slice.over()) {
        i = end;
        continue;
      }
      const last = postingNote(list[end - 1]);
      await slice.pause();
      const next = goOnAfter(engine, word, field.fieldId, last);
      if (!next) break;
      ({ list, i } = next);
    }
    most = Math.max(most, held);
  }
  return most;
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
    const met = await wordCountsInto(engine, word, counts, notes, slice);
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
