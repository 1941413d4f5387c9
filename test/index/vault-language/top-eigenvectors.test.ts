// The eigensolver under the vault-language lane: Jacobi on small dense matrices of known spectrum,
// the randomized top eigenpairs of a sparse matrix with a planted spectrum, the seeded generator
// that makes it deterministic, and the slices it yields through without changing its answer.
import { describe, expect, it } from "vitest";
import { jacobiEigen, seededRandom, topEigenpairs, type SparseSymmetric } from "../../../src/index/vault-language/top-eigenvectors";
import { NO_SLICES, type WorkSlice } from "../../../src/index/work-slice";

/** A · v for a dense row-major n × n matrix. */
function times(a: ArrayLike<number>, n: number, v: ArrayLike<number>): number[] {
  return Array.from({ length: n }, (_, i) => {
    let sum = 0;
    for (let j = 0; j < n; j++) sum += a[i * n + j] * v[j];
    return sum;
  });
}

/** Column `j` of a row-major matrix with `width` columns and `rows` rows. */
function column(m: ArrayLike<number>, rows: number, width: number, j: number): number[] {
  return Array.from({ length: rows }, (_, r) => m[r * width + j]);
}

function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
}

/** Checks every column of `vectors` is a unit eigenvector of `a` for its value, within `tolerance`. */
function expectEigenpairs(a: ArrayLike<number>, n: number, values: ArrayLike<number>, vectors: ArrayLike<number>, tolerance: number): void {
  for (let j = 0; j < n; j++) {
    const v = column(vectors, n, n, j);
    expect(Math.abs(dot(v, v) - 1)).toBeLessThan(tolerance);
    const av = times(a, n, v);
    for (let i = 0; i < n; i++) expect(Math.abs(av[i] - values[j] * v[i])).toBeLessThan(tolerance);
  }
}

/** A slice that is always over, and counts the pauses it was asked for. */
function countingSlice(): WorkSlice & { pauses: number } {
  const slice = { pauses: 0, over: () => true, pause: async () => void slice.pauses++, restart: () => undefined };
  return slice;
}

/**
 * A block-diagonal matrix of `blocks` blocks of `blockSize`, block i being λ_i u_i u_iᵀ for a seeded
 * unit u_i: sparse, with exactly the eigenvalues `lambdas` (and zeros), eigenvectors known.
 */
function plantedSpectrum(lambdas: number[], blockSize: number, seed: number): { m: SparseSymmetric; vectors: Float64Array[] } {
  const random = seededRandom(seed);
  const size = lambdas.length * blockSize;
  const vectors: Float64Array[] = [];
  const rowStart = new Uint32Array(size + 1);
  const cols: number[] = [];
  const vals: number[] = [];
  lambdas.forEach((lambda, b) => {
    const u = new Float64Array(size);
    let norm = 0;
    for (let i = 0; i < blockSize; i++) norm += (u[b * blockSize + i] = random() * 2 - 1) ** 2;
    for (let i = 0; i < blockSize; i++) u[b * blockSize + i] /= Math.sqrt(norm);
    vectors.push(u);
    for (let i = 0; i < blockSize; i++) {
      const row = b * blockSize + i;
      for (let j = 0; j < blockSize; j++) {
        cols.push(b * blockSize + j);
        vals.push(lambda * u[row] * u[b * blockSize + j]);
      }
      rowStart[row + 1] = cols.length;
    }
  });
  return { m: { size, rowStart, cols: Uint32Array.from(cols), vals: Float32Array.from(vals) }, vectors };
}

describe("seededRandom", () => {
  it("gives the same numbers for the same seed, other numbers for another, all in [0, 1)", () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    const c = seededRandom(43);
    const first = Array.from({ length: 1000 }, () => a());
    expect(Array.from({ length: 1000 }, () => b())).toEqual(first);
    expect(Array.from({ length: 1000 }, () => c())).not.toEqual(first);
    for (const x of first) {
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThan(1);
    }
    // Spread over the interval, not stuck in a corner of it.
    const mean = first.reduce((s, x) => s + x, 0) / first.length;
    expect(mean).toBeGreaterThan(0.45);
    expect(mean).toBeLessThan(0.55);
    expect(new Set(first).size).toBe(first.length);
  });
});

