// Vectors are kept as int8: one byte per dimension plus one float, a quarter of float32, so
// 50,000 sections of a 768-dimension model take about 39 MB instead of 154 MB.
//
// Each vector is scaled by its own largest component: q[i] = round(v[i] / max|v| × 127). The
// round trip loses at most half a step per component: |v[i] − q[i]·max|v|/127| ≤ max|v| / 254.
// Cosine similarity is computed against the quantized vector itself, so instead of the scale we
// keep 1 / |q|: cos(query, q) = (query · q) × invNorm for a unit-length query.
export interface QuantizedVector {
  values: Int8Array;
  /** 1 / |values| (0 for a zero vector). */
  invNorm: number;
  /** max|v| / 127: multiply `values` by it to get the vector back. */
  scale: number;
}

/** Bytes one stored vector takes: its int8 values and a float32 (1 / |q|). */
export function bytesPerVector(dimensions: number): number {
  return dimensions + 4;
}

/** `into` (of the vector's length), when given, is written over and returned as the values: for a caller that copies them at once. */
export function quantize(vector: ArrayLike<number>, into?: Int8Array): QuantizedVector {
  let max = 0;
  for (let i = 0; i < vector.length; i++) max = Math.max(max, Math.abs(vector[i]));
  const values = into ?? new Int8Array(vector.length);
  if (into && into.length !== vector.length) throw new Error(`quantize: ${into.length} values for a vector of ${vector.length}.`);
  if (max === 0) {
    values.fill(0);
    return { values, invNorm: 0, scale: 0 };
  }
  const factor = 127 / max;
  let sum = 0;
  for (let i = 0; i < vector.length; i++) {
    const q = Math.round(vector[i] * factor);
    values[i] = q;
    sum += q * q;
  }
  return { values, invNorm: 1 / Math.sqrt(sum), scale: max / 127 };
}

/**
 * 1 / |values[start, end)| exactly as `quantize` made it (0 for zeros), worked out again from the
 * int8 values where they are loaded rather than trusted from a file: the sums are of whole numbers,
 * so they come out the same in any order. Four sums a turn, as the cosine loops.
 */
export function inverseNorm(values: Int8Array, start = 0, end = values.length): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = start;
  for (; i + 3 < end; i += 4) {
    s0 += values[i] * values[i];
    s1 += values[i + 1] * values[i + 1];
    s2 += values[i + 2] * values[i + 2];
    s3 += values[i + 3] * values[i + 3];
  }
  for (; i < end; i++) s0 += values[i] * values[i];
  const sum = s0 + s1 + s2 + s3;
  return sum > 0 ? 1 / Math.sqrt(sum) : 0;
}

export function dequantize(q: QuantizedVector): Float32Array {
  const out = new Float32Array(q.values.length);
  for (let i = 0; i < out.length; i++) out[i] = q.values[i] * q.scale;
  return out;
}

/** The vector scaled to length 1, as float32 (a zero vector stays zero). */
export function unitLength(vector: ArrayLike<number>): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i] * vector[i];
  const inv = sum > 0 ? 1 / Math.sqrt(sum) : 0;
  const out = new Float32Array(vector.length);
  for (let i = 0; i < vector.length; i++) out[i] = vector[i] * inv;
  return out;
}

/**
 * Whether every component is 0: no embedding model's answer for any text (a server misconfigured,
 * a proxy's filler, a text past what the model takes). Its cosine with every vector is 0, so it
 * ranks nothing: stored or searched with, it put notes in the vault's own order as if near a query.
 */
export function isZeroVector(vector: ArrayLike<number>): boolean {
  for (let i = 0; i < vector.length; i++) if (vector[i] !== 0) return false;
  return true;
}

/** The normalised mean of unit vectors: a note's one vector, made from its sections' (level 2). */
export function centroid(vectors: readonly Float32Array[], dimensions: number): Float32Array {
  const sum = new Float32Array(dimensions);
  for (const v of vectors) for (let i = 0; i < dimensions; i++) sum[i] += v[i];
  return unitLength(sum);
}
