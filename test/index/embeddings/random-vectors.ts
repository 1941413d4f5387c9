// Seeded vectors for tests of the vector lane: the same on every machine.
import { unitLength } from "../../../src/index/embeddings/quantize";

/** A seeded, Gaussian-ish unit vector: what real embedding models give, roughly. */
export function randomUnitVector(dimensions: number, seed: number): Float32Array {
  let state = seed >>> 0 || 1;
  const next = () => ((state = Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0) / 2 ** 32;
  const v = new Float32Array(dimensions);
  for (let i = 0; i < dimensions; i++) v[i] = Math.sqrt(-2 * Math.log(next() || 1e-9)) * Math.cos(2 * Math.PI * next());
  return unitLength(v);
}
