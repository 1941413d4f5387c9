// Word meanings learned from passages: two words that never meet but keep the same company come
// out near each other, a word of other company does not; rare words, stop words and numbers get no
// vector; every vector has length 1; too few words to learn from is no model.
import { describe, expect, it } from "vitest";
import { isTopicTerm } from "../../../src/index/stopwords";
import { seededRandom } from "../../../src/index/vault-language/top-eigenvectors";
import { learnWordMeanings, passageBook, type WordMeaningOptions, type WordMeanings } from "../../../src/index/vault-language/word-meanings";
import { NO_SLICES, type WorkSlice } from "../../../src/index/work-slice";

const OPTIONS: WordMeaningOptions = { dimensions: 8, minPassages: 3, maxWords: 1000, smoothing: 0.75, oversample: 10, powerSteps: 2 };

/** Six topics of eight context words each: "t0w0" … "t5w7". */
const TOPICS = Array.from({ length: 6 }, (_, t) => Array.from({ length: 8 }, (_, w) => `t${t}w${w}`));

/**
 * 600 passages. Topic 0's hold "alpha" (10) or "beta" (90), never both; topic 1's hold "gamma",
 * the other topics' their own head word; each passage has four of its topic's context words, and
 * every one has "the" and "2024" (a stop word and a number).
 */
function corpus(): string[][] {
  const random = seededRandom(9);
  const passages: string[][] = [];
  for (let i = 0; i < 600; i++) {
    const topic = i % TOPICS.length;
    const head = topic === 0 ? (i % 60 === 0 ? "alpha" : "beta") : topic === 1 ? "gamma" : `head${topic}`;
    const context = [...TOPICS[topic]].sort(() => random() - 0.5).slice(0, 4);
    passages.push([head, ...context, "the", "2024"]);
  }
  // A word in two passages only: chance company.
  passages[1].push("rarely");
  passages[7].push("rarely");
  return passages;
}

function vectorOf(meanings: WordMeanings, word: string): Float32Array {
  const row = meanings.words.indexOf(word);
  expect(row, `${word} has a vector`).toBeGreaterThanOrEqual(0);
  return meanings.vectors.subarray(row * meanings.dimensions, (row + 1) * meanings.dimensions);
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i] * b[i];
  return dot;
}

