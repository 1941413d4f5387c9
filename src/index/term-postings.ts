// One term's postings, packed: per field, the notes holding the term (by their short id, ascending)
// and how often. MiniSearch keeps a Map of Maps per term (about 60 bytes a posting); this keeps one
// array of numbers per field (8 bytes a posting), which is what lets a phone hold a large vault.
//
// A term is a fixed array with a slot per field: the field's postings, or undefined. A posting is
// one number, `shortId × 2^22 + count`, so a list stays a packed array of numbers.

/** A term's postings, one slot per field id. */
export type TermPostings = (number[] | undefined)[];

/** A count fits in 22 bits: a 2 MB note cannot hold a word four million times. */
const COUNT_SPAN = 2 ** 22;
/** The largest count a posting holds (more occurrences than this are not counted). */
export const MAX_COUNT = COUNT_SPAN - 1;
/** Short ids stay below this, so `shortId × 2^22 + count` is an exact number. */
export const MAX_SHORT_ID = 2 ** 31;

export function packPosting(shortId: number, count: number): number {
  return shortId * COUNT_SPAN + count;
}

export function postingNote(posting: number): number {
  return Math.floor(posting / COUNT_SPAN);
}

export function postingCount(posting: number): number {
  return posting % COUNT_SPAN;
}

/** A term with no postings yet, for `fields` fields (allocated at its final size: it never grows). */
export function emptyTerm(fields: number): TermPostings {
  return new Array<number[] | undefined>(fields).fill(undefined);
}

/** Whether no field holds the term any more. */
export function isEmptyTerm(term: TermPostings): boolean {
  for (const list of term) if (list !== undefined) return false;
  return true;
}

/**
 * Counts one more occurrence of the term in `shortId`'s field; true when it is the note's first
 * there. Notes are added with ever larger short ids, so the note is almost always the last one:
 * that case is two comparisons (this runs for every word of every note).
 */
export function addOccurrence(term: TermPostings, fieldId: number, shortId: number): boolean {
  const list = term[fieldId];
  const base = shortId * COUNT_SPAN;
  if (list === undefined) {
    term[fieldId] = [base + 1];
    return true;
  }
  const last = list[list.length - 1];
  if (last >= base && last < base + COUNT_SPAN) {
    if (last - base < MAX_COUNT) list[list.length - 1] = last + 1;
    return false;
  }
  if (last < base) {
    list.push(base + 1);
    return true;
  }
  const at = lowerBound(list, shortId);
  if (postingNote(list[at]) === shortId) {
    if (postingCount(list[at]) < MAX_COUNT) list[at] += 1;
    return false;
  }
  list.splice(at, 0, packPosting(shortId, 1));
  return true;
}

/**
 * Takes one occurrence away (as MiniSearch's removeTerm does): the count drops by one, and the
 * posting goes at zero; a field left without postings goes too. False when there was none.
 */
export function removeOccurrence(term: TermPostings, fieldId: number, shortId: number): boolean {
  const list = term[fieldId];
  if (list === undefined) return false;
  const at = lowerBound(list, shortId);
  if (at >= list.length || postingNote(list[at]) !== shortId) return false;
  if (postingCount(list[at]) > 1) list[at] -= 1;
  else if (list.length > 1) list.splice(at, 1);
  else term[fieldId] = undefined;
  return true;
}

/**
 * Puts a field's saved postings `from[0..n)` (ascending, n ≥ 1) after those it holds; false, and
 * nothing put, when they do not all come after them. A field that held none gets an array of exactly
 * n: pushed one by one into an empty array, a note's one posting (most terms are in a single note)
 * sat in room for many for the rest of the session (7.5 MB of a 47 MB engine loaded at 9,282 notes).
 */
export function appendSavedPostings(term: TermPostings, fieldId: number, from: number[], n: number): boolean {
  const list = term[fieldId];
  if (list === undefined) {
    term[fieldId] = from.slice(0, n);
    return true;
  }
  if (postingNote(list[list.length - 1]) >= postingNote(from[0])) return false;
  for (let i = 0; i < n; i++) list.push(from[i]);
  return true;
}

/** Drops every posting whose note `isLive` rejects, and fields left empty. */
export function dropPostings(term: TermPostings, isLive: (shortId: number) => boolean): void {
  for (let f = 0; f < term.length; f++) {
    const list = term[f];
    if (list === undefined) continue;
    let kept = 0;
    for (let j = 0; j < list.length; j++) if (isLive(postingNote(list[j]))) list[kept++] = list[j];
    if (kept === 0) term[f] = undefined;
    else list.length = kept;
  }
}

/** Replaces each list by an exact-size copy: a list grown by pushes has up to half its room unused. */
export function trimTerm(term: TermPostings): void {
  for (let f = 0; f < term.length; f++) {
    const list = term[f];
    if (list !== undefined && list.length > 1) term[f] = list.slice();
  }
}

/** Whether any field of `term` has a posting of a note with a short id in [first, end). */
export function hasPostingsIn(term: TermPostings, first: number, end: number): boolean {
  for (const list of term) {
    // Most lists end before a range of new notes, or begin after an old one: no search needed.
    if (list === undefined || postingNote(list[list.length - 1]) < first || postingNote(list[0]) >= end) continue;
    const at = lowerBound(list, first);
    if (at < list.length && postingNote(list[at]) < end) return true;
  }
  return false;
}

/** The first position in `list` whose note is `shortId` or later. */
export function lowerBound(list: number[], shortId: number): number {
  const key = shortId * COUNT_SPAN;
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
