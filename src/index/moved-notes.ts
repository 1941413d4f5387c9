// A note renamed or moved keeps its words: the index copies its postings to the new name instead of
// reading and parsing the note again (a folder of 2,000 notes renamed read and parsed all 2,000).
// Only the path's own words (the `location` field) are analysed afresh; every other field is the
// note's text, which a rename leaves as it was. Done through the engine's public face: the cache's
// restore (`restoreNote`, `restoreCounters`) gives the copy its short id, as a load gives a saved note.
import { FIELDS, type EngineDoc, type SearchEngine } from "./search-engine";
import { addOccurrence, appendSavedPostings, lowerBound, packPosting, postingCount, postingNote } from "./term-postings";
import type { Analyzer } from "./tokenize";
import type { WorkSlice } from "./work-slice";

const LOCATION = FIELDS.indexOf("location");
/** Terms walked between two looks at the slice. */
const TERMS_BETWEEN_LOOKS = 256;

/** One note's postings, as parallel lists: the term, the field (its id) and how often. */
export interface NotePostings {
  terms: string[];
  fields: number[];
  counts: number[];
}

/**
 * The postings of the notes with these short ids, found in one walk over the term map (the index
 * keeps no list of a note's words). A note not met holds no word at all.
 */
export async function postingsOfNotes(engine: SearchEngine, shortIds: readonly number[], slice: WorkSlice): Promise<Map<number, NotePostings>> {
  const found = new Map<number, NotePostings>();
  if (shortIds.length === 0) return found;
  // By short id: a Map looked up for each of millions of postings cost more than the walk itself.
  const wanted = new Array<NotePostings | undefined>(engine.nextShortId);
  for (const id of shortIds) {
    const held: NotePostings = { terms: [], fields: [], counts: [] };
    wanted[id] = held;
    found.set(id, held);
  }
  const first = Math.min(...shortIds);
  const last = Math.max(...shortIds);
  let walked = 0;
  for (const [term, postings] of engine.terms) {
    if (++walked % TERMS_BETWEEN_LOOKS === 0 && slice.over()) await slice.pause();
    for (let field = 0; field < postings.length; field++) {
      const list = postings[field];
      if (list === undefined || postingNote(list[list.length - 1]) < first || postingNote(list[0]) > last) continue;
      for (let i = lowerBound(list, first); i < list.length; i++) {
        const id = postingNote(list[i]);
        if (id > last) break;
        const held = wanted[id];
        if (held === undefined) continue;
        held.terms.push(term);
        held.fields.push(field);
        held.counts.push(postingCount(list[i]));
      }
    }
  }
  return found;
}

/**
 * Adds the note whose postings are `held` again as `path` (a new short id, as an edit gives it), its
 * location words those of `path`, every other field's words and lengths as they were
 * (`fieldLengths`, the note's at its old name). The note at its old name stays for the caller to discard.
 */
export function addMovedNote(engine: SearchEngine, analyzer: Analyzer, held: NotePostings, fieldLengths: readonly number[], path: string): void {
  const shortId = engine.nextShortId;
  for (let i = 0; i < held.terms.length; i++) {
    if (held.fields[i] === LOCATION) continue;
    // The engine has never given out a larger short id: the posting goes last in its list.
    appendSavedPostings(engine.postingsFor(held.terms[i]), held.fields[i], [packPosting(shortId, held.counts[i])], 1);
  }
  // The field's length as `add` counts it: its distinct terms, an empty token counted but not indexed.
  const terms = locationTerms(analyzer, path);
  let distinct = 0;
  for (const term of terms) if (term && addOccurrence(engine.postingsFor(term), LOCATION, shortId)) distinct++;
  const lengths = FIELDS.map((_, field) => fieldLengths[field] ?? 0);
  lengths[LOCATION] = distinct + (terms.includes("") ? 1 : 0);
  // MiniSearch's running average, as `add` keeps it: the note is one more of documentCount + 1.
  const count = engine.documentCount;
  const before = engine.averageFieldLengths;
  const averages = lengths.map((length, field) => ((before[field] || 0) * count + length) / (count + 1));
  engine.restoreNote({ shortId, path, fieldLengths: lengths });
  engine.restoreCounters(shortId + 1, averages);
}

/** The location's terms, as toEngineDoc names a note's location: its path without `.md`. */
function locationTerms(analyzer: Analyzer, path: string): string[] {
  return analyzer.terms(path.replace(/\.md$/i, ""));
}

/**
 * The moved note's fields as the vault-language lane takes a note's (with the analyser that reads
 * them, `alreadyAnalysed`): each field its terms, each as often as the note holds it.
 */
export function movedNoteFields(analyzer: Analyzer, held: NotePostings, path: string): EngineDoc {
  const fields: string[][] = FIELDS.map(() => []);
  for (let i = 0; i < held.terms.length; i++) {
    if (held.fields[i] === LOCATION) continue;
    for (let n = 0; n < held.counts[i]; n++) fields[held.fields[i]].push(held.terms[i]);
  }
  fields[LOCATION] = locationTerms(analyzer, path).filter(Boolean);
  const doc = Object.fromEntries(FIELDS.map((field, i) => [field, fields[i].join(" ")])) as Omit<EngineDoc, "path">;
  return { ...doc, path };
}

/**
 * The analyser for `addMovedNote`'s fields, whose words are terms already: a space between each two.
 * What the vault-language lane reads a moved note's words with, so they count as the index counts them.
 */
export function alreadyAnalysed(options: Analyzer["options"]): Analyzer {
  return {
    options,
    terms: (text) => (text === "" ? [] : text.split(" ")),
    analyzeWord: (word) => [word],
    normalizeTerm: (word) => word,
  };
}
