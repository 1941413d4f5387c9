// The largest eigenpairs of a big sparse symmetric matrix, found the randomized way (Halko,
// Martinsson and Tropp): multiply a few random vectors by the matrix (and once more, which
// sharpens the gap between the eigenvalues kept and the rest), orthonormalise, and solve the
// small problem the matrix makes on that subspace with Jacobi rotations. Deterministic: the random
// vectors come from a seeded generator, so one vault always gives the same vectors.
import type { WorkSlice } from "../work-slice";

/** A symmetric matrix in compressed rows: row i's entries are cols/vals[rowStart[i] .. rowStart[i + 1]). */
export interface SparseSymmetric {
  size: number;
  rowStart: Uint32Array;
  cols: Uint32Array;
  vals: Float32Array;
}

export interface Eigenpairs {
  /** Row-major size × count: column j is the eigenvector of values[j]. */
  vectors: Float64Array;
  values: Float64Array;
  count: number;
}

/** A small, fast, seeded generator (mulberry32): the same seed gives the same numbers everywhere. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The `count` eigenpairs of largest eigenvalue, `oversample` extra directions searched. The search
 * starts from random directions; with `rowSeeds` (one number per row), each row's start comes from
 * its own seed, so a row keeps its start when rows come or go or change places (a word of the
 * vault keeps it whatever else the vault says), and the result moves only as far as the matrix did.
 */
export async function topEigenpairs(m: SparseSymmetric, count: number, slice: WorkSlice, search: { oversample: number; powerSteps: number } = { oversample: 10, powerSteps: 1 }, seed = 1, rowSeeds?: ArrayLike<number>): Promise<Eigenpairs> {
  const width = Math.min(m.size, count + search.oversample);
  if (slice.over()) await slice.pause();
  let basis: Float64Array = new Float64Array(m.size * width);
  if (rowSeeds) {
    for (let row = 0; row < m.size; row++) {
      if (row % 64 === 0 && slice.over()) await slice.pause();
      const random = seededRandom(rowSeeds[row] ^ seed);
      for (let j = 0; j < width; j++) basis[row * width + j] = random() * 2 - 1;
    }
  } else {
    const random = seededRandom(seed);
    for (let i = 0; i < basis.length; i++) {
      if (i % 8192 === 0 && slice.over()) await slice.pause();
      basis[i] = random() * 2 - 1;
    }
  }
  // Each power step multiplies by M once more, which spreads the kept eigenvalues from the rest. The
  // steps swap two buffers and share one for the columns: three large arrays for the whole search,
  // not two new ones a step (each large allocation hurries the garbage collector, which then
  // marks the whole heap in the middle of a slice).
  if (slice.over()) await slice.pause();
  let spare: Float64Array = new Float64Array(basis.length);
  if (slice.over()) await slice.pause();
  const columns = new Float64Array(basis.length);
  for (let step = 0; step <= search.powerSteps; step++) {
    const next = await orthonormalColumns(await multiply(m, basis, width, slice, spare), width, columns, slice);
    spare = basis;
    basis = next;
  }
  const image = await multiply(m, basis, width, slice, spare);
  const small = await projected(basis, image, m.size, width, slice);
  const { values, vectors } = await jacobiEigen(small, width, slice);
  const order = Array.from(values.keys()).sort((a, b) => values[b] - values[a]).slice(0, Math.min(count, width));
  // Written over the image, no longer needed: one large allocation fewer.
  const out = image.subarray(0, m.size * order.length);
  for (let row = 0; row < m.size; row++) {
    if (row % 128 === 0 && slice.over()) await slice.pause();
    for (let j = 0; j < order.length; j++) {
      let sum = 0;
      for (let l = 0; l < width; l++) sum += basis[row * width + l] * vectors[l * width + order[j]];
      out[row * order.length + j] = sum;
    }
  }
  return { vectors: out, values: Float64Array.from(order, (j) => values[j]), count: order.length };
}

/** M × D for a row-major dense D of `width` columns, written over `out` (of D's length). */
async function multiply(m: SparseSymmetric, dense: Float64Array, width: number, slice: WorkSlice, out: Float64Array): Promise<Float64Array> {
  for (let row = 0; row < m.size; row++) {
    if (slice.over()) await slice.pause();
    const base = row * width;
    out.fill(0, base, base + width);
    for (let k = m.rowStart[row]; k < m.rowStart[row + 1]; k++) {
      const v = m.vals[k];
      const from = m.cols[k] * width;
      for (let j = 0; j < width; j++) out[base + j] += v * dense[from + j];
    }
  }
  return out;
}

