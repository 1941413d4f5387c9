// The vault's own language as a search lane: each note as the weighted mean of its words' meanings
// (word-meanings.ts), a question the same way, and the notes nearest the question in that space.
// A note that answers in other words than the question's ("processing units" for "cpu cores") is
// near it here though it shares no word with it. Word meanings are learned once, from a full
// build; after that a note that changes gets its vector again from its new words at once, and the
// meanings are learned afresh on the next full build.
import { quantize, type QuantizedVector } from "../embeddings/quantize";
import { meaningsId } from "./note-vector-file";
import { NoteVectors } from "./note-vectors";
import type { WorkSlice } from "../work-slice";
import type { WordMeanings } from "./word-meanings";

/** A note's terms with how often it uses each (a title's words count TITLE_WEIGHT times). */
export type TermCounts = ReadonlyMap<string, number>;

/** How many notes hold a term: rare words say more about what a text is about. */
export type NotesWithTerm = (term: string) => number;

export interface NearNote {
  path: string;
  /** Cosine similarity, −1 to 1. */
  similarity: number;
}

/** A note's title says what it is about: its words count as if written this many times. */
export const TITLE_WEIGHT = 3;

/** Meanings as kept and saved: each word's vector as int8 values, a row a word (only their
 * direction counts: a row over its own length is the word's unit vector). */
export interface KeptMeanings {
  words: string[];
  dimensions: number;
  values: Int8Array;
}

export class VaultLanguage {
  readonly words: ReadonlyMap<string, number>;
  readonly dimensions: number;
  /** Row-major words × dimensions, int8 (a quarter of float32's memory). */
  private readonly values: Int8Array;
  /** Per word, 1 / |its row|: the row times it is the word's unit vector. */
  private readonly units: Float64Array;
  private readonly notes: NoteVectors;
  /** A note's int8 values on their way into `notes` (which copies them). */
  private readonly scratch: Int8Array;
  private id: number | null = null;

  /** Learned meanings are kept as int8 at once, so a lane just learned ranks as it will after a restart. */
  constructor(meanings: WordMeanings | KeptMeanings) {
    const dims = meanings.dimensions;
    this.words = new Map(meanings.words.map((w, i) => [w, i]));
    this.dimensions = dims;
    this.values = "values" in meanings ? meanings.values : int8Rows(meanings.vectors, dims);
    this.units = new Float64Array(meanings.words.length);
    for (let w = 0; w < this.units.length; w++) {
      let norm = 0;
      for (let j = w * dims; j < (w + 1) * dims; j++) norm += this.values[j] * this.values[j];
      this.units[w] = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    }
    this.notes = new NoteVectors(dims);
    this.scratch = new Int8Array(dims);
  }

  get noteCount(): number {
    return this.notes.size;
  }

  /** The meanings as unit vectors (as kept: int8's rounding included). */
  meanings(): WordMeanings {
    const vectors = new Float32Array(this.values.length);
    for (let i = 0; i < vectors.length; i++) vectors[i] = this.values[i] * this.units[Math.floor(i / this.dimensions)];
    return { words: Array.from(this.words.keys()), dimensions: this.dimensions, vectors };
  }

  /** The meanings as kept (for saving), and each word's 1 / |row|. */
  kept(): KeptMeanings & { units: Float64Array } {
    return { words: Array.from(this.words.keys()), dimensions: this.dimensions, values: this.values, units: this.units };
  }

  /** The unit vector of a text's terms, each weighted (1 + log count) × rarity; null when none is known. */
  textVector(counts: TermCounts, notesWithTerm: NotesWithTerm, noteCount: number): Float32Array | null {
    const sum = new Float32Array(this.dimensions);
    let any = false;
    for (const [term, count] of counts) {
      const row = this.words.get(term);
      if (row === undefined || count <= 0) continue;
      const weight = (1 + Math.log(count)) * Math.log(1 + noteCount / Math.max(1, notesWithTerm(term)));
      this.addWord(sum, row, weight);
      any = true;
    }
    return any && toUnitLength(sum) ? sum : null;
  }

  setNote(path: string, counts: TermCounts, notesWithTerm: NotesWithTerm, noteCount: number): void {
    const vector = this.textVector(counts, notesWithTerm, noteCount);
    if (vector) this.notes.set(path, quantize(vector, this.scratch));
    else this.notes.delete(path);
  }

