// The notes' vectors in one block: the nearest notes it finds, passing notes over by their bound,
// are exactly those a plain look at every note finds (same paths, order and similarities, ties by
// path, with the filter), through growth, removal and rows used again; a vector comes back as set.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { quantize } from "../../../src/index/embeddings/quantize";
import { NoteVectors } from "../../../src/index/vault-language/note-vectors";
import { seededRandom } from "../../../src/index/vault-language/top-eigenvectors";
import type { NearNote } from "../../../src/index/vault-language/vault-language";

/** Every note's cosine with the query as the int8 vector holds it, sorted nearest first, ties by path. */
function plainNearest(notes: Map<string, Float32Array>, query: Float32Array, limit: number, keep: (path: string) => boolean): NearNote[] {
  const all: NearNote[] = [];
  for (const [path, v] of notes) {
    const q = quantize(v);
    let dot = 0;
    for (let j = 0; j < q.values.length; j++) dot += query[j] * q.values[j];
    if (keep(path)) all.push({ path, similarity: dot * q.invNorm });
  }
  return all.sort((a, b) => b.similarity - a.similarity || (a.path < b.path ? -1 : 1)).slice(0, limit);
}

/** A vector whose later dimensions are weaker, as eigenvectors' are; `repeat` of them are copies. */
function vectors(count: number, dims: number, seed: number): Float32Array[] {
  const random = seededRandom(seed);
  const out: Float32Array[] = [];
  for (let i = 0; i < count; i++) {
    if (i > 0 && random() < 0.1) {
      out.push(out[Math.floor(random() * out.length)]);
      continue;
    }
    out.push(Float32Array.from({ length: dims }, (_, j) => (random() - 0.5) / Math.sqrt(1 + j / 3)));
  }
  return out;
}

function unit(v: Float32Array): Float32Array {
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

describe("NoteVectors.nearest", () => {
  it("finds exactly what a look at every note finds, for any vectors, limit and filter", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 400 }), fc.constantFrom(4, 16, 37, 128), fc.integer({ min: 1, max: 60 }), fc.integer(), fc.boolean(), (count, dims, limit, seed, filtered) => {
        const store = new NoteVectors(dims, 1);
        const notes = new Map<string, Float32Array>();
        vectors(count, dims, seed).forEach((v, i) => {
          const path = `n${(i * 7919) % 1000}.md`;
          notes.set(path, v);
          store.set(path, quantize(v));
        });
        const query = unit(vectors(1, dims, seed + 1)[0]);
        const keep = filtered ? (p: string) => !p.endsWith("3.md") : () => true;
        expect(store.nearest(query, limit, keep)).toEqual(plainNearest(notes, query, limit, keep));
      }),
      { numRuns: 60 },
    );
  });

  it("stays exact when notes are removed, set again and their rows used again", () => {
    const dims = 64;
    const store = new NoteVectors(dims, 2);
    const notes = new Map<string, Float32Array>();
    const random = seededRandom(11);
    const pool = vectors(300, dims, 5);
    for (let round = 0; round < 900; round++) {
      const path = `p${Math.floor(random() * 200)}.md`;
      if (random() < 0.3) {
        notes.delete(path);
        store.delete(path);
      } else {
        const v = pool[Math.floor(random() * pool.length)];
        notes.set(path, v);
        store.set(path, quantize(v));
      }
    }
    expect(store.size).toBe(notes.size);
    expect(Array.from(store.paths()).sort()).toEqual(Array.from(notes.keys()).sort());
    for (let q = 0; q < 10; q++) {
      const query = unit(vectors(1, dims, 100 + q)[0]);
      expect(store.nearest(query, 25)).toEqual(plainNearest(notes, query, 25, () => true));
    }
  });

  it("breaks a tie at the floor by path, and returns nothing for a limit of 0", () => {
    // Nothing after the first dimensions: a note's bound is its similarity exactly.
    const shape = Float32Array.from({ length: 32 }, (_, j) => (j < 8 ? 1 / (j + 1) : 0));
    const store = new NoteVectors(32, 1);
    for (const path of ["d.md", "b.md", "e.md", "a.md", "c.md"]) store.set(path, quantize(shape));
    const query = unit(shape);
    expect(store.nearest(query, 2).map((n) => n.path)).toEqual(["a.md", "b.md"]);
    expect(store.nearest(query, 0)).toEqual([]);
  });
});

describe("NoteVectors storage", () => {
  it("gives back a copy of the vector as set, and nothing for a note it does not hold", () => {
    const store = new NoteVectors(4);
    const set = quantize([0.5, -0.25, 0, 1]);
    store.set("a.md", set);
    const got = store.get("a.md")!;
    expect(got).toEqual(set);
    got.values[0] = 0;
    expect(store.get("a.md")!.values[0]).toBe(set.values[0]);
    expect(store.get("b.md")).toBeUndefined();
    expect(store.has("a.md")).toBe(true);
    store.delete("a.md");
    store.delete("a.md");
    expect(store.has("a.md")).toBe(false);
    expect(store.size).toBe(0);
  });

  it("writes a vector as a saved part keeps it, at the row asked, and nothing for a note it does not hold", () => {
    const store = new NoteVectors(4);
    const set = quantize([0.5, -0.25, 0, 1]);
    store.set("a.md", set);
    const values = new Int8Array(12);
    const norms = new Float32Array(6);
    expect(store.writeInto("a.md", values, norms, 1)).toBe(true);
    expect(Array.from(values)).toEqual([0, 0, 0, 0, ...set.values, 0, 0, 0, 0]);
    expect(Array.from(norms)).toEqual([0, 0, Math.fround(set.invNorm), Math.fround(set.scale), 0, 0]);
    expect(store.writeInto("b.md", values, norms, 2)).toBe(false);
    expect(Array.from(values.subarray(8))).toEqual([0, 0, 0, 0]);
    expect(Array.from(norms.subarray(4))).toEqual([0, 0]);
  });

  it("keeps every vector and finds the same nearest notes when room was reserved first, before or after some were set", () => {
    const all = vectors(300, 16, 5);
    const grown = new NoteVectors(16);
    const reserved = new NoteVectors(16);
    all.slice(0, 100).forEach((v, i) => reserved.set(`n${i}.md`, quantize(v)));
    reserved.reserve(300);
    reserved.reserve(10);
    all.forEach((v, i) => {
      grown.set(`n${i}.md`, quantize(v));
      reserved.set(`n${i}.md`, quantize(v));
    });
    expect(reserved.size).toBe(300);
    for (let i = 0; i < 300; i += 37) expect(reserved.get(`n${i}.md`)).toEqual(grown.get(`n${i}.md`));
    const query = all[7];
    expect(reserved.nearest(query, 10)).toEqual(grown.nearest(query, 10));
  });

  it("refuses a vector of other dimensions", () => {
    expect(() => new NoteVectors(4).set("a.md", quantize([1, 0, 0]))).toThrow(/3 dimensions in a store of 4/);
  });
});
