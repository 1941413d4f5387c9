// The learned meanings as one cache part: a round trip keeps the words, the dimensions and the
// vectors as the lane keeps them (int8), and so the notes nearest a question; a part of another format,
// version or fingerprint, or not the shape it claims (a hole for a word, a list of words longer than
// its vectors), is no model (null), never an error, and found so without walking a list's length.
import { describe, expect, it } from "vitest";
import { seededRandom } from "../../../src/index/vault-language/top-eigenvectors";
import { VaultLanguage } from "../../../src/index/vault-language/vault-language";
import { decodeLanguage, encodeLanguage, LANGUAGE_PART, readLanguagePart, type LanguagePart } from "../../../src/index/vault-language/vault-language-file";
import { listWalkedAtMost, withHole } from "../hole-lists";

const FINGERPRINT = JSON.stringify({ stemming: true, excluded: [] });
const WORDS = Array.from({ length: 40 }, (_, i) => `word${i}`);
const DIMENSIONS = 16;

/** A model of 40 seeded unit vectors of 16 dimensions. */
function model(): VaultLanguage {
  const random = seededRandom(17);
  const vectors = new Float32Array(WORDS.length * DIMENSIONS);
  for (let w = 0; w < WORDS.length; w++) {
    let norm = 0;
    for (let j = 0; j < DIMENSIONS; j++) norm += (vectors[w * DIMENSIONS + j] = random() * 2 - 1) ** 2;
    for (let j = 0; j < DIMENSIONS; j++) vectors[w * DIMENSIONS + j] /= Math.sqrt(norm);
  }
  return new VaultLanguage({ words: WORDS, dimensions: DIMENSIONS, vectors });
}

/** The same twelve notes of three words each in a model. */
function withNotes(m: VaultLanguage): VaultLanguage {
  for (let n = 0; n < 12; n++) m.setNote(`note${n}.md`, new Map([WORDS[n], WORDS[(n * 7) % 40], WORDS[(n * 13 + 5) % 40]].map((w) => [w, 1])), () => 1, 12);
  return m;
}

/** The part as the cache hands it back (IndexedDB and the CLI's v8 files keep typed arrays). */
const saved = (): LanguagePart => structuredClone(encodeLanguage(model(), FINGERPRINT));

