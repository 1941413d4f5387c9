// The logged queries replayed at every level, scored by the notes the user opened after them.
import { describe, expect, it } from "vitest";
import type { DialRequest, DialResponse } from "../../../src/index/dial/dial-types";
import { replayLoggedQueries } from "../../../src/index/dial/query-replay";
import { QUERY_LOG_SCHEMA, type QueryLogLine } from "../../../src/index/query-log/query-log";

const ORDERS: Record<number, string[]> = { 1: ["a.md", "b.md", "c.md"], 2: ["b.md", "a.md", "c.md"], 3: ["c.md", "b.md", "a.md"], 4: ["c.md", "b.md", "a.md"] };

/** A dial whose every level answers with a fixed order; level 4 says it ran at 3. */
function scriptedDial(asked: DialRequest[]) {
  return {
    async search(request: DialRequest): Promise<DialResponse> {
      asked.push(request);
      const results = ORDERS[request.level].map((key) => ({ key, path: key, title: key, tags: [], score: 1, section: null, lexical: null, explanation: { lanes: [] } }));
      return { query: request.query, level: request.level, ranLevel: request.level === 4 ? 3 : request.level, results, notices: [], latencyMs: 1, logId: null };
    },
  };
}

const filters = { folders: [], tags: [] };
const searchLine = (id: string, query: string): QueryLogLine => ({ schema: QUERY_LOG_SCHEMA, type: "search", id, at: "", surface: "cli", query, level: 1, ran_level: 1, filters, results: [], latency_ms: 1 });
const click = (id: string, key: string): QueryLogLine => ({ schema: QUERY_LOG_SCHEMA, type: "click", id, at: "", key, rank: 1 });

describe("query log replay", () => {
  it("runs each distinct logged query at every level and scores the levels by the notes opened after it", async () => {
    const asked: DialRequest[] = [];
    const lines = [searchLine("1", "brakes"), click("1", "c.md"), searchLine("2", "brakes "), click("2", "b.md"), click("2", "b.md"), searchLine("3", "tyres"), searchLine("4", "  ")];
    const replay = await replayLoggedQueries(scriptedDial(asked), lines);
    expect(asked.map((r) => [r.query, r.level])).toEqual([
      ["brakes", 1],
      ["brakes", 2],
      ["brakes", 3],
      ["brakes", 4],
      ["tyres", 1],
      ["tyres", 2],
      ["tyres", 3],
      ["tyres", 4],
    ]);
    expect([replay.queries, replay.scored]).toEqual([2, 1]);
    const brakes = replay.replayed.find((r) => r.query === "brakes")!;
    expect(brakes.opened).toEqual(["c.md", "b.md"]);
    expect(brakes.bestOpenedRank).toEqual([2, 1, 1, 1]);
    expect(replay.levels.map((l) => [l.level, l.mrr, l.recallAt5, l.ranLower])).toEqual([
      [1, 0.5, 1, 0],
      [2, 1, 1, 0],
      [3, 1, 1, 0],
      [4, 1, 1, 2],
    ]);
  });

  it("keeps only the most recent queries, and nothing to replay is all zeros", async () => {
    const lines = Array.from({ length: 5 }, (_, i) => searchLine(String(i), `q${i}`));
    const replay = await replayLoggedQueries(scriptedDial([]), lines, { maxQueries: 2 });
    expect(replay.replayed.map((r) => r.query)).toEqual(["q3", "q4"]);
    const empty = await replayLoggedQueries(scriptedDial([]), []);
    expect(empty).toMatchObject({ queries: 0, scored: 0 });
    expect(empty.levels.every((l) => l.mrr === 0 && l.recallAt5 === 0)).toBe(true);
  });

  it("stopped part-way through a query's levels, leaves that query out rather than scoring it on levels that never ran", async () => {
    const controller = new AbortController();
    const asked: DialRequest[] = [];
    const dial = scriptedDial(asked);
    const stopping = {
      async search(request: DialRequest): Promise<DialResponse> {
        if (request.query === "tyres" && request.level === 2) controller.abort();
        return dial.search(request);
      },
    };
    const lines = [searchLine("1", "brakes"), click("1", "c.md"), searchLine("2", "tyres"), click("2", "c.md")];
    const replay = await replayLoggedQueries(stopping, lines, { signal: controller.signal });
    expect(asked.map((r) => [r.query, r.level])).toEqual([
      ["brakes", 1],
      ["brakes", 2],
      ["brakes", 3],
      ["brakes", 4],
      ["tyres", 1],
      ["tyres", 2],
    ]);
    expect(replay.replayed.map((r) => r.query)).toEqual(["brakes"]);
    expect([replay.queries, replay.scored]).toEqual([1, 1]);
  });

  it("sets aside a note opened then and gone from that path since (renamed, moved), rather than scoring it as every level's miss", async () => {
    const dial = { ...scriptedDial([]), holdsNote: (path: string) => path !== "Old name.md" };
    const lines = [searchLine("1", "brakes"), click("1", "Old name.md"), searchLine("2", "tyres"), click("2", "Old name.md"), click("2", "c.md")];
    const replay = await replayLoggedQueries(dial, lines);
    expect([replay.queries, replay.scored, replay.openedGone]).toEqual([2, 1, 2]);
    expect(replay.replayed.map((r) => [r.query, r.opened, r.openedGone])).toEqual([
      ["brakes", [], ["Old name.md"]],
      ["tyres", ["c.md"], ["Old name.md"]],
    ]);
    // Scored by c.md alone: the renamed note does not halve recall at every level.
    expect(replay.levels.map((l) => [l.mrr, l.recallAt5])).toEqual([
      [1 / 3, 1],
      [1 / 3, 1],
      [1, 1],
      [1, 1],
    ]);
  });

  it("asks a dial that can share one query's embedding for a new share per query", async () => {
    const shares: string[][] = [];
    const inner = scriptedDial([]);
    const dial = {
      search: (request: DialRequest) => inner.search(request),
      forOneQuery() {
        const asked: string[] = [];
        shares.push(asked);
        return { search: (request: DialRequest) => (asked.push(`${request.query}@${request.level}`), inner.search(request)) };
      },
    };
    await replayLoggedQueries(dial, [searchLine("1", "brakes"), searchLine("2", "tyres")]);
    expect(shares).toEqual([
      ["brakes@1", "brakes@2", "brakes@3", "brakes@4"],
      ["tyres@1", "tyres@2", "tyres@3", "tyres@4"],
    ]);
  });
});
