// What this vault means by its words, learned from its own notes: words that stand in the same
// passages as the same other words mean related things, even when they never meet ("unstaged"
// and "uncommitted" both keep company with "changes", "discard" and "commit"). Counted as positive
// pointwise mutual information over passages (a few lines of one section, see passages.ts), then
// squeezed to a few dozen dimensions (top-eigenvectors.ts): a small latent-semantic model of the
// vault, with no model file and no network. Words in fewer than MIN_PASSAGES passages are left out
// (chance company), and so are numbers, single letters and stop words.
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
  const rows = await passageRows(passages, isTopicTerm, options, slice);
  if (rows.words.length <= options.dimensions * 2) return null;
  const matrix = await ppmiMatrix(rows, options.smoothing, slice);
  // Each word starts the search from directions of its own (its hash), whatever words come before it.
  const eigen = await topEigenpairs(matrix, options.dimensions, slice, options, options.seed ?? 1, rows.words.map((w) => fnv1a32(w)));
  const dims = eigen.count;
  const vectors = new Float32Array(rows.words.length * dims);
  for (let w = 0; w < rows.words.length; w++) {
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
  const limit = share * rows.passages.length;
  const kept = meanings.words.flatMap((_, w) => (rows.passagesOf[w].length <= limit ? [w] : []));
  const dims = meanings.dimensions;
  const vectors = new Float32Array(kept.length * dims);
  kept.forEach((w, i) => vectors.set(meanings.vectors.subarray(w * dims, (w + 1) * dims), i * dims));
  return { words: kept.map((w) => meanings.words[w]), dimensions: dims, vectors };
}

interface PassageRows {
  words: string[];
  /** Per passage, the row numbers of its kept words. */
  passages: Uint32Array[];
  /** Per row, the passages that hold it. */
  passagesOf: Uint32Array[];
}

/** The kept words (the most used, from MIN_PASSAGES up) as rows, and the passages in row numbers. */
async function passageRows(passages: readonly (readonly string[])[], isTopicTerm: (term: string) => boolean, options: WordMeaningOptions, slice: WorkSlice): Promise<PassageRows> {
  const counts = new Map<string, number>();
  const distinct: string[][] = [];
  for (const p of passages) {
    if (distinct.length % 512 === 0 && slice.over()) await slice.pause();
    const terms = Array.from(new Set(p)).filter(isTopicTerm);
    distinct.push(terms);
    for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
  }
  const words = Array.from(counts)
    .filter(([, n]) => n >= options.minPassages)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, options.maxWords)
    .map(([w]) => w);
  const rowOf = new Map(words.map((w, i) => [w, i]));
  const inRows: Uint32Array[] = [];
  for (const p of distinct) {
    if (inRows.length % 512 === 0 && slice.over()) await slice.pause();
    inRows.push(Uint32Array.from(p.flatMap((t) => (rowOf.has(t) ? [rowOf.get(t)!] : []))));
  }
  const sizes = new Uint32Array(words.length);
  for (const p of inRows) for (const r of p) sizes[r]++;
  const passagesOf = Array.from(sizes, (n) => new Uint32Array(n));
  const filled = new Uint32Array(words.length);
  inRows.forEach((p, i) => {
    for (const r of p) passagesOf[r][filled[r]++] = i;
  });
  return { words, passages: inRows, passagesOf };
}

/** Positive PMI of every pair of kept words seen in one passage, as a sparse symmetric matrix. */
async function ppmiMatrix(rows: PassageRows, smoothing: number, slice: WorkSlice): Promise<SparseSymmetric> {
  const size = rows.words.length;
  // A word's company: one for every other kept word of every passage it is in.
  const company = new Float64Array(size);
  for (const p of rows.passages) for (const r of p) company[r] += p.length - 1;
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
    for (const p of rows.passagesOf[a]) {
      for (const b of rows.passages[p]) {
        if (b === a) continue;
        if (together[b]++ === 0) touched.push(b);
      }
    }
    touched.sort((x, y) => x - y);
    if (used + touched.length > cols.length) {
      const grown = Math.max(cols.length * 2, used + touched.length);
      cols = grow(cols, grown, Uint32Array);
      vals = grow(vals, grown, Float32Array);
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
  return { size, rowStart, cols: cols.slice(0, used), vals: vals.slice(0, used) };
}

function grow<T extends Uint32Array | Float32Array>(a: T, length: number, Kind: new (n: number) => T): T {
  const out = new Kind(length);
  out.set(a);
  return out;
}