/** Modified Gram–Schmidt on the columns (in place); a column that vanishes is left at zero. The
 * columns are worked on as contiguous arrays (copied into `scratch`, of `a`'s length), which is
 * several times faster than striding. */
async function orthonormalColumns(a: Float64Array, width: number, scratch: Float64Array, slice: WorkSlice): Promise<Float64Array> {
  const rows = a.length / width;
  const columns = Array.from({ length: width }, (_, j) => scratch.subarray(j * rows, (j + 1) * rows));
  for (let j = 0; j < width; j++) {
    if (slice.over()) await slice.pause();
    const column = columns[j];
    for (let r = 0; r < rows; r++) column[r] = a[r * width + j];
  }
  for (let j = 0; j < width; j++) {
    const cj = columns[j];
    for (let p = 0; p < j; p++) {
      if (slice.over()) await slice.pause();
      const cp = columns[p];
      let dot = 0;
      for (let r = 0; r < rows; r++) dot += cj[r] * cp[r];
      for (let r = 0; r < rows; r++) cj[r] -= dot * cp[r];
    }
    if (slice.over()) await slice.pause();
    let norm = 0;
    for (let r = 0; r < rows; r++) norm += cj[r] * cj[r];
    const inv = norm > 1e-20 ? 1 / Math.sqrt(norm) : 0;
    for (let r = 0; r < rows; r++) cj[r] *= inv;
  }
  for (let j = 0; j < width; j++) {
    if (slice.over()) await slice.pause();
    const cj = columns[j];
    for (let r = 0; r < rows; r++) a[r * width + j] = cj[r];
  }
  return a;
}

/** Qᵀ(MQ): the width × width matrix M makes on the subspace, symmetrised against rounding. */
async function projected(q: Float64Array, mq: Float64Array, rows: number, width: number, slice: WorkSlice): Promise<Float64Array> {
  const out = new Float64Array(width * width);
  for (let r = 0; r < rows; r++) {
    if (r % 128 === 0 && slice.over()) await slice.pause();
    const base = r * width;
    for (let i = 0; i < width; i++) {
      const qi = q[base + i];
      if (qi === 0) continue;
      for (let j = 0; j < width; j++) out[i * width + j] += qi * mq[base + j];
    }
  }
  for (let i = 0; i < width; i++) {
    for (let j = i + 1; j < width; j++) {
      const mean = (out[i * width + j] + out[j * width + i]) / 2;
      out[i * width + j] = mean;
      out[j * width + i] = mean;
    }
  }
  return out;
}

/** Cyclic Jacobi for a small dense symmetric matrix: eigenvalues, and eigenvectors as columns. */
export async function jacobiEigen(input: Float64Array, n: number, slice: WorkSlice, sweeps = 30): Promise<{ values: Float64Array; vectors: Float64Array }> {
  const a = Float64Array.from(input);
  const v = new Float64Array(n * n);
  for (let i = 0; i < n; i++) v[i * n + i] = 1;
  for (let sweep = 0; sweep < sweeps; sweep++) {
    if (slice.over()) await slice.pause();
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += a[p * n + q] ** 2;
    if (off < 1e-22) break;
    for (let p = 0; p < n; p++) {
      if (slice.over()) await slice.pause();
      for (let q = p + 1; q < n; q++) {
        const apq = a[p * n + q];
        if (Math.abs(apq) < 1e-300) continue;
        const theta = (a[q * n + q] - a[p * n + p]) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        rotate(a, v, n, p, q, c, s);
      }
    }
  }
  return { values: Float64Array.from({ length: n }, (_, i) => a[i * n + i]), vectors: v };
}

function rotate(a: Float64Array, v: Float64Array, n: number, p: number, q: number, c: number, s: number): void {
  for (let k = 0; k < n; k++) {
    const akp = a[k * n + p];
    const akq = a[k * n + q];
    a[k * n + p] = c * akp - s * akq;
    a[k * n + q] = s * akp + c * akq;
  }
  for (let k = 0; k < n; k++) {
    const apk = a[p * n + k];
    const aqk = a[q * n + k];
    a[p * n + k] = c * apk - s * aqk;
    a[q * n + k] = s * apk + c * aqk;
  }
  for (let k = 0; k < n; k++) {
    const vkp = v[k * n + p];
    const vkq = v[k * n + q];
    v[k * n + p] = c * vkp - s * vkq;
    v[k * n + q] = s * vkp + c * vkq;
  }
}
