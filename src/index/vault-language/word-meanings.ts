// What this vault means by its words, learned from its own notes: words that stand in the same
// passages as the same other words mean related things, even when they never meet ("unstaged"
// and "uncommitted" both keep company with "changes", "discard" and "commit"). Counted as positive
// pointwise mutual information over passages (a few lines of one section, see passages.ts), then
// squeezed to a few dozen dimensions (top-eigenvectors.ts): a small latent-semantic model of the
// vault, with no model file and no network. Words in fewer than MIN_PASSAGES passages are left out
// (chance company), and so are numbers, single letters and stop words.
import { grown } from "../typed-arrays";
import type { WorkSlice } from "../work-slice";
import { fnv1a32 } from "../../text/string-hash";
import { topEigenpairs, type SparseSymmetric } from "./top-eigenvectors";

export interface WordMeaningOptions {
  dimensions: number;
  /** A word in fewer passages than this has no vector. */
  minPassages: number;
  /** At most this many words (the ones in most passages) get vectors: bounds memory and time. */
  maxWords: number;
  /** A word in more than this share of the passages keeps company with everything: it is a context
   * for the others, but gets no vector of its own (it would say little of a note, and its postings
   * are most of the work of filling the notes' vectors). 1 keeps every word. */
  maxPassageShare?: number;
  /** Context smoothing: rare context words count for less than their share (0.75, as in word2vec). */
  smoothing: number;
  /** Extra directions searched, and power steps taken, by the randomized eigensolver: more is
   * closer to the exact eigenvectors and slower. */
  oversample: number;
  powerSteps: number;
  /** The eigensolver's seed, mixed with each word's own (1 when absent): the same seed, the same meanings. */
  seed?: number;
}

export const DEFAULT_WORD_MEANING: WordMeaningOptions = { dimensions: 128, minPassages: 3, maxWords: 20_000, smoothing: 0.75, oversample: 40, powerSteps: 2 };

export interface WordMeanings {
  words: string[];
  dimensions: number;
  /** Row-major words × dimensions, each row of length 1. */
  vectors: Float32Array;
}

/** Word vectors from passages (each a list of index terms; repeats within a passage count once). */
export async function learnWordMeanings(passages: readonly (readonly string[])[], isTopicTerm: (term: string) => boolean, slice: WorkSlice, options: WordMeaningOptions = DEFAULT_WORD_MEANING): Promise<WordMeanings | null> {
  return learnFromBook(await passageBook(passages, isTopicTerm, slice), slice, options);
}

/**
 * Passages as numbers: each passage's distinct topic terms (in the order first met) as places in
 * `terms`, kept flat. What learning needs of the passages, all of it typed arrays but one string
 * list: the 60,000 small arrays of the sample can go once it is made.
 */
export interface PassageBook {
  terms: string[];
  /** Passage i's terms are `entries[start[i]]` up to `entries[start[i + 1]]`, places in `terms`. */
  start: Uint32Array;
  entries: Uint32Array;
}

export async function passageBook(passages: readonly (readonly string[])[], isTopicTerm: (term: string) => boolean, slice: WorkSlice): Promise<PassageBook> {
  const placeOf = new Map<string, number>();
  const terms: string[] = [];
  const start = new Uint32Array(passages.length + 1);
  let entries = new Uint32Array(Math.max(1024, passages.length * 16));
  let used = 0;
  for (const [i, p] of passages.entries()) {
    if (i % 256 === 0 && slice.over()) await slice.pause();
    for (const term of new Set(p)) {
      if (!isTopicTerm(term)) continue;
      let place = placeOf.get(term);
      if (place === undefined) placeOf.set(term, (place = terms.push(term) - 1));
      if (used === entries.length) entries = grown(entries, entries.length * 2);
      entries[used++] = place;
    }
    start[i + 1] = used;
  }
  return { terms, start, entries: entries.subarray(0, used) };
}

/** Word vectors from a book of passages (what `learnWordMeanings` does after `passageBook`). */
async function learnFromBook(book: PassageBook, slice: WorkSlice, options: WordMeaningOptions = DEFAULT_WORD_MEANING): Promise<WordMeanings | null> {
  const rows = await passageRows(book, options, slice);
  if (rows.words.length <= options.dimensions * 2) return null;
  const matrix = await ppmiMatrix(rows, options.smoothing, slice);
  // Each word starts the search from directions of its own (its hash), whatever words come before it.
  const eigen = await topEigenpairs(matrix, options.dimensions, slice, options, options.seed ?? 1, rows.words.map((w) => fnv1a32(w)));
  const dims = eigen.count;
  const vectors = new Float32Array(rows.words.length * dims);
  for (let w = 0; w < rows.words.length; w++) {
    if (w % 256 === 0 && slice.over()) await slice.pause();
    let norm = 0;
    for (let j = 0; j < dims; j++) {
      const value = eigen.vectors[w * dims + j] * Math.sqrt(Math.max(0, eigen.values[j]));
      vectors[w * dims + j] = value;
      norm += value * value;
    }
    const inv = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    for (let j = 0; j < dims; j++) vectors[w * dims + j] *= inv;
  }
  return keepSpecific({ words: rows.words, dimensions: dims, vectors }, rows, options.maxPassageShare ?? 1);
}

/** The meanings without the words in more than `share` of the passages. */
function keepSpecific(meanings: WordMeanings, rows: PassageRows, share: number): WordMeanings {
  if (share >= 1) return meanings;
  const limit = share * (rows.passages.start.length - 1);
  const kept = meanings.words.flatMap((_, w) => (rowLength(rows.passagesOf, w) <= limit ? [w] : []));
  const dims = meanings.dimensions;
  const vectors = new Float32Array(kept.length * dims);
  kept.forEach((w, i) => vectors.set(meanings.vectors.subarray(w * dims, (w + 1) * dims), i * dims));
  return { words: kept.map((w) => meanings.words[w]), dimensions: dims, vectors };
}

