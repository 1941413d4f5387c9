// The words' ranking and the vault language's made one by reciprocal rank fusion: scores computed
// here by hand, a note only the language lane found (score 0, missing the words it lacks), the language
// lane's rank and similarity and the fused score the order follows in each explanation, and only
// `depth` of its notes taken.
import { describe, expect, it } from "vitest";
import { parseNote } from "../../../src/index/markdown";
import { roundTo } from "../../../src/text/numbers";
import type { RankedHit } from "../../../src/index/ranking/explain";
import { createEngine, toEngineDoc } from "../../../src/index/search-engine";
import { createAnalyzer } from "../../../src/index/tokenize";
import type { ScorePart } from "../../../src/index/types";
import { fuseLanes, orderedScore, type LaneFusion } from "../../../src/index/vault-language/fuse-lanes";
import type { NearNote } from "../../../src/index/vault-language/vault-language";

/** A note the words found, with its own explanation. */
function wordHit(path: string, score: number): RankedHit {
  return {
    path,
    score,
    docTerms: new Map([["disk", "disk"]]),
    explanation: {
      matchedTerms: ["disk"],
      missingTerms: ["quota"],
      fields: { body: ["disk"] },
      parts: [{ name: "words", detail: `matched disk in ${path}`, weight: score }],
      termWeights: { disk: 1.5, quota: 2.5 },
      termNotes: { disk: 4, quota: 1 },
      termClumping: { disk: { clumping: 1.2, notes: 4 } },
      vaultNotes: 9000,
    },
  };
}

const near = (path: string, similarity: number): NearNote => ({ path, similarity });

/** The one "vault language" part, weightless, its words ending in the lane's rank and similarity. */
function expectLanguagePart(parts: ScorePart[], figures: string): void {
  expect(parts).toHaveLength(1);
  expect(parts[0].name).toBe("vault language");
  expect(parts[0].weight).toBe(0);
  expect(parts[0].detail.endsWith(`${figures})`)).toBe(true);
}
const paths = (hits: RankedHit[]) => hits.map((h) => h.path);
const FUSION: LaneFusion = { k: 10, weight: 0.5, depth: 50 };