  /** The words whose meaning is nearest `term`'s (cosine ≥ `minSimilarity`), nearest first; none for an unknown word. */
  nearWords(term: string, limit: number, minSimilarity: number): { term: string; similarity: number }[] {
    const row = this.words.get(term);
    if (row === undefined || limit <= 0) return [];
    const dims = this.dimensions;
    const values = this.values;
    const base = row * dims;
    const found: { term: string; similarity: number }[] = [];
    let index = 0;
    for (const word of this.words.keys()) {
      const other = index * dims;
      const unit = this.units[row] * this.units[index++];
      if (other === base) continue;
      let dot = 0;
      for (let j = 0; j < dims; j++) dot += values[base + j] * values[other + j];
      const similarity = dot * unit;
      if (similarity >= minSimilarity) found.push({ term: word, similarity });
    }
    return found.sort((a, b) => b.similarity - a.similarity || (a.term < b.term ? -1 : 1)).slice(0, limit);
  }

  /** Adds `weight` × the meaning of the word in `row` to `sum` from `at` (a note's vector being made). */
  addWord(sum: Float32Array, row: number, weight: number, at = 0): void {
    const base = row * this.dimensions;
    const scaled = weight * this.units[row];
    for (let j = 0; j < this.dimensions; j++) sum[at + j] += scaled * this.values[base + j];
  }

  /** Sets a note's vector from an unnormalised sum of its words' (as `textVector` would make it). */
  setNoteSum(path: string, sum: Float32Array): void {
    if (toUnitLength(sum)) this.notes.set(path, quantize(sum, this.scratch));
    else this.notes.delete(path);
  }

  /** A number that tells these meanings from others (see note-vector-file.ts). */
  meaningsId(): number {
    if (this.id === null) {
      // Hashed as the unit vectors' values × 127, as earlier versions kept them: their saved notes' vectors still count.
      const { values, units, dimensions } = this;
      this.id = meaningsId(values.length, (i) => Math.round(Math.fround(values[i] * units[Math.floor(i / dimensions)]) * 127), this.words.size);
    }
    return this.id;
  }

  /** A copy of a note's vector, as saved (see note-vector-file.ts). */
  noteVector(path: string): QuantizedVector | undefined {
    return this.notes.get(path);
  }

  /** Writes a note's vector into a part being saved, without a copy (see NoteVectors.writeInto). */
  writeNoteVector(path: string, values: Int8Array, norms: Float32Array, at: number): boolean {
    return this.notes.writeInto(path, values, norms, at);
  }

  /** Room for `count` more notes' vectors (see NoteVectors.reserve). */
  reserveNotes(count: number): void {
    this.notes.reserve(this.notes.size + count);
  }

  restoreNote(path: string, vector: QuantizedVector): void {
    if (vector.values.length === this.dimensions) this.notes.set(path, vector);
  }

  removeNote(path: string): void {
    this.notes.delete(path);
  }

  notePaths(): IterableIterator<string> {
    return this.notes.paths();
  }

  /** The `limit` notes nearest `query` (a unit vector), nearest first, ties by path; `keep` filters them. */
  nearest(query: Float32Array, limit: number, keep: (path: string) => boolean = () => true): NearNote[] {
    return this.notes.nearest(query, limit, keep);
  }
}

/** Scales `sum` to length 1 in place; false (and untouched) when it is all zeros. */
function toUnitLength(sum: Float32Array): boolean {
  let norm = 0;
  for (let j = 0; j < sum.length; j++) norm += sum[j] * sum[j];
  if (norm === 0) return false;
  const inv = 1 / Math.sqrt(norm);
  for (let j = 0; j < sum.length; j++) sum[j] *= inv;
  return true;
}

/** Each row of unit vectors as int8 (scaled by its own largest value; see ../embeddings/quantize.ts). */
function int8Rows(vectors: Float32Array, dimensions: number): Int8Array {
  const values = new Int8Array(vectors.length);
  for (let start = 0; start < vectors.length; start += dimensions) int8Row(vectors, values, start, dimensions);
  return values;
}

function int8Row(vectors: Float32Array, into: Int8Array, start: number, dimensions: number): void {
  into.set(quantize(vectors.subarray(start, start + dimensions)).values, start);
}

/**
 * Learned meanings as they are kept, the rows turned to int8 a few at a time: a vault's 10,000 or
 * more words took 40 ms in one stretch (`new VaultLanguage(learned)` does the same at once).
 */
export async function keepMeanings(meanings: WordMeanings, slice: WorkSlice): Promise<KeptMeanings> {
  const { vectors, dimensions } = meanings;
  const values = new Int8Array(vectors.length);
  for (let start = 0, row = 0; start < vectors.length; start += dimensions, row++) {
    if (row % 256 === 0 && slice.over()) await slice.pause();
    int8Row(vectors, values, start, dimensions);
  }
  return { words: meanings.words, dimensions, values };
}

/** A note's term counts from its passages (see ../associations/passages.ts) and title terms. */
export function termCounts(passages: readonly (readonly string[])[], titleTerms: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const p of passages) for (const t of p) counts.set(t, (counts.get(t) ?? 0) + 1);
  for (const t of titleTerms) counts.set(t, (counts.get(t) ?? 0) + TITLE_WEIGHT);
  return counts;
}
