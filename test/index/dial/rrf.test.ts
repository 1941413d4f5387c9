import { describe, expect, it } from "vitest";
import { reciprocalRankFusion, RRF_K } from "../../../src/index/dial/rrf";

describe("reciprocal rank fusion", () => {
  it("sums 1 / (60 + rank) over the lanes a key appears in", () => {
    const fused = reciprocalRankFusion([
      { lane: "lexical", keys: ["a", "b", "c"] },
      { lane: "vector", keys: ["c", "d", "a"] },
    ]);
    expect(RRF_K).toBe(60);
    expect(fused.map((f) => f.key)).toEqual(["a", "c", "b", "d"]);
    const a = fused[0];
    expect(a.score).toBeCloseTo(1 / 61 + 1 / 63, 12);
    expect(a.contributions).toEqual([
      { lane: "lexical", rank: 1, contribution: 1 / 61 },
      { lane: "vector", rank: 3, contribution: 1 / 63 },
    ]);
  });

  it("agreement between lanes beats one lane's top rank", () => {
    const fused = reciprocalRankFusion([
      { lane: "lexical", keys: ["solo", "both"] },
      { lane: "vector", keys: ["x", "both"] },
    ]);
    expect(fused[0].key).toBe("both");
  });

  it("a tie goes to the better rank in the earlier lane, so an exact name wins", () => {
    const fused = reciprocalRankFusion([
      { lane: "lexical", keys: ["exact-name", "p"] },
      { lane: "vector", keys: ["paraphrase", "q"] },
    ]);
    expect(fused.slice(0, 2).map((f) => f.key)).toEqual(["exact-name", "paraphrase"]);
  });

  it("ignores a key repeated within one lane", () => {
    const fused = reciprocalRankFusion([{ lane: "lexical", keys: ["a", "a", "b"] }]);
    expect(fused.map((f) => [f.key, f.contributions.length])).toEqual([
      ["a", 1],
      ["b", 1],
    ]);
    expect(fused[1].contributions[0].rank).toBe(3);
  });

  it("takes another k", () => {
    expect(reciprocalRankFusion([{ lane: "l", keys: ["a"] }], 0)[0].score).toBe(1);
  });
});