describe("fuseLanes", () => {
  it("orders notes by 1 / (k + word rank) + weight / (k + language rank)", () => {
    const words = [wordHit("a.md", 9), wordHit("b.md", 7), wordHit("c.md", 5)];
    const language = [near("c.md", 0.9), near("d.md", 0.8), near("a.md", 0.7)];
    // By hand, k = 10, weight = 0.5:
    //   a: 1/11 + 0.5/13 = 0.1293   b: 1/12 = 0.0833   c: 1/13 + 0.5/11 = 0.1224   d: 0.5/12 = 0.0417
    expect(paths(fuseLanes(words, language, FUSION, ["disk", "quota"]))).toEqual(["a.md", "c.md", "b.md", "d.md"]);
    // With the language lane weighing twice the words, c (first there) leads and d passes b:
    //   a: 1/11 + 2/13 = 0.2448   b: 0.0833   c: 1/13 + 2/11 = 0.2587   d: 2/12 = 0.1667
    expect(paths(fuseLanes(words, language, { ...FUSION, weight: 2 }, ["disk", "quota"]))).toEqual(["c.md", "a.md", "d.md", "b.md"]);
    // A smaller k makes first places count for more: k = 1, weight = 0.5:
    //   a: 1/2 + 0.5/4 = 0.625   b: 1/3 = 0.333   c: 1/4 + 0.5/2 = 0.5   d: 0.5/3 = 0.167
    expect(paths(fuseLanes(words, language, { ...FUSION, k: 1 }, ["disk", "quota"]))).toEqual(["a.md", "c.md", "b.md", "d.md"]);
  });

  it("keeps the words' first note first when it scores `lead` times their second, and only then", () => {
    const language = [near("c.md", 0.9), near("d.md", 0.8), near("a.md", 0.7)];
    // With weight 2, c leads the fusion (see above) although the words put a first.
    const close = [wordHit("a.md", 9), wordHit("b.md", 7), wordHit("c.md", 5)];
    const heavy = { ...FUSION, weight: 2, lead: 4 };
    expect(paths(fuseLanes(close, language, heavy, ["disk", "quota"]))).toEqual(["c.md", "a.md", "d.md", "b.md"]);
    // a at 4 × b's score: far ahead, it stays first; the rest keep the fusion's order.
    const far = [wordHit("a.md", 28), wordHit("b.md", 7), wordHit("c.md", 5)];
    expect(paths(fuseLanes(far, language, heavy, ["disk", "quota"]))).toEqual(["a.md", "c.md", "d.md", "b.md"]);
    // Just short of it, or without a lead, the fusion alone decides.
    const short = [wordHit("a.md", 27.9), wordHit("b.md", 7), wordHit("c.md", 5)];
    expect(paths(fuseLanes(short, language, heavy, ["disk", "quota"]))[0]).toBe("c.md");
    expect(paths(fuseLanes(far, language, { ...heavy, lead: undefined }, ["disk", "quota"]))[0]).toBe("c.md");
    // A second note scoring 0 (rounded) is no measure of a lead.
    expect(paths(fuseLanes([wordHit("a.md", 0.001), wordHit("b.md", 0)], [near("c.md", 0.9), near("d.md", 0.8)], heavy, ["disk", "quota"]))[0]).toBe("c.md");
    // One note from the words is no lead over anything.
    expect(paths(fuseLanes([wordHit("a.md", 28)], [near("c.md", 0.9), near("d.md", 0.8)], heavy, ["disk", "quota"]))[0]).toBe("c.md");
  });

  it("keeps first the note whose name the question is, whatever the lead", () => {
    const language = [near("c.md", 0.9), near("d.md", 0.8), near("a.md", 0.7)];
    const close = [{ ...wordHit("a.md", 9), keepFirst: true }, wordHit("b.md", 7), wordHit("c.md", 5)];
    expect(paths(fuseLanes(close, language, { ...FUSION, weight: 2 }, ["space", "lua"]))).toEqual(["a.md", "c.md", "d.md", "b.md"]);
    // Only the words' first: a note further down that keeps first place is not moved up.
    const second = [wordHit("b.md", 9), { ...wordHit("a.md", 7), keepFirst: true }, wordHit("c.md", 5)];
    expect(paths(fuseLanes(second, language, { ...FUSION, weight: 2 }, ["space", "lua"]))[0]).toBe("c.md");
  });

  it("quiets the language lane by `damping` × how much of the question the words' best note covers", () => {
    // The best note matched both words: coverage 1, so weight 2 with damping 0.8 is 2 × (1 − 0.8) = 0.4:
    //   a: 1/11 + 0.4/13 = 0.1217   b: 1/12 = 0.0833   c: 1/13 + 0.4/11 = 0.1133   d: 0.4/12 = 0.0333
    const covered = wordHit("a.md", 9);
    covered.explanation = { ...covered.explanation, matchedTerms: ["disk", "quota"], missingTerms: [] };
    const words = [covered, wordHit("b.md", 7), wordHit("c.md", 5)];
    const language = [near("c.md", 0.9), near("d.md", 0.8), near("a.md", 0.7)];
    const fusion = { ...FUSION, weight: 2, damping: 0.8 };
    expect(paths(fuseLanes(words, language, fusion, ["disk", "quota"]))).toEqual(["a.md", "c.md", "b.md", "d.md"]);
    // Undamped, the same lanes put c first and d before b (see above).
    expect(paths(fuseLanes(words, language, { ...fusion, damping: 0 }, ["disk", "quota"]))).toEqual(["c.md", "a.md", "d.md", "b.md"]);
    // Covering 1.5 of the question's 4 (disk of disk and quota): 2 × (1 − 0.8 × 0.375) = 1.4:
    //   a: 1/11 + 1.4/13 = 0.1986   b: 0.0833   c: 1/13 + 1.4/11 = 0.2042   d: 1.4/12 = 0.1167
    const partly = [wordHit("a.md", 9), wordHit("b.md", 7), wordHit("c.md", 5)];
    expect(paths(fuseLanes(partly, language, fusion, ["disk", "quota"]))).toEqual(["c.md", "a.md", "d.md", "b.md"]);
    // Only the best note counts: a later one covering everything does not quiet the lane.
    const later = wordHit("c.md", 5);
    later.explanation = { ...later.explanation, matchedTerms: ["disk", "quota"] };
    expect(paths(fuseLanes([wordHit("a.md", 9), wordHit("b.md", 7), later], language, fusion, ["disk", "quota"]))).toEqual(["c.md", "a.md", "d.md", "b.md"]);
  });

  it("breaks an equal fused score by the words' score, then by path", () => {
    // b (second in words, absent from language) and x (language only, weight 1, second there) tie at 1/12.
    const words = [wordHit("a.md", 9), wordHit("b.md", 7)];
    const fused = fuseLanes(words, [near("a.md", 0.9), near("x.md", 0.5)], { ...FUSION, weight: 1 }, ["disk"]);
    expect(paths(fused)).toEqual(["a.md", "b.md", "x.md"]);
    // Two language-only notes at the same rank cannot happen; two words-only notes keep the words' order.
    expect(paths(fuseLanes([wordHit("m.md", 3), wordHit("n.md", 3)], [], FUSION, ["disk"]))).toEqual(["m.md", "n.md"]);
  });

  it("gives a note only the language lane found score 0, every query word missing, and the vault's word statistics", () => {
    const fused = fuseLanes([wordHit("a.md", 9)], [near("only.md", 0.61234)], FUSION, ["disk", "quota"]);
    const only = fused.find((h) => h.path === "only.md")!;
    expect(only.score).toBe(0);
    expect(only.docTerms.size).toBe(0);
    const { parts, ...rest } = only.explanation;
    expect(rest).toEqual({
      matchedTerms: [],
      missingTerms: ["disk", "quota"],
      fields: {},
      termWeights: { disk: 1.5, quota: 2.5 },
      termNotes: { disk: 4, quota: 1 },
      termClumping: { disk: { clumping: 1.2, notes: 4 } },
      vaultNotes: 9000,
      vaultLanguage: { rank: 1, similarity: 0.612 },
      // k = 10, weight 0.5: 0.5 / 11; the words did not rank it.
      fusion: { score: roundTo(0.5 / 11, 6), wordsRank: null },
    });
    expectLanguagePart(parts, "rank 1, similarity 0.612");
    // With no word hit at all there are no statistics to borrow.
    const alone = fuseLanes([], [near("only.md", 0.5)], FUSION, ["disk"]);
    expect(alone).toHaveLength(1);
    expect(alone[0].explanation).toMatchObject({ missingTerms: ["disk"], termWeights: {}, termNotes: {} });
  });

  it("explains a note the words did not rank by the question's words it holds, when given the index", () => {
    const analyzer = createAnalyzer({ stemming: true });
    const engine = createEngine(analyzer);
    engine.add(toEngineDoc(parseNote("only.md", "# Storage\n\nThe disks filled up overnight.\n")));
    const fused = fuseLanes([wordHit("a.md", 9)], [near("only.md", 0.5)], FUSION, ["disk", "quota"], { engine, analyzer });
    const only = fused.find((h) => h.path === "only.md")!;
    // "disks" is indexed as "disk": the note holds the first word, not the second; its score stays 0.
    expect(only.explanation.matchedTerms).toEqual(["disk"]);
    expect(only.explanation.missingTerms).toEqual(["quota"]);
    expect(only.score).toBe(0);
    // A note the index does not hold holds no word.
    const gone = fuseLanes([], [near("gone.md", 0.5)], FUSION, ["disk"], { engine, analyzer });
    expect(gone[0].explanation).toMatchObject({ matchedTerms: [], missingTerms: ["disk"] });
  });

  it("explains a note only the language lane found by the words the words' ranking weighed, each once", () => {
    // "disk" typed twice; of a long question the ranking looked up only "disk" and "quota" (its
    // best note matched one and misses the other), not "weekly", "report" or "again".
    const fused = fuseLanes([wordHit("a.md", 9)], [near("only.md", 0.5)], FUSION, ["disk", "weekly", "quota", "report", "disk", "again"]);
    const only = fused.find((h) => h.path === "only.md")!;
    expect(only.explanation.matchedTerms).toEqual([]);
    expect(only.explanation.missingTerms).toEqual(["disk", "quota"]);
    // With no word hit to say which words were weighed, each word of the question counts, once.
    const alone = fuseLanes([], [near("only.md", 0.5)], FUSION, ["disk", "quota", "disk"]);
    expect(alone[0].explanation.missingTerms).toEqual(["disk", "quota"]);
  });

  it("keeps a note both lanes found its own score and explanation, with the vault language part added", () => {
    const words = [wordHit("a.md", 9), wordHit("b.md", 7)];
    const original = structuredClone(words[1]);
    const fused = fuseLanes(words, [near("x.md", 0.3), near("b.md", 0.25)], FUSION, ["disk", "quota"]);
    const b = fused.find((h) => h.path === "b.md")!;
    expect(b.score).toBe(7);
    expect(b.docTerms).toEqual(original.docTerms);
    const { parts, ...rest } = b.explanation;
    const fusion = { score: roundTo(1 / 12 + 0.5 / 12, 6), wordsRank: 2 };
    expect(rest).toEqual({ ...original.explanation, parts: undefined, vaultLanguage: { rank: 2, similarity: 0.25 }, fusion });
    expect(parts.slice(0, -1)).toEqual(original.explanation.parts);
    expectLanguagePart(parts.slice(-1), "rank 2, similarity 0.25");
    // A note only the words found is left as it was but for its place in the fusion; the caller's hits are not changed.
    const a = wordHit("a.md", 9);
    expect(fused.find((h) => h.path === "a.md")).toEqual({ ...a, explanation: { ...a.explanation, fusion: { score: roundTo(1 / 11, 6), wordsRank: 1 } } });
    expect(words[1]).toEqual(original);
  });

  it("gives every note its fused score, the one the order follows, and its rank by the words", () => {
    const words = [wordHit("a.md", 9), wordHit("b.md", 7), wordHit("c.md", 5)];
    const language = [near("c.md", 0.9), near("d.md", 0.8), near("a.md", 0.7)];
    const fused = fuseLanes(words, language, { ...FUSION, weight: 2 }, ["disk", "quota"]);
    // By hand (see the first test): c 0.2587, a 0.2448, d 0.1667, b 0.0833; the words' scores 5, 9, 0, 7 are no order.
    expect(fused.map((h) => [h.path, h.score, h.explanation.fusion])).toEqual([
      ["c.md", 5, { score: roundTo(1 / 13 + 2 / 11, 6), wordsRank: 3 }],
      ["a.md", 9, { score: roundTo(1 / 11 + 2 / 13, 6), wordsRank: 1 }],
      ["d.md", 0, { score: roundTo(2 / 12, 6), wordsRank: null }],
      ["b.md", 7, { score: roundTo(1 / 12, 6), wordsRank: 2 }],
    ]);
    expect(fused.map(orderedScore)).toEqual(fused.map((h) => h.explanation.fusion!.score));
  });

  it("gives the words' first note, kept first, the fused score of the note it passed, and says so", () => {
    const language = [near("c.md", 0.9), near("d.md", 0.8), near("a.md", 0.7)];
    const far = [wordHit("a.md", 28), wordHit("b.md", 7), wordHit("c.md", 5)];
    const fused = fuseLanes(far, language, { ...FUSION, weight: 2, lead: 4 }, ["disk", "quota"]);
    // c leads the fusion at 0.2587; a (0.2448) is kept above it and takes that score.
    expect(fused.map((h) => [h.path, h.explanation.fusion])).toEqual([
      ["a.md", { score: roundTo(1 / 13 + 2 / 11, 6), wordsRank: 1, keptFirst: true }],
      ["c.md", { score: roundTo(1 / 13 + 2 / 11, 6), wordsRank: 3 }],
      ["d.md", { score: roundTo(2 / 12, 6), wordsRank: null }],
      ["b.md", { score: roundTo(1 / 12, 6), wordsRank: 2 }],
    ]);
    // Already first by the fusion, it is not said to be kept there.
    const first = fuseLanes(far, language, { ...FUSION, lead: 4 }, ["disk", "quota"]);
    expect(first[0].explanation.fusion).toEqual({ score: roundTo(1 / 11 + 0.5 / 13, 6), wordsRank: 1 });
  });

  it("takes only `depth` notes of the language lane", () => {
    const language = Array.from({ length: 8 }, (_, i) => near(`n${i}.md`, 0.9 - i / 10));
    const fused = fuseLanes([wordHit("a.md", 9)], language, { ...FUSION, depth: 3 }, ["disk"]);
    expect(paths(fused)).toEqual(["a.md", "n0.md", "n1.md", "n2.md"]);
    expect(paths(fuseLanes([wordHit("a.md", 9)], language, { ...FUSION, depth: 0 }, ["disk"]))).toEqual(["a.md"]);
  });

  it("leaves the words' ranking as it was when the language lane found nothing", () => {
    const words = [wordHit("a.md", 9), wordHit("b.md", 7), wordHit("c.md", 5)];
    expect(fuseLanes(words, [], FUSION, ["disk"])).toEqual(words);
  });
});