describe("learnWordMeanings", () => {
  it("learns the same meanings from the same seed, and other vectors of the same company from another", async () => {
    const passages = corpus();
    const one = (await learnWordMeanings(passages, isTopicTerm, NO_SLICES, OPTIONS))!;
    const again = (await learnWordMeanings(passages, isTopicTerm, NO_SLICES, { ...OPTIONS, seed: 1 }))!;
    const other = (await learnWordMeanings(passages, isTopicTerm, NO_SLICES, { ...OPTIONS, seed: 5 }))!;
    expect(Array.from(again.vectors)).toEqual(Array.from(one.vectors));
    expect(Array.from(other.vectors)).not.toEqual(Array.from(one.vectors));
    // Another start, the same company: alpha still nearest beta.
    expect(cosine(vectorOf(other, "alpha"), vectorOf(other, "beta"))).toBeGreaterThan(0.8);
  });

  it("puts two words that never share a passage but keep the same company near each other", async () => {
    const passages = corpus();
    expect(passages.some((p) => p.includes("alpha") && p.includes("beta"))).toBe(false);
    const meanings = (await learnWordMeanings(passages, isTopicTerm, NO_SLICES, OPTIONS))!;
    expect(meanings).not.toBeNull();
    const alpha = vectorOf(meanings, "alpha");
    const alphaBeta = cosine(alpha, vectorOf(meanings, "beta"));
    const alphaGamma = cosine(alpha, vectorOf(meanings, "gamma"));
    expect(alphaBeta).toBeGreaterThan(0.8);
    expect(alphaBeta - alphaGamma).toBeGreaterThan(0.5);
    // A context word of topic 0 is nearer alpha than one of topic 1 is.
    expect(cosine(alpha, vectorOf(meanings, "t0w3"))).toBeGreaterThan(cosine(alpha, vectorOf(meanings, "t1w3")));
  });

  it("gives no vector to rare words, stop words and numbers", async () => {
    const meanings = (await learnWordMeanings(corpus(), isTopicTerm, NO_SLICES, OPTIONS))!;
    expect(meanings.words).not.toContain("rarely");
    expect(meanings.words).not.toContain("the");
    expect(meanings.words).not.toContain("2024");
    // 48 context words, alpha, beta, gamma and four other heads.
    expect(meanings.words).toHaveLength(48 + 3 + 4);
    // With the bar at two passages, the rare word is kept.
    const lower = (await learnWordMeanings(corpus(), isTopicTerm, NO_SLICES, { ...OPTIONS, minPassages: 2 }))!;
    expect(lower.words).toContain("rarely");
    // The topic test is the caller's: one that rejects nothing keeps the stop word and the number.
    const everything = (await learnWordMeanings(corpus(), () => true, NO_SLICES, OPTIONS))!;
    expect(everything.words).toEqual(expect.arrayContaining(["the", "2024"]));
  });

  it("keeps the maxWords words in most passages, most used first", async () => {
    const meanings = (await learnWordMeanings(corpus(), isTopicTerm, NO_SLICES, { ...OPTIONS, maxWords: 20 }))!;
    expect(meanings.words).toHaveLength(20);
    // Each head word but topic 0's is in 100 passages, beta in 90, alpha in 10, a context word in about 50.
    expect(meanings.words.slice(0, 6)).toEqual(["gamma", "head2", "head3", "head4", "head5", "beta"]);
    expect(meanings.words).not.toContain("alpha");
  });

  it("gives every word a vector of length 1 and of the dimensions asked for", async () => {
    const meanings = (await learnWordMeanings(corpus(), isTopicTerm, NO_SLICES, OPTIONS))!;
    expect(meanings.dimensions).toBe(8);
    expect(meanings.vectors).toHaveLength(meanings.words.length * 8);
    for (const word of meanings.words) {
      const v = vectorOf(meanings, word);
      expect(Math.sqrt(cosine(v, v))).toBeCloseTo(1, 5);
    }
  });

  it("learns nothing from too few words (no more than twice the dimensions)", async () => {
    const passages = corpus();
    // 55 words: enough for 8 dimensions, not for 28 or more.
    expect(await learnWordMeanings(passages, isTopicTerm, NO_SLICES, { ...OPTIONS, dimensions: 27 })).not.toBeNull();
    expect(await learnWordMeanings(passages, isTopicTerm, NO_SLICES, { ...OPTIONS, dimensions: 28 })).toBeNull();
    expect(await learnWordMeanings([], isTopicTerm, NO_SLICES, OPTIONS)).toBeNull();
  });

  it("learns the same meanings in slices as at once, and again the same the second time", async () => {
    let pauses = 0;
    const slice: WorkSlice = { over: () => true, pause: async () => void pauses++, restart: () => undefined };
    const sliced = (await learnWordMeanings(corpus(), isTopicTerm, slice, OPTIONS))!;
    const whole = (await learnWordMeanings(corpus(), isTopicTerm, NO_SLICES, OPTIONS))!;
    expect(pauses).toBeGreaterThan(0);
    expect(sliced.words).toEqual(whole.words);
    expect(Array.from(sliced.vectors)).toEqual(Array.from(whole.vectors));
  });
});

describe("passageBook", () => {
  it("keeps each passage's distinct topic terms in the order first met, one place per term across passages", async () => {
    let pauses = 0;
    const slice: WorkSlice = { over: () => true, pause: async () => void pauses++, restart: () => undefined };
    const passages = [["gamma", "the", "delta", "gamma"], [], ["delta", "2024", "omega"]];
    const book = await passageBook(passages, isTopicTerm, slice);
    const rows = Array.from({ length: 3 }, (_, i) => Array.from(book.entries.subarray(book.start[i], book.start[i + 1]), (place) => book.terms[place]));
    expect(rows).toEqual([["gamma", "delta"], [], ["delta", "omega"]]);
    expect(book.terms).toEqual(["gamma", "delta", "omega"]);
    expect(pauses).toBeGreaterThan(0);
  });

  it("grows past its first guess of room (passages longer than 16 terms)", async () => {
    const long = Array.from({ length: 3 }, (_, p) => Array.from({ length: 600 }, (_, i) => `word${p}x${i}`));
    const book = await passageBook(long, isTopicTerm, NO_SLICES);
    expect(book.entries.length).toBe(1800);
    expect(book.terms[1799]).toBe("word2x599");
  });
});
