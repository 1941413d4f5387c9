// A term's packed postings: notes ascend, counts grow and shrink one occurrence at a time as
// MiniSearch's own do, fields come and go, and a list trimmed or cleaned keeps exactly its postings.
import { describe, expect, it } from "vitest";
import {
  addOccurrence,
  appendSavedPostings,
  dropPostings,
  emptyTerm,
  hasPostingsIn,
  isEmptyTerm,
  lowerBound,
  MAX_COUNT,
  packPosting,
  postingCount,
  postingNote,
  removeOccurrence,
  trimTerm,
  type TermPostings,
} from "../../src/index/term-postings";

/** Field → [note, count] pairs, for reading a term at a glance. */
function view(term: TermPostings): Record<number, [number, number][]> {
  const out: Record<number, [number, number][]> = {};
  term.forEach((list, field) => {
    if (list) out[field] = list.map((p) => [postingNote(p), postingCount(p)]);
  });
  return out;
}

describe("term postings", () => {
  it("pack a note and a count into one number and back, up to the largest short id", () => {
    for (const [note, count] of [
      [0, 1],
      [7, 3],
      [2 ** 31 - 1, MAX_COUNT],
    ]) {
      expect([postingNote(packPosting(note, count)), postingCount(packPosting(note, count))]).toEqual([note, count]);
    }
  });

  it("count a note's occurrences per field, saying when a note is new to a field", () => {
    const term = emptyTerm(7);
    expect(addOccurrence(term, 6, 3)).toBe(true);
    expect(addOccurrence(term, 6, 3)).toBe(false);
    expect(addOccurrence(term, 0, 3)).toBe(true);
    expect(addOccurrence(term, 6, 9)).toBe(true);
    expect(view(term)).toEqual({ 0: [[3, 1]], 6: [[3, 2], [9, 1]] });
  });

  it("keep notes in order even when one comes late", () => {
    const term = emptyTerm(7);
    for (const note of [2, 8, 5, 8, 1]) addOccurrence(term, 1, note);
    expect(view(term)[1]).toEqual([
      [1, 1],
      [2, 1],
      [5, 1],
      [8, 2],
    ]);
    expect(lowerBound(term[1]!, 5)).toBe(2);
    expect(lowerBound(term[1]!, 9)).toBe(4);
  });

  it("take occurrences away one at a time, then the note, then the field", () => {
    const term = emptyTerm(7);
    addOccurrence(term, 2, 4);
    addOccurrence(term, 2, 4);
    addOccurrence(term, 2, 6);
    expect(removeOccurrence(term, 2, 4)).toBe(true);
    expect(view(term)[2]).toEqual([
      [4, 1],
      [6, 1],
    ]);
    expect(removeOccurrence(term, 2, 4)).toBe(true);
    expect(removeOccurrence(term, 2, 4)).toBe(false);
    expect(removeOccurrence(term, 3, 6)).toBe(false);
    expect(removeOccurrence(term, 2, 6)).toBe(true);
    expect(isEmptyTerm(term)).toBe(true);
  });

  it("drop the notes that left, and trim lists to exactly what they hold", () => {
    const term = emptyTerm(7);
    for (let note = 0; note < 40; note++) addOccurrence(term, note % 2, note);
    dropPostings(term, (note) => note % 4 === 0);
    expect(view(term)).toEqual({ 0: Array.from({ length: 10 }, (_, i) => [i * 4, 1]) });
    const before = view(term);
    trimTerm(term);
    expect(view(term)).toEqual(before);
    dropPostings(term, () => false);
    expect(isEmptyTerm(term)).toBe(true);
  });

  it("take saved postings after those a field holds, into a field of its own when it has none, and refuse them out of order", () => {
    const term = emptyTerm(3);
    const read = [packPosting(2, 1), packPosting(5, 3), packPosting(9, 9)];
    expect(appendSavedPostings(term, 1, read, 2)).toBe(true);
    expect(appendSavedPostings(term, 1, [packPosting(7, 2)], 1)).toBe(true);
    expect(view(term)).toEqual({ 1: [[2, 1], [5, 3], [7, 2]] });
    // A note the field already holds, or one before its last: nothing is taken.
    expect(appendSavedPostings(term, 1, [packPosting(7, 1), packPosting(8, 1)], 2)).toBe(false);
    expect(view(term)).toEqual({ 1: [[2, 1], [5, 3], [7, 2]] });
  });

  it("say whether a note in a range of short ids holds the term, in any field", () => {
    const term: TermPostings = [undefined, [packPosting(3, 1), packPosting(10, 2)], [packPosting(7, 1)]];
    const inRange = (first: number, end: number) => hasPostingsIn(term, first, end);
    expect([inRange(0, 3), inRange(3, 4), inRange(4, 7), inRange(4, 8), inRange(8, 10), inRange(8, 11), inRange(11, 99)]).toEqual([false, true, false, true, false, true, false]);
    expect(hasPostingsIn(emptyTerm(3), 0, 99)).toBe(false);
  });

  it("stop counting at the largest count a posting holds", () => {
    const term: TermPostings = [[packPosting(1, MAX_COUNT)]];
    expect(addOccurrence(term, 0, 1)).toBe(false);
    expect(view(term)[0]).toEqual([[1, MAX_COUNT]]);
  });
});