/**
 * Rows of a sparse 0/1 matrix, kept flat (compressed rows): row i's entries are
 * `entries[start[i]]` up to `entries[start[i + 1]]`. One array for all rows, not one a row: tens
 * of thousands of small arrays each weighed on the garbage collector while the lane learned.
 */
interface FlatRows {
  start: Uint32Array;
  entries: Uint32Array;
}

function rowLength(rows: FlatRows, i: number): number {
  return rows.start[i + 1] - rows.start[i];
}

function rowOf(rows: FlatRows, i: number): Uint32Array {
  return rows.entries.subarray(rows.start[i], rows.start[i + 1]);
}

interface PassageRows {
  words: string[];
  /** Per passage, the row numbers of its kept words. */
  passages: FlatRows;
  /** Per row, the passages that hold it. */
  passagesOf: FlatRows;
}

/** The kept words (the most used, from MIN_PASSAGES up) as rows, and the passages in row numbers. */
async function passageRows(book: PassageBook, options: WordMeaningOptions, slice: WorkSlice): Promise<PassageRows> {
  const passageCount = book.start.length - 1;
  const counts = new Uint32Array(book.terms.length);
  for (let k = 0; k < book.entries.length; k++) counts[book.entries[k]]++;
  if (slice.over()) await slice.pause();
  const common = book.terms.flatMap((term, place) => (counts[place] >= options.minPassages ? [place] : []));
  const kept = common.sort((a, b) => counts[b] - counts[a] || (book.terms[a] < book.terms[b] ? -1 : 1)).slice(0, options.maxWords);
  const words = kept.map((place) => book.terms[place]);
  if (slice.over()) await slice.pause();
  // Each term's row (-1: no row of its own).
  const rowNumber = new Int32Array(book.terms.length).fill(-1);
  for (const [row, place] of kept.entries()) rowNumber[place] = row;
  const start = new Uint32Array(passageCount + 1);
  let total = 0;
  for (let i = 0; i < passageCount; i++) {
    if (i % 256 === 0 && slice.over()) await slice.pause();
    for (let k = book.start[i]; k < book.start[i + 1]; k++) if (rowNumber[book.entries[k]] >= 0) total++;
    start[i + 1] = total;
  }
  const entries = new Uint32Array(total);
  const sizes = new Uint32Array(words.length);
  for (let i = 0; i < passageCount; i++) {
    if (i % 256 === 0 && slice.over()) await slice.pause();
    let at = start[i];
    for (let k = book.start[i]; k < book.start[i + 1]; k++) {
      const row = rowNumber[book.entries[k]];
      if (row < 0) continue;
      entries[at++] = row;
      sizes[row]++;
    }
  }
  const inRows = { start, entries };
  const ofStart = new Uint32Array(words.length + 1);
  for (let r = 0; r < words.length; r++) ofStart[r + 1] = ofStart[r] + sizes[r];
  const ofEntries = new Uint32Array(total);
  const filled = ofStart.slice(0, words.length);
  for (let i = 0; i < passageCount; i++) {
    if (i % 256 === 0 && slice.over()) await slice.pause();
    for (let k = start[i]; k < start[i + 1]; k++) ofEntries[filled[entries[k]]++] = i;
  }
  return { words, passages: inRows, passagesOf: { start: ofStart, entries: ofEntries } };
}

/** Positive PMI of every pair of kept words seen in one passage, as a sparse symmetric matrix. */
async function ppmiMatrix(rows: PassageRows, smoothing: number, slice: WorkSlice): Promise<SparseSymmetric> {
  const size = rows.words.length;
  // A word's company: one for every other kept word of every passage it is in.
  const company = new Float64Array(size);
  const { start, entries } = rows.passages;
  for (let p = 0; p + 1 < start.length; p++) for (let k = start[p]; k < start[p + 1]; k++) company[entries[k]] += start[p + 1] - start[p] - 1;
  const total = company.reduce((a, b) => a + b, 0) || 1;
  const smoothed = Array.from(company, (c) => c ** smoothing);
  const smoothedTotal = smoothed.reduce((a, b) => a + b, 0) || 1;
  const share = Float64Array.from(smoothed, (s) => s / smoothedTotal);
  const together = new Float64Array(size);
  const touched: number[] = [];
  const rowStart = new Uint32Array(size + 1);
  let cols = new Uint32Array(1 << 16);
  let vals = new Float32Array(1 << 16);
  let used = 0;
  for (let a = 0; a < size; a++) {
    if (slice.over()) await slice.pause();
    for (const p of rowOf(rows.passagesOf, a)) {
      for (let k = start[p]; k < start[p + 1]; k++) {
        const b = entries[k];
        if (b === a) continue;
        if (together[b]++ === 0) touched.push(b);
      }
    }
    touched.sort((x, y) => x - y);
    if (used + touched.length > cols.length) {
      const length = Math.max(cols.length * 2, used + touched.length);
      cols = grown(cols, length);
      vals = grown(vals, length);
    }
    for (const b of touched) {
      const pmi = Math.log(together[b] / total / (share[a] * share[b]));
      together[b] = 0;
      if (pmi <= 0) continue;
      cols[used] = b;
      vals[used++] = pmi;
    }
    touched.length = 0;
    rowStart[a + 1] = used;
  }
  // Views, not copies: the matrix lives only while it is learned from, and copying two million
  // values into fresh memory took 40–60 ms in one stretch.
  return { size, rowStart, cols: cols.subarray(0, used), vals: vals.subarray(0, used) };
}

