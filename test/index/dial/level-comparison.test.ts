// One query at all four levels: each note's rank per level and its move from the level before,
// and a comparison given up on part-way runs (and logs) no further level.
import { describe, expect, it } from "vitest";
import type { DialLevel, DialRequest, DialResponse } from "../../../src/index/dial/dial-types";
import { compareLevels } from "../../../src/index/dial/level-comparison";

/**
 * A dial answering each level with its own order of notes; `onSearch` sees each request as it is
 * asked; `ranAs` names the level a level fell back to (its results are then that level's order).
 */
function scriptedDial(orders: Record<number, string[]>, onSearch: (request: DialRequest) => void = () => {}, ranAs: Partial<Record<DialLevel, DialLevel>> = {}) {
  return {
    async search(request: DialRequest): Promise<DialResponse> {
      onSearch(request);
      const ranLevel = ranAs[request.level] ?? request.level;
      const results = (orders[ranLevel] ?? []).map((key) => ({ key, path: key, title: key.replace(/\.md$/, ""), tags: [], score: 1, section: null, lexical: null, explanation: { lanes: [] } }));
      return { query: request.query, level: request.level, ranLevel, results, notices: [], latencyMs: 1, logId: null };
    },
  };
}

describe("compareLevels", () => {
  it("marks each note's move from the level before: up, down, new, gone, and new again after a gap", async () => {
    const dial = scriptedDial({ 1: ["a.md", "b.md"], 2: ["b.md", "c.md"], 3: ["b.md", "a.md", "c.md"], 4: ["c.md", "b.md", "a.md"] });
    const comparison = await compareLevels(dial, { query: "q" });
    const a = comparison.rows.find((r) => r.key === "a.md")!;
    expect(a.ranks).toEqual([1, null, 2, 3]);
    expect(a.moves).toEqual([{ kind: "same" }, { kind: "gone" }, { kind: "new" }, { kind: "down", by: 1 }]);
    expect(comparison.rows.map((r) => r.key)).toEqual(["c.md", "b.md", "a.md"]);
  });

  it("gives a level that fell back no ranks of its own: a failed rerank is not 'every note kept its place'", async () => {
    // Level 3 reorders level 2; level 4's rerank failed, so it ran level 3's search again.
    const dial = scriptedDial({ 1: ["a.md", "b.md"], 2: ["b.md", "a.md"], 3: ["a.md", "b.md", "c.md"] }, undefined, { 4: 3 });
    const comparison = await compareLevels(dial, { query: "q" });
    expect(comparison.levels.map((l) => [l.level, l.ranLevel, l.comparedWith])).toEqual([
      [1, 1, null],
      [2, 2, 1],
      [3, 3, 2],
      [4, 3, null],
    ]);
    // What the search returned is kept, as that level's answer, beside the level that ran.
    expect(comparison.levels[3].keys).toEqual(["a.md", "b.md", "c.md"]);
    const a = comparison.rows.find((r) => r.key === "a.md")!;
    expect(a.ranks).toEqual([1, 2, 1, null]);
    expect(a.moves).toEqual([{ kind: "same" }, { kind: "down", by: 1 }, { kind: "up", by: 1 }, { kind: "absent" }]);
    // Ordered by the highest level that ran (3), not by the empty column of the one that did not.
    expect(comparison.rows.map((r) => r.key)).toEqual(["a.md", "b.md", "c.md"]);
  });

  it("measures a level's moves from the last level that ran, and names it: vectors ready for level 3, not yet for level 2", async () => {
    // Level 2 fell back to words (level 1's order); the embedding job finished before level 3 ran.
    const dial = scriptedDial({ 1: ["a.md", "b.md"], 3: ["b.md", "a.md"] }, undefined, { 2: 1 });
    const comparison = await compareLevels(dial, { query: "q" });
    expect(comparison.levels.map((l) => l.comparedWith)).toEqual([null, null, 1, 3]);
    const b = comparison.rows.find((r) => r.key === "b.md")!;
    expect(b.ranks).toEqual([2, null, 1, null]);
    expect(b.moves).toEqual([{ kind: "same" }, { kind: "absent" }, { kind: "up", by: 1 }, { kind: "gone" }]);
  });

  it("stops when it is given up on: no further level runs, so none is logged as a search the user made", async () => {
    const controller = new AbortController();
    const asked: number[] = [];
    const dial = scriptedDial({ 1: ["a.md"], 2: ["a.md"] }, (request) => {
      asked.push(request.level);
      // The user typed a new query (or closed the view) while level 2 was running.
      if (request.level === 2) controller.abort();
    });
    await expect(compareLevels(dial, { query: "q", signal: controller.signal })).rejects.toThrow();
    expect(asked).toEqual([1, 2]);
  });

  it("runs every level through one share of a dial that offers it, so the query is embedded once", async () => {
    const inner = scriptedDial({ 1: ["a.md"], 2: ["a.md"] });
    const shares: number[][] = [];
    const dial = {
      search: () => Promise.reject(new Error("each level should go through the share")),
      forOneQuery() {
        const levels: number[] = [];
        shares.push(levels);
        return { search: (request: DialRequest) => (levels.push(request.level), inner.search(request)) };
      },
    };
    await compareLevels(dial, { query: "q" });
    await compareLevels(dial, { query: "r" });
    expect(shares).toEqual([
      [1, 2, 3, 4],
      [1, 2, 3, 4],
    ]);
  });

  it("names the query as the levels read it, not as it was pasted: a huge paste is not echoed back whole", async () => {
    const inner = scriptedDial({ 1: ["a.md"] });
    const reading = { search: (request: DialRequest) => inner.search({ ...request, query: request.query.slice(0, 20) }) };
    const comparison = await compareLevels(reading, { query: "tomatoes ".repeat(20_000) });
    expect(comparison.query).toBe("tomatoes ".repeat(20_000).slice(0, 20));
  });
});