describe("jacobiEigen", () => {
  it("leaves a diagonal matrix's values and the unit vectors as they are", async () => {
    const a = Float64Array.from([3, 0, 0, 0, -1, 0, 0, 0, 7]);
    const { values, vectors } = await jacobiEigen(a, 3, NO_SLICES);
    expect(Array.from(values)).toEqual([3, -1, 7]);
    expect(Array.from(vectors)).toEqual([1, 0, 0, 0, 1, 0, 0, 0, 1]);
  });

  it("finds the known spectrum of a 2 × 2 and a 3 × 3 matrix, each A·v = λ·v within 1e-9", async () => {
    // [[2, 1], [1, 2]]: eigenvalues 1 and 3, vectors (1, −1)/√2 and (1, 1)/√2.
    const two = Float64Array.from([2, 1, 1, 2]);
    const small = await jacobiEigen(two, 2, NO_SLICES);
    expect(Array.from(small.values).sort()).toEqual([expect.closeTo(1, 9), expect.closeTo(3, 9)]);
    expectEigenpairs(two, 2, small.values, small.vectors, 1e-9);
    // [[2, −1, 0], [−1, 2, −1], [0, −1, 2]]: eigenvalues 2 − √2, 2, 2 + √2.
    const three = Float64Array.from([2, -1, 0, -1, 2, -1, 0, -1, 2]);
    const { values, vectors } = await jacobiEigen(three, 3, NO_SLICES);
    const sorted = Array.from(values).sort((x, y) => x - y);
    [2 - Math.SQRT2, 2, 2 + Math.SQRT2].forEach((lambda, i) => expect(Math.abs(sorted[i] - lambda)).toBeLessThan(1e-9));
    expectEigenpairs(three, 3, values, vectors, 1e-9);
    // The eigenvector of 2 is (1, 0, −1)/√2, up to sign.
    const of2 = column(vectors, 3, 3, Array.from(values).findIndex((v) => Math.abs(v - 2) < 1e-9));
    expect(Math.abs(dot(of2, [Math.SQRT1_2, 0, -Math.SQRT1_2]))).toBeCloseTo(1, 9);
  });

  it("diagonalises a random symmetric 12 × 12 matrix into orthonormal eigenvectors", async () => {
    const n = 12;
    const random = seededRandom(5);
    const a = new Float64Array(n * n);
    for (let i = 0; i < n; i++) for (let j = i; j < n; j++) a[i * n + j] = a[j * n + i] = random() * 10 - 5;
    const { values, vectors } = await jacobiEigen(a, n, NO_SLICES);
    expectEigenpairs(a, n, values, vectors, 1e-9);
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) expect(Math.abs(dot(column(vectors, n, n, p), column(vectors, n, n, q)))).toBeLessThan(1e-9);
    // In slices, the same answer.
    const slice = countingSlice();
    const sliced = await jacobiEigen(a, n, slice);
    expect(slice.pauses).toBeGreaterThan(0);
    expect(Array.from(sliced.vectors)).toEqual(Array.from(vectors));
    // The trace is the sum of the eigenvalues.
    let trace = 0;
    for (let i = 0; i < n; i++) trace += a[i * n + i];
    expect(values.reduce((s, v) => s + v, 0)).toBeCloseTo(trace, 9);
  });
});

