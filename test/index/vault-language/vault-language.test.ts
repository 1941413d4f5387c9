// A text in the vault's language: the weighted mean of its words' meanings (rarer and more often
// used words pull harder, unknown words are ignored), notes kept as such vectors, and the notes
// nearest a question, best first, ties by path, filtered and limited.
import { describe, expect, it } from "vitest";
import { quantize } from "../../../src/index/embeddings/quantize";
import { seededRandom } from "../../../src/index/vault-language/top-eigenvectors";
import { keepMeanings, termCounts, TITLE_WEIGHT, VaultLanguage, type NotesWithTerm } from "../../../src/index/vault-language/vault-language";

/** Four words along the axes of a 4-dimension space, and "mixed" between the first two. */
function axes(): VaultLanguage {
  const r = Math.SQRT1_2;
  // prettier-ignore
  const vectors = Float32Array.from([
    1, 0, 0, 0,
    0, 1, 0, 0,
    0, 0, 1, 0,
    0, 0, 0, 1,
    r, r, 0, 0,
  ]);
  return new VaultLanguage({ words: ["north", "east", "south", "west", "mixed"], dimensions: 4, vectors });
}

/** Every word in one note of 100, but "east" in 50. */
const notesWith: NotesWithTerm = (term) => (term === "east" ? 50 : 1);
const NOTES = 100;
const counts = (entries: Record<string, number>) => new Map(Object.entries(entries));

describe("VaultLanguage.textVector", () => {
  it("weighs each known word by (1 + log count) × log(1 + notes / notes with it), as a unit vector", () => {
    const v = axes().textVector(counts({ north: 1, east: 1 }), notesWith, NOTES)!;
    const north = Math.log(1 + 100 / 1);
    const east = Math.log(1 + 100 / 50);
    const norm = Math.hypot(north, east);
    expect(v[0]).toBeCloseTo(north / norm, 6);
    expect(v[1]).toBeCloseTo(east / norm, 6);
    // The rarer word pulls harder.
    expect(v[0]).toBeGreaterThan(v[1]);
    // Used more often, a word pulls harder: three times is 1 + log 3 the weight of once.
    const often = axes().textVector(counts({ north: 1, south: 3 }), () => 1, NOTES)!;
    expect(often[2] / often[0]).toBeCloseTo(1 + Math.log(3), 5);
  });

  it("ignores words without a meaning and counts of zero; null when no word is known", () => {
    const model = axes();
    const known = model.textVector(counts({ north: 2, west: 1 }), notesWith, NOTES)!;
    const withUnknown = model.textVector(counts({ north: 2, west: 1, unheard: 5, east: 0 }), notesWith, NOTES)!;
    expect(Array.from(withUnknown)).toEqual(Array.from(known));
    expect(model.textVector(counts({ unheard: 3 }), notesWith, NOTES)).toBeNull();
    expect(model.textVector(counts({ north: 0 }), notesWith, NOTES)).toBeNull();
    expect(model.textVector(new Map(), notesWith, NOTES)).toBeNull();
  });

  it("treats a word no note holds any more as held by one (no division by zero)", () => {
    const v = axes().textVector(counts({ north: 1, east: 1 }), () => 0, NOTES)!;
    expect(v[0]).toBeCloseTo(Math.SQRT1_2, 6);
    expect(v[1]).toBeCloseTo(Math.SQRT1_2, 6);
  });
});

