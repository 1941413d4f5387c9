// Whether a note read again holds what the index already holds for it. A note read too soon after its
// date (read-too-soon.ts) is read again with its date and size unchanged, so those cannot say whether
// its text changed, and the index keeps no text (nor a hash of it) to compare with. What it keeps is
// the note's postings: per field, each word and how often. Those are compared, so a sync can report
// such a note as changed when an edit in that tick changed its words, and as unchanged when not.
import type { Analyzer } from "./tokenize";
import { FIELDS, textPieces, type EngineDoc, type SearchEngine } from "./search-engine";
import { lowerBound, MAX_COUNT, postingCount, postingNote } from "./term-postings";
import type { WorkSlice } from "./work-slice";

/** Words looked up between two looks at the clock. */
const TERMS_PER_LOOK = 1024;

/**
 * Whether the engine holds for the note at `doc.path` exactly the words `doc` would give it: in every
 * field, the same words, each as often (up to the count a posting holds). Word order is not kept by
 * the index, so an edit that only moves words within a field reads as the same. False when the note
 * is not in the engine. A long field is analysed a piece at a time, with `slice`'s pauses between.
 */
export async function holdsSameWords(engine: SearchEngine, analyzer: Analyzer, doc: EngineDoc, slice: WorkSlice): Promise<boolean> {
  for (const [fieldId, field] of FIELDS.entries()) {
    const counts = { words: new Map<string, number>(), empty: false };
    for (const piece of textPieces(doc[field])) {
      countWords(analyzer.terms(piece), counts);
      if (slice.over()) await slice.pause();
    }
    // Read after the pauses: the note may have been taken out meanwhile (a newer version arrived).
    const shortId = engine.shortIdOf(doc.path);
    const held = shortId === undefined ? undefined : engine.notesInRange(shortId, shortId + 1)[0];
    if (shortId === undefined || !held) return false;
    // The engine's field length: distinct words, and one for an empty token (see search-engine.ts).
    if (counts.words.size + (counts.empty ? 1 : 0) !== (held.fieldLengths[fieldId] ?? 0)) return false;
    let looked = 0;
    for (const [term, count] of counts.words) {
      if (heldCount(engine, term, fieldId, shortId) !== Math.min(count, MAX_COUNT)) return false;
      if (++looked % TERMS_PER_LOOK === 0 && slice.over()) {
        await slice.pause();
        if (engine.shortIdOf(doc.path) !== shortId) return false;
      }
    }
  }
  return true;
}

/** Adds `terms` to the counts of each word, and notes an empty token (the engine counts it, indexes it not). */
function countWords(terms: string[], counts: { words: Map<string, number>; empty: boolean }): void {
  for (const term of terms) {
    if (term === "") counts.empty = true;
    else counts.words.set(term, (counts.words.get(term) ?? 0) + 1);
  }
}

/** How often the note `shortId` holds `term` in the field, as its posting says (0 when it does not). */
function heldCount(engine: SearchEngine, term: string, fieldId: number, shortId: number): number {
  const list = engine.terms.get(term)?.[fieldId];
  if (list === undefined) return 0;
  const at = lowerBound(list, shortId);
  return at < list.length && postingNote(list[at]) === shortId ? postingCount(list[at]) : 0;
}
