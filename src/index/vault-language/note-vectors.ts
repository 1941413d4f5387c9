// The notes' vectors in the vault's language, kept in one block of memory (int8, a row a note)
// instead of an object a note, and the notes nearest a question found without looking at every
// dimension of every note. Eigenvectors come strongest first, so a note's first dimensions carry
// most of it: after each block of `STEP` dimensions, the dot product so far plus the most the
// rest could add (|question's rest| × |note's rest|, by Cauchy–Schwarz) bounds the note's
// similarity from above, and a note whose bound is below the `limit`th best kept so far is passed
// over. The others are summed in full, in the same order as without the bounds, so the answer is
// the same to the bit.
import type { QuantizedVector } from "../embeddings/quantize";
import { grown } from "../typed-arrays";
import { BestKept } from "./best-kept";
import type { NearNote } from "./vault-language";

/** Dimensions summed between two looks at a note's bound. */
const STEP = 16;
/** Rounding never lets the bound fall below a similarity it holds. */
const BOUND_SLACK = 1e-9;

export class NoteVectors {
  private values: Int8Array;
  private invNorms: Float64Array;
  private scales: Float64Array;
  /** Per row, |values| over the dimensions after each step (row × steps + step). */
  private rests: Float64Array;
  /** Row → path (null for a free row). */
  private rows: (string | null)[] = [];
  private readonly rowOf = new Map<string, number>();
  private readonly free: number[] = [];
  /** The bound is looked at after this many steps of STEP dimensions (none at the end). */
  private readonly steps: number;

  constructor(readonly dimensions: number, capacity = 64) {
    this.steps = Math.max(0, Math.ceil(dimensions / STEP) - 1);
    this.values = new Int8Array(capacity * dimensions);
    this.invNorms = new Float64Array(capacity);
    this.scales = new Float64Array(capacity);
    this.rests = new Float64Array(capacity * this.steps);
  }

  get size(): number {
    return this.rowOf.size;
  }

  has(path: string): boolean {
    return this.rowOf.has(path);
  }

  /** Keeps `vector` as `path`'s (of this store's dimensions). */
  set(path: string, vector: QuantizedVector): void {
    if (vector.values.length !== this.dimensions) throw new Error(`A note vector of ${vector.values.length} dimensions in a store of ${this.dimensions}.`);
    let row = this.rowOf.get(path);
    if (row === undefined) {
      row = this.free.pop() ?? this.rows.length;
      if (row === this.rows.length) {
        this.rows.push(null);
        this.ensureCapacity(this.rows.length);
      }
      this.rows[row] = path;
      this.rowOf.set(path, row);
    }
    const dims = this.dimensions;
    this.values.set(vector.values, row * dims);
    restNorms(vector.values, this.steps, this.rests, row * this.steps);
    this.invNorms[row] = vector.invNorm;
    this.scales[row] = vector.scale;
  }

  /** A copy of `path`'s vector. */
  get(path: string): QuantizedVector | undefined {
    const row = this.rowOf.get(path);
    if (row === undefined) return undefined;
    const start = row * this.dimensions;
    return { values: this.values.slice(start, start + this.dimensions), invNorm: this.invNorms[row], scale: this.scales[row] };
  }

  /**
   * Writes `path`'s vector where a saved part keeps it (note-vector-file.ts), straight from this
   * block: its values into `values` from `at` × dimensions, its 1 / |v| and scale into `norms` at
   * `at` × 2 and the next; false (nothing written) when it has none. A save after 500 edits at
   * 100,000 notes writes about 62,000 vectors: a copy of each on the way was 62,000 small buffers.
   */
  writeInto(path: string, values: Int8Array, norms: Float32Array, at: number): boolean {
    const row = this.rowOf.get(path);
    if (row === undefined) return false;
    const dims = this.dimensions;
    // A loop rather than set(subarray): a view is an object too.
    for (let j = 0, from = row * dims, to = at * dims; j < dims; j++) values[to + j] = this.values[from + j];
    norms[at * 2] = this.invNorms[row];
    norms[at * 2 + 1] = this.scales[row];
    return true;
  }

  delete(path: string): void {
    const row = this.rowOf.get(path);
    if (row === undefined) return;
    this.rowOf.delete(path);
    this.rows[row] = null;
    this.free.push(row);
  }

  paths(): IterableIterator<string> {
    return this.rowOf.keys();
  }

  /** The `limit` notes nearest `query` (a unit vector), nearest first, ties by path; `keep` filters them. */
  nearest(query: Float32Array, limit: number, keep: (path: string) => boolean = () => true): NearNote[] {
    if (limit <= 0) return [];
    const dims = this.dimensions;
    const steps = this.steps;
    const queryRests = new Float64Array(steps);
    restNorms(query, steps, queryRests, 0);
    const values = this.values;
    const rests = this.rests;
    const kept = new BestKept<NearNote>(limit, nearestFirst);
    for (let row = 0; row < this.rows.length; row++) {
      const path = this.rows[row];
      if (path === null) continue;
      const invNorm = this.invNorms[row];
      const base = row * dims;
      // The similarity a note must reach to be kept: −∞ until `limit` are kept.
      const floor = kept.worst()?.similarity ?? -Infinity;
      let dot = 0;
      let j = 0;
      let passed = false;
      for (let step = 0; step < steps; step++) {
        for (const end = j + STEP; j < end; j++) dot += query[j] * values[base + j];
        // A note tied with the floor may still win on its path, so only a bound below it passes one over.
        if ((dot + queryRests[step] * rests[row * steps + step]) * invNorm + BOUND_SLACK < floor) {
          passed = true;
          break;
        }
      }
      if (passed) continue;
      for (; j < dims; j++) dot += query[j] * values[base + j];
      const similarity = dot * invNorm;
      if (similarity < floor || !keep(path)) continue;
      kept.offer({ path, similarity });
    }
    return kept.items().sort(nearestFirst);
  }

  /** Room for `rows` notes in all (a fill that knows how many comes makes its block once: grown
   * by doubling, 100,000 notes copied the block eleven times, each copy a large new array). */
  reserve(rows: number): void {
    this.ensureCapacity(rows);
  }

  private ensureCapacity(rows: number): void {
    if (rows <= this.invNorms.length) return;
    const capacity = Math.max(rows, this.invNorms.length * 2);
    this.values = grown(this.values, capacity * this.dimensions);
    this.invNorms = grown(this.invNorms, capacity);
    this.scales = grown(this.scales, capacity);
    this.rests = grown(this.rests, capacity * this.steps);
  }
}

/** Per step, |v| over the dimensions after it, written to `out` from `at`. */
function restNorms(v: ArrayLike<number>, steps: number, out: Float64Array, at: number): void {
  let rest = 0;
  for (let step = steps - 1, j = v.length - 1; step >= 0; step--) {
    for (const start = (step + 1) * STEP; j >= start; j--) rest += v[j] * v[j];
    out[at + step] = Math.sqrt(rest);
  }
}

/** Nearer first, then by path. */
function nearestFirst(a: NearNote, b: NearNote): number {
  return b.similarity - a.similarity || (a.path < b.path ? -1 : 1);
}