describe("encodeLanguage and decodeLanguage", () => {
  it("names its part", () => {
    expect(LANGUAGE_PART).toBe("vault-language");
  });

  // Notes dated after it changed since the meanings were learned: enough of them, and they are learned again.
  it("keeps when the meanings were learned; a part without that date (an older one) or with one that is no number reads as none", () => {
    const learnedAt = (part: unknown) => {
      const read = readLanguagePart(part, FINGERPRINT);
      return read?.kind === "model" ? read.learnedAt : "no model";
    };
    expect(learnedAt(structuredClone(encodeLanguage(model(), FINGERPRINT, 1_750_000_000_000)))).toBe(1_750_000_000_000);
    expect(learnedAt(saved())).toBeNull();
    expect(learnedAt({ ...saved(), learnedAt: "yesterday" })).toBeNull();
    expect(learnedAt({ ...saved(), learnedAt: Number.NaN })).toBeNull();
  });

  it("keep the words and dimensions, and every vector as the lane keeps it (int8), still of length 1", () => {
    // (vault-language.test.ts pins the int8 rows within int8's error of the learned vectors.)
    const original = model().meanings();
    const part = saved();
    expect(part.values).toBeInstanceOf(Int8Array);
    expect(part.values.length).toBe(WORDS.length * DIMENSIONS);
    const back = (decodeLanguage(part, FINGERPRINT))!.meanings();
    expect(back.words).toEqual(WORDS);
    expect(back.dimensions).toBe(DIMENSIONS);
    for (let w = 0; w < WORDS.length; w++) {
      const a = original.vectors.subarray(w * DIMENSIONS, (w + 1) * DIMENSIONS);
      const b = back.vectors.subarray(w * DIMENSIONS, (w + 1) * DIMENSIONS);
      expect(Array.from(b)).toEqual(Array.from(a));
      expect(Math.hypot(...b)).toBeCloseTo(1, 5);
    }
  });

  it("give the same nearest notes for a question, as near, after the round trip", () => {
    const before = withNotes(model());
    const after = withNotes((decodeLanguage(saved(), FINGERPRINT))!);
    for (const words of [["word3"], ["word10", "word22"], ["word39", "word1", "word17"]]) {
      const counts = new Map(words.map((w) => [w, 1]));
      const ask = (m: VaultLanguage) => m.nearest(m.textVector(counts, () => 1, 12)!, 12);
      const was = ask(before);
      const is = ask(after);
      expect(is.map((n) => n.path)).toEqual(was.map((n) => n.path));
      is.forEach((n, i) => expect(n.similarity).toBe(was[i].similarity));
    }
  });

  it("keep a word whose vector is zero as zeros, not as NaN", () => {
    const vectors = new Float32Array(3 * 2);
    vectors.set([1, 0, 0, 0, 0, 1]);
    const part = structuredClone(encodeLanguage(new VaultLanguage({ words: ["a", "b", "c"], dimensions: 2, vectors }), FINGERPRINT));
    expect(Array.from((decodeLanguage(part, FINGERPRINT))!.meanings().vectors)).toEqual([1, 0, 0, 0, 0, 1]);
  });

  const broken: [string, (part: LanguagePart) => unknown][] = [
    ["of another format", (p) => ({ ...p, format: "vault-research-vectors" })],
    ["of another version", (p) => ({ ...p, version: 2 })],
    ["without a fingerprint", (p) => ({ ...p, fingerprint: undefined })],
    ["with a word twice", (p) => ({ ...p, words: [...p.words.slice(0, -1), p.words[0]] })],
    ["with an empty word", (p) => ({ ...p, words: ["", ...p.words.slice(1)] })],
    ["with a word that is not a string", (p) => ({ ...p, words: [7, ...p.words.slice(1)] })],
    ["with words that are not a list", (p) => ({ ...p, words: "word0 word1" })],
    ["with a word too few for its values", (p) => ({ ...p, words: p.words.slice(1) })],
    ["with values too few", (p) => ({ ...p, values: p.values.slice(1) })],
    ["with a scale too few", (p) => ({ ...p, scales: p.scales.slice(1) })],
    ["with dimensions of 0", (p) => ({ ...p, dimensions: 0 })],
    ["with dimensions not whole", (p) => ({ ...p, dimensions: 15.5 })],
    ["with dimensions as text", (p) => ({ ...p, dimensions: "16" })],
    ["with more dimensions than the values hold", (p) => ({ ...p, dimensions: 17 })],
    ["with a NaN scale", (p) => ({ ...p, scales: Float32Array.from(p.scales, (s, i) => (i === 3 ? NaN : s)) })],
    ["with an infinite scale", (p) => ({ ...p, scales: Float32Array.from(p.scales, (s, i) => (i === 3 ? Infinity : s)) })],
    ["with a negative scale", (p) => ({ ...p, scales: Float32Array.from(p.scales, (s, i) => (i === 3 ? -s : s)) })],
    ["with values as a plain list", (p) => ({ ...p, values: Array.from(p.values) })],
    ["with values of another typed array", (p) => ({ ...p, values: Uint8Array.from(p.values) })],
    ["with scales as a plain list", (p) => ({ ...p, scales: Array.from(p.scales) })],
    ["with scales as float64", (p) => ({ ...p, scales: Float64Array.from(p.scales) })],
    ["turned into JSON and back", (p) => JSON.parse(JSON.stringify(p)) as unknown],
    ["null", () => null],
    ["a string", () => "vault-research-vault-language"],
    ["a number", () => 1],
    ["a list", (p) => [p]],
    // `every` skips a hole, and the model's constructor threw on the word that was none.
    ["with a hole for a word", (p) => ({ ...p, words: withHole(p.words, 3) })],
    ["with a hole for its one word", (p) => ({ ...p, words: withHole(["word0"], 0), dimensions: 1, values: new Int8Array(1), scales: new Float32Array(1) })],
  ];

  it.each(broken)("give no model for a part %s", (_, breakIt) => {
    const part = saved();
    expect(decodeLanguage(part, FINGERPRINT)).not.toBeNull();
    expect(decodeLanguage(breakIt(part), FINGERPRINT)).toBeNull();
  });

  it("give no model, without walking them, for words said to be four billion (v8 gives such a list back from a few bytes)", () => {
    const words = listWalkedAtMost(2 ** 32 - 1, 100);
    expect(decodeLanguage({ ...saved(), words }, FINGERPRINT)).toBeNull();
  });

  it("give no model for a part saved under other index settings", () => {
    expect(decodeLanguage(saved(), JSON.stringify({ stemming: false, excluded: [] }))).toBeNull();
    expect(decodeLanguage(undefined, FINGERPRINT)).toBeNull();
  });
});
