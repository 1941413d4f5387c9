// The query log: what a line holds, click-throughs tied to their search, rotation that bounds
// the log's size, a clear, a switch, and a failed write that never fails a search.
import { describe, expect, it } from "vitest";
import { QUERY_LOG_SCHEMA, QueryLog, type SearchToLog } from "../../../src/index/query-log/query-log";
import { secretScrubber } from "../../../src/text/secret-scrub";
import { fakeClock, FAKE_NOW } from "../../support/fake-clock";
import { MemoryQueryLogFile } from "./memory-query-log-file";

const search = (query: string, results: string[] = ["a.md", "b.md"]): SearchToLog => ({
  query,
  level: 2,
  ranLevel: 1,
  filters: { folders: ["Work"], tags: [] },
  results,
  latencyMs: 12.6,
  surface: "cli",
});

describe("query log", () => {
  it("appends one JSON line per search with its level, filters, result keys in order and latency, and one per click", async () => {
    const file = new MemoryQueryLogFile();
    const log = new QueryLog({ file, clock: fakeClock() });
    const id = await log.recordSearch(search("brake pads", ["Cars/Brakes.md", "Cars/Pads.md"]));
    expect(id).toMatch(/^q/);
    await log.recordClick(id!, "Cars/Pads.md", 2);
    const lines = file.current.trimEnd().split("\n").map((l) => JSON.parse(l) as unknown);
    expect(lines).toEqual([
      {
        schema: QUERY_LOG_SCHEMA,
        type: "search",
        id,
        at: new Date(FAKE_NOW).toISOString(),
        surface: "cli",
        query: "brake pads",
        level: 2,
        ran_level: 1,
        filters: { folders: ["Work"], tags: [] },
        results: ["Cars/Brakes.md", "Cars/Pads.md"],
        latency_ms: 13,
      },
      { schema: QUERY_LOG_SCHEMA, type: "click", id, at: new Date(FAKE_NOW).toISOString(), key: "Cars/Pads.md", rank: 2 },
    ]);
    expect((await log.read()).lines.map((l) => l.type)).toEqual(["search", "click"]);
  });

  it("gives every search its own id, even in the same millisecond", async () => {
    const log = new QueryLog({ file: new MemoryQueryLogFile(), clock: fakeClock() });
    const ids = await Promise.all([log.recordSearch(search("a")), log.recordSearch(search("b"))]);
    expect(new Set(ids).size).toBe(2);
  });

  it("rotates before a line would pass maxBytes, so the log never holds more than twice that", async () => {
    const file = new MemoryQueryLogFile();
    const log = new QueryLog({ file, clock: fakeClock(), maxBytes: 2000 });
    for (let i = 0; i < 100; i++) await log.recordSearch(search(`query number ${i}`));
    expect(file.rotations).toBeGreaterThan(3);
    expect(await file.size()).toBeLessThanOrEqual(2000);
    expect(new TextEncoder().encode(file.previous).length).toBeLessThanOrEqual(2000);
    // The newest lines are kept, oldest first; the oldest rotated away.
    const queries = (await log.read()).lines.flatMap((l) => (l.type === "search" ? [l.query] : []));
    expect(queries.at(-1)).toBe("query number 99");
    expect(queries).not.toContain("query number 0");
    expect(queries).toEqual([...queries].sort((a, b) => Number(a.split(" ")[2]) - Number(b.split(" ")[2])));
  });

  it("bounds one line: a huge query is cut and at most 50 result keys are kept", async () => {
    const file = new MemoryQueryLogFile();
    const log = new QueryLog({ file, maxBytes: 10_000 });
    await log.recordSearch(search("x".repeat(50_000), Array.from({ length: 500 }, (_, i) => `${i}.md`)));
    const [line] = (await log.read()).lines;
    expect(line.type === "search" && [line.query.length, line.results.length]).toEqual([1000, 50]);
  });

  it("writes no secret its scrubber knows: not in a query, a filter or a result key, nor cut off at the length limit", async () => {
    const key = "BSA-query-log-key-0123456789";
    const file = new MemoryQueryLogFile();
    const log = new QueryLog({ file, clock: fakeClock(), scrubber: () => secretScrubber([key]) });
    const id = await log.recordSearch({ ...search(`brake ${key} pads`, [`Keys/${key}.md`]), filters: { folders: [key], tags: [`#${key}`] } });
    await log.recordClick(id!, `Keys/${key}.md`, 1);
    await log.recordSearch(search(`${"x".repeat(990)} ${key}`));
    expect(file.current).not.toContain(key);
    expect(file.current).not.toContain(key.slice(0, 6));
    const [first, click] = (await log.read()).lines;
    expect(first).toMatchObject({ query: "brake [redacted] pads", filters: { folders: ["[redacted]"], tags: ["#[redacted]"] }, results: ["Keys/[redacted].md"] });
    expect(click).toMatchObject({ type: "click", key: "Keys/[redacted].md" });
  });

  it("asks for its scrubber at each write, so a key set since is scrubbed too", async () => {
    const file = new MemoryQueryLogFile();
    const keys: string[] = [];
    const log = new QueryLog({ file, scrubber: async () => secretScrubber(keys) });
    await log.recordSearch(search("before sk-later-key-0123456789"));
    keys.push("sk-later-key-0123456789");
    await log.recordSearch(search("after sk-later-key-0123456789"));
    const queries = (await log.read()).lines.flatMap((l) => (l.type === "search" ? [l.query] : []));
    expect(queries).toEqual(["before sk-later-key-0123456789", "after [redacted]"]);
  });

  it("writes nothing when its scrubber cannot be had, and says why, but does not fail the search", async () => {
    const file = new MemoryQueryLogFile();
    const log = new QueryLog({ file, scrubber: async () => Promise.reject(new Error("secret storage is locked")) });
    expect(await log.recordSearch(search("sk-unknown-key-0123456789"))).toBeNull();
    await log.recordClick("q1", "a.md", 1);
    expect(file.current).toBe("");
    expect(log.problem).toContain("secret storage is locked");
  });

  it("clear removes both files", async () => {
    const file = new MemoryQueryLogFile();
    const log = new QueryLog({ file, maxBytes: 300 });
    for (let i = 0; i < 5; i++) await log.recordSearch(search(`q${i}`));
    await log.clear();
    expect([file.current, file.previous]).toEqual(["", ""]);
    expect((await log.read()).lines).toEqual([]);
  });

  it("switched off, it writes nothing and returns no id", async () => {
    const file = new MemoryQueryLogFile();
    const log = new QueryLog({ file, enabled: false });
    expect(await log.recordSearch(search("private"))).toBeNull();
    await log.recordClick("q1", "a.md", 1);
    expect(file.current).toBe("");
  });

  it("a failed write returns no id and says why, and the next write that works clears it", async () => {
    const file = new MemoryQueryLogFile();
    const log = new QueryLog({ file });
    file.failAppends = true;
    expect(await log.recordSearch(search("a"))).toBeNull();
    expect(log.problem).toBe("The query log could not be written: read-only file system");
    file.failAppends = false;
    expect(await log.recordSearch(search("b"))).not.toBeNull();
    expect(log.problem).toBeNull();
  });

  it("skips lines that are not the log's shape and counts them", async () => {
    const file = new MemoryQueryLogFile();
    const log = new QueryLog({ file });
    await log.recordSearch(search("a"));
    file.current += "not json\n" + JSON.stringify({ schema: "other" }) + "\n";
    expect(await log.read()).toMatchObject({ skipped: 2, lines: [{ query: "a" }] });
  });

  it("keeps the line written after a half-written one: a line cut short loses only itself", async () => {
    const file = new MemoryQueryLogFile();
    const log = new QueryLog({ file });
    await log.recordSearch(search("first"));
    // The app quit in the middle of a write: no line break after the fragment.
    file.current += `{"schema":"${QUERY_LOG_SCHEMA}","type":"search","id":"q1","query":"lo`;
    await log.recordSearch(search("second"));
    await log.recordSearch(search("third"));
    const read = await log.read();
    expect(read.lines.map((l) => (l.type === "search" ? l.query : l.key))).toEqual(["first", "second", "third"]);
    expect(read.skipped).toBe(1);
  });

  it("reads past what a sync conflict leaves: markers, a later version's lines, a huge line", async () => {
    const file = new MemoryQueryLogFile();
    const log = new QueryLog({ file });
    await log.recordSearch(search("mine"));
    file.current += `<<<<<<< HEAD\n=======\n${JSON.stringify({ schema: "vault-research.query-log.v2", type: "search" })}\n>>>>>>> phone\n${"x".repeat(2_000_000)}\n`;
    await log.recordSearch(search("after"));
    expect(await log.read()).toMatchObject({ skipped: 5, lines: [{ query: "mine" }, { query: "after" }] });
  });

  it("bounds the filters too, so a client sending thousands of tags cannot make one line outgrow the log", async () => {
    const key = "sk-filter-key-0123456789abcdef";
    const file = new MemoryQueryLogFile();
    const log = new QueryLog({ file, maxBytes: 20_000, scrubber: () => secretScrubber([key]) });
    const tags = Array.from({ length: 20_000 }, (_, i) => `tag-${i}-${"x".repeat(50)}`);
    const folders = [`${"f".repeat(190)}${key}`];
    await log.recordSearch({ ...search("q"), filters: { folders, tags } });
    expect(await file.size()).toBeLessThan(20_000);
    const [line] = (await log.read()).lines;
    expect(line.type === "search" && [line.filters.tags.length, line.filters.tags[0], line.filters.folders[0].length]).toEqual([50, tags[0], 200]);
    // Scrubbed before it was cut: no prefix of the key is left at the cut.
    expect(file.current).not.toContain(key.slice(0, 6));
  });

  it("a search still being written when the log is cleared does not appear after the clear", async () => {
    const file = new MemoryQueryLogFile();
    let letSecretsThrough!: () => void;
    const secretsRead = new Promise<void>((resolve) => (letSecretsThrough = resolve));
    const log = new QueryLog({
      file,
      scrubber: async () => {
        await secretsRead;
        return secretScrubber([]);
      },
    });
    const before = log.recordSearch(search("asked before the clear"));
    const cleared = log.clear();
    letSecretsThrough();
    await cleared;
    expect(await before).toBeNull();
    expect(log.problem).toBeNull();
    expect(file.current).toBe("");
    // What is asked after the clear is written as ever.
    expect(await log.recordSearch(search("asked after"))).not.toBeNull();
    expect((await log.read()).lines).toMatchObject([{ query: "asked after" }]);
  });

  it("a search that began before a clear is not written after it, however long it ran", async () => {
    const file = new MemoryQueryLogFile();
    const log = new QueryLog({ file });
    // The search began (an embedding call, a rerank still to come), then the user cleared the log.
    const began = log.mark();
    await log.clear();
    expect(await log.recordSearch(search("began before the clear"), began)).toBeNull();
    expect(log.problem).toBeNull();
    expect(file.current).toBe("");
    expect(await log.recordSearch(search("began after"), log.mark())).not.toBeNull();
    expect((await log.read()).lines).toMatchObject([{ query: "began after" }]);
  });

  it("a click on a result of a search logged before a clear is not written after it", async () => {
    const file = new MemoryQueryLogFile();
    const log = new QueryLog({ file });
    const old = (await log.recordSearch(search("private matter")))!;
    await log.clear();
    // The results are still on screen: the user opens one after clearing.
    await log.recordClick(old, "Health/Private matter.md", 1);
    expect(file.current).toBe("");
    const fresh = (await log.recordSearch(search("after")))!;
    await log.recordClick(fresh, "b.md", 2);
    expect((await log.read()).lines.map((l) => l.type)).toEqual(["search", "click"]);
  });

  it("says of a search that it was level 1's spelling fallback, and reads lines that do not say", async () => {
    const file = new MemoryQueryLogFile();
    const log = new QueryLog({ file });
    await log.recordSearch({ ...search("kit"), level: 1, loose: true });
    await log.recordSearch({ ...search("kitten"), level: 1 });
    const { lines, skipped } = await log.read();
    expect(skipped).toBe(0);
    expect(lines.map((l) => l.type === "search" && l.loose)).toEqual([true, undefined]);
    expect(file.current.split("\n")[1]).not.toContain("loose");
  });
});