describe("topEigenpairs", () => {
  // Top four well apart from a tail of twenty small ones: the randomized solver must find the four.
  const lambdas = [100, 80, 60, 40, ...Array.from({ length: 20 }, (_, i) => 1 - i * 0.04)];
  const planted = plantedSpectrum(lambdas, 8, 11);

  it("recovers the largest planted eigenvalues within 1e-6 and their vectors up to sign", async () => {
    const eigen = await topEigenpairs(planted.m, 4, NO_SLICES, { oversample: 10, powerSteps: 2 });
    expect(eigen.count).toBe(4);
    expect(eigen.vectors.length).toBe(planted.m.size * 4);
    for (let j = 0; j < 4; j++) {
      expect(Math.abs(eigen.values[j] - lambdas[j]) / lambdas[j]).toBeLessThan(1e-6);
      const found = column(eigen.vectors, planted.m.size, 4, j);
      expect(Math.abs(dot(found, planted.vectors[j]))).toBeGreaterThan(1 - 1e-6);
    }
  });

  it("orders the pairs by eigenvalue, largest first, and never gives more than the matrix has", async () => {
    const eigen = await topEigenpairs(planted.m, 6, NO_SLICES, { oversample: 10, powerSteps: 2 });
    const values = Array.from(eigen.values);
    expect(values).toEqual([...values].sort((a, b) => b - a));
    const tiny = plantedSpectrum([5, 3], 2, 3);
    const all = await topEigenpairs(tiny.m, 10, NO_SLICES, { oversample: 10, powerSteps: 1 });
    expect(all.count).toBe(tiny.m.size);
    // The matrix is stored as float32: its eigenvalues are the planted ones to float32's precision.
    expect(Math.abs(all.values[0] - 5) / 5).toBeLessThan(1e-6);
    expect(Math.abs(all.values[1] - 3) / 3).toBeLessThan(1e-6);
  });

  it("gives identical output for the same seed, and other vectors (the same values) for another", async () => {
    const search = { oversample: 6, powerSteps: 1 };
    const a = await topEigenpairs(planted.m, 4, NO_SLICES, search, 3);
    const b = await topEigenpairs(planted.m, 4, NO_SLICES, search, 3);
    expect(Array.from(b.vectors)).toEqual(Array.from(a.vectors));
    expect(Array.from(b.values)).toEqual(Array.from(a.values));
    const c = await topEigenpairs(planted.m, 4, NO_SLICES, search, 4);
    expect(Array.from(c.vectors)).not.toEqual(Array.from(a.vectors));
    for (let j = 0; j < 4; j++) expect(c.values[j]).toBeCloseTo(a.values[j], 4);
  });

  it("pauses whenever its slice is over, and answers exactly as without slices", async () => {
    const slice = countingSlice();
    const sliced = await topEigenpairs(planted.m, 4, slice, { oversample: 10, powerSteps: 2 });
    const whole = await topEigenpairs(planted.m, 4, NO_SLICES, { oversample: 10, powerSteps: 2 });
    expect(slice.pauses).toBeGreaterThan(0);
    expect(Array.from(sliced.vectors)).toEqual(Array.from(whole.vectors));
    expect(Array.from(sliced.values)).toEqual(Array.from(whole.values));
  });

  it("with a seed per row, a row keeps its start when the rows change places: the same subspace, permuted", async () => {
    // A flat spectrum and one power step: the answer is far from exact, so it depends on where the
    // search starts. Row i of the first matrix is row order[i] of the second.
    const { m, size } = randomSparse(60, 6, 5);
    const order = Array.from({ length: size }, (_, i) => i).sort((a, b) => ((a * 37) % size) - ((b * 37) % size));
    const moved = permuted(m, order);
    const seeds = Array.from({ length: size }, (_, i) => 1000 + i * 7919);
    const movedSeeds = order.map((row) => seeds[row]);
    const search = { oversample: 2, powerSteps: 1 };
    const projector = (e: { vectors: Float64Array; count: number }, i: number, j: number) => {
      let sum = 0;
      for (let c = 0; c < e.count; c++) sum += e.vectors[i * e.count + c] * e.vectors[j * e.count + c];
      return sum;
    };
    const largestGap = (a: { vectors: Float64Array; count: number }, b: { vectors: Float64Array; count: number }) => {
      let gap = 0;
      for (let i = 0; i < size; i++) for (let j = 0; j < size; j++) gap = Math.max(gap, Math.abs(projector(b, i, j) - projector(a, order[i], order[j])));
      return gap;
    };
    const own = await topEigenpairs(m, 5, NO_SLICES, search, 1, seeds);
    const ownMoved = await topEigenpairs(moved, 5, NO_SLICES, search, 1, movedSeeds);
    expect(largestGap(own, ownMoved)).toBeLessThan(1e-9);
    // One stream of numbers for all rows gives a row another start once it moves: another answer.
    const shared = await topEigenpairs(m, 5, NO_SLICES, search, 1);
    const sharedMoved = await topEigenpairs(moved, 5, NO_SLICES, search, 1);
    expect(largestGap(shared, sharedMoved)).toBeGreaterThan(1e-3);
  });
});

/** A random sparse symmetric `size` × `size` matrix, about `perRow` entries a row, all in (0, 1). */
function randomSparse(size: number, perRow: number, seed: number): { m: SparseSymmetric; size: number } {
  const random = seededRandom(seed);
  const dense = new Float64Array(size * size);
  for (let i = 0; i < size; i++) {
    for (let k = 0; k < perRow / 2; k++) {
      const j = Math.floor(random() * size);
      dense[i * size + j] = dense[j * size + i] = random();
    }
  }
  return { m: fromDense(dense, size), size };
}

/** The matrix whose row and column i are `m`'s order[i]. */
function permuted(m: SparseSymmetric, order: number[]): SparseSymmetric {
  const size = m.size;
  const dense = new Float64Array(size * size);
  for (let i = 0; i < size; i++) {
    for (let at = m.rowStart[order[i]]; at < m.rowStart[order[i] + 1]; at++) dense[i * size + order.indexOf(m.cols[at])] = m.vals[at];
  }
  return fromDense(dense, size);
}

function fromDense(dense: Float64Array, size: number): SparseSymmetric {
  const rowStart = new Uint32Array(size + 1);
  const cols: number[] = [];
  const vals: number[] = [];
  for (let i = 0; i < size; i++) {
    for (let j = 0; j < size; j++) {
      if (dense[i * size + j] === 0) continue;
      cols.push(j);
      vals.push(dense[i * size + j]);
    }
    rowStart[i + 1] = cols.length;
  }
  return { size, rowStart, cols: Uint32Array.from(cols), vals: Float32Array.from(vals) };
}