describe("VaultLanguage notes", () => {
  it("finds the notes nearest a question, nearest first, with their cosine similarity", () => {
    const model = axes();
    model.setNote("north.md", counts({ north: 1 }), notesWith, NOTES);
    model.setNote("mixed.md", counts({ mixed: 1 }), notesWith, NOTES);
    model.setNote("south.md", counts({ south: 1 }), notesWith, NOTES);
    model.setNote("nowhere.md", counts({ unheard: 1 }), notesWith, NOTES);
    expect(model.noteCount).toBe(3);
    expect(model.noteVector("nowhere.md")).toBeUndefined();
    const query = model.textVector(counts({ north: 1 }), notesWith, NOTES)!;
    const near = model.nearest(query, 10);
    expect(near.map((n) => n.path)).toEqual(["north.md", "mixed.md", "south.md"]);
    expect(near[0].similarity).toBeCloseTo(1, 6);
    expect(near[1].similarity).toBeCloseTo(Math.SQRT1_2, 2);
    expect(near[2].similarity).toBeCloseTo(0, 6);
  });

  it("respects the limit and the filter, and forgets a removed note", () => {
    const model = axes();
    for (const word of ["north", "east", "south", "west", "mixed"]) model.setNote(`${word}.md`, counts({ [word]: 1 }), notesWith, NOTES);
    const query = model.textVector(counts({ east: 1 }), notesWith, NOTES)!;
    expect(model.nearest(query, 2).map((n) => n.path)).toEqual(["east.md", "mixed.md"]);
    expect(model.nearest(query, 2, (p) => p !== "east.md").map((n) => n.path)).toEqual(["mixed.md", "north.md"]);
    model.removeNote("mixed.md");
    expect(model.nearest(query, 2).map((n) => n.path)).toEqual(["east.md", "north.md"]);
    expect(model.noteVector("mixed.md")).toBeUndefined();
    expect(Array.from(model.notePaths()).sort()).toEqual(["east.md", "north.md", "south.md", "west.md"]);
  });

  it("drops a note's vector when it is set again with no word that has a meaning", () => {
    const model = axes();
    model.setNote("a.md", counts({ north: 1 }), notesWith, NOTES);
    model.setNote("a.md", counts({ unheard: 1 }), notesWith, NOTES);
    expect(model.noteVector("a.md")).toBeUndefined();
    expect(model.nearest(Float32Array.from([1, 0, 0, 0]), 5)).toEqual([]);
  });

  it("breaks ties by path, whatever order the notes came in and however small the limit", () => {
    const model = axes();
    for (const path of ["z.md", "y.md", "x.md", "w.md", "b.md", "a.md", "c.md"]) model.setNote(path, counts({ north: 1 }), notesWith, NOTES);
    const query = Float32Array.from([1, 0, 0, 0]);
    expect(model.nearest(query, 1).map((n) => n.path)).toEqual(["a.md"]);
    expect(model.nearest(query, 2).map((n) => n.path)).toEqual(["a.md", "b.md"]);
    expect(model.nearest(query, 3).map((n) => n.path)).toEqual(["a.md", "b.md", "c.md"]);
  });

  it("gives, for any limit, the first notes of all of them sorted by similarity then path", () => {
    const random = seededRandom(21);
    const words = Array.from({ length: 6 }, (_, i) => `w${i}`);
    const vectors = Float32Array.from({ length: 6 * 3 }, () => random() * 2 - 1);
    for (let w = 0; w < 6; w++) {
      const norm = Math.hypot(vectors[w * 3], vectors[w * 3 + 1], vectors[w * 3 + 2]);
      for (let j = 0; j < 3; j++) vectors[w * 3 + j] /= norm;
    }
    const model = new VaultLanguage({ words, dimensions: 3, vectors });
    // Many notes of one word each: lots of exact ties.
    for (let n = 0; n < 60; n++) model.setNote(`n${String(Math.floor(random() * 1000)).padStart(3, "0")}-${n}.md`, counts({ [words[n % 6]]: 1 }), () => 1, 60);
    const query = Float32Array.from([0.6, 0.8, 0]);
    const all = model.nearest(query, 1000);
    expect(all).toHaveLength(60);
    const sorted = [...all].sort((a, b) => b.similarity - a.similarity || (a.path < b.path ? -1 : 1));
    expect(all).toEqual(sorted);
    for (const limit of [0, 1, 2, 3, 5, 7, 10, 13, 29, 59]) expect(model.nearest(query, limit)).toEqual(sorted.slice(0, limit));
  });

  it("restores a saved note vector only when it has the model's dimensions", () => {
    const model = axes();
    model.restoreNote("a.md", quantize([0, 0, 1, 0]));
    model.restoreNote("b.md", quantize([0, 0, 1]));
    expect(model.noteVector("a.md")).toBeDefined();
    expect(model.noteVector("b.md")).toBeUndefined();
    expect(model.nearest(Float32Array.from([0, 0, 1, 0]), 5).map((n) => n.path)).toEqual(["a.md"]);
  });

  it("finds the words nearest a word in meaning, nearest first, ties by word, never the word itself", () => {
    const model = axes();
    const [mixed, ...others] = model.nearWords("north", 5, 0.5);
    expect(others).toEqual([]);
    expect(mixed.term).toBe("mixed");
    expect(mixed.similarity).toBeCloseTo(Math.SQRT1_2, 6);
    const all = model.nearWords("north", 10, -1);
    expect(all.map((n) => n.term)).toEqual(["mixed", "east", "south", "west"]);
    expect(model.nearWords("north", 2, -1).map((n) => n.term)).toEqual(["mixed", "east"]);
    expect(model.nearWords("mixed", 10, 0.5).map((n) => n.term)).toEqual(["east", "north"]);
    expect(model.nearWords("unheard", 10, -1)).toEqual([]);
    expect(model.nearWords("north", 0, -1)).toEqual([]);
  });

  it("keeps learned meanings as int8: each word within int8's error of what was learned, still of length 1", () => {
    const random = seededRandom(9);
    const dims = 16;
    const words = Array.from({ length: 50 }, (_, i) => `w${i}`);
    const vectors = new Float32Array(words.length * dims);
    for (let w = 0; w < words.length; w++) {
      const row = Array.from({ length: dims }, () => random() - 0.5);
      const norm = Math.hypot(...row);
      row.forEach((x, j) => (vectors[w * dims + j] = x / norm));
    }
    const kept = new VaultLanguage({ words, dimensions: dims, vectors });
    const back = kept.meanings().vectors;
    let exact = 0;
    for (let w = 0; w < words.length; w++) {
      const learned = vectors.subarray(w * dims, (w + 1) * dims);
      const row = back.subarray(w * dims, (w + 1) * dims);
      expect(Math.hypot(...row)).toBeCloseTo(1, 5);
      const max = Math.max(...learned.map(Math.abs));
      for (let j = 0; j < dims; j++) expect(Math.abs(row[j] - learned[j])).toBeLessThan((2 * max) / 127);
      if (row.every((x, j) => x === learned[j])) exact++;
    }
    // Kept, not the learned floats themselves.
    expect(exact).toBe(0);
    // Its int8 rows, as saved, are what a lane built from them keeps.
    const again = new VaultLanguage(kept.kept());
    expect(Array.from(again.meanings().vectors)).toEqual(Array.from(back));
    expect(again.meaningsId()).toBe(kept.meaningsId());
  });

  it("keeps learned meanings a few rows at a time, pausing when the slice is over, as the constructor keeps them at once", async () => {
    const random = seededRandom(11);
    const dims = 8;
    const words = Array.from({ length: 600 }, (_, i) => `w${i}`);
    const vectors = Float32Array.from({ length: words.length * dims }, () => random() - 0.5);
    let pauses = 0;
    const kept = await keepMeanings({ words, dimensions: dims, vectors }, { over: () => true, pause: () => Promise.resolve(void pauses++), restart: () => undefined });
    // Rows 0, 256 and 512 look at the slice.
    expect(pauses).toBe(3);
    expect(kept.words).toEqual(words);
    expect(Array.from(kept.values)).toEqual(Array.from(new VaultLanguage({ words, dimensions: dims, vectors }).kept().values));
    expect(new Set(kept.values).size).toBeGreaterThan(100);
  });

  it("hands back its meanings as kept (axes survive int8 exactly)", () => {
    const model = axes();
    const meanings = model.meanings();
    expect(meanings.words).toEqual(["north", "east", "south", "west", "mixed"]);
    expect(meanings.dimensions).toBe(4);
    expect(Array.from(meanings.vectors.subarray(4, 8))).toEqual([0, 1, 0, 0]);
  });
});

describe("termCounts", () => {
  it("counts every passage's words and a title's words TITLE_WEIGHT times each", () => {
    expect(TITLE_WEIGHT).toBe(3);
    const c = termCounts(
      [
        ["disk", "quota", "disk"],
        ["quota", "limit"],
      ],
      ["disk", "usage"],
    );
    expect(Object.fromEntries(c)).toEqual({ disk: 2 + TITLE_WEIGHT, quota: 2, limit: 1, usage: TITLE_WEIGHT });
    expect(termCounts([], [])).toEqual(new Map());
  });
});
