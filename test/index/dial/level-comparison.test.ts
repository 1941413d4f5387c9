// One query at all four levels: each note's rank per level and its move from the level before,
// and a comparison given up on part-way runs (and logs) no further level.
import { describe, expect, it } from "vitest";
import type { DialRequest, DialResponse } from "../../../src/index/dial/dial-types";
import { compareLevels } from "../../../src/index/dial/level-comparison";

/** A dial answering each level with its own order of notes; `onSearch` sees each request as it is asked. */
function scriptedDial(orders: Record<number, string[]>, onSearch: (request: DialRequest) => void = () => {}) {
  return {
    async search(request: DialRequest): Promise<DialResponse> {
      onSearch(request);
      const results = (orders[request.level] ?? []).map((key) => ({ key, path: key, title: key.replace(/\.md$/, ""), tags: [], score: 1, section: null, lexical: null, explanation: { lanes: [] } }));
      return { query: request.query, level: request.level, ranLevel: request.level, results, notices: [], latencyMs: 1, logId: null };
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
