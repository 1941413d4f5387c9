// The plugin's query log in IndexedDB: the QueryLogFile port's behaviour (append, size in bytes,
// rotate, read, clear), one log per vault, a write with no IndexedDB failing rather than keeping
// nothing in silence, and the move of an earlier version's file out of the vault's folder.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { QueryLogFile } from "../../src/index/query-log/query-log-file";
import { QueryLog, type SearchToLog } from "../../src/index/query-log/query-log";
import { IndexedDbCache } from "../../src/plugin/indexeddb-cache";
import { IndexedDbQueryLogFile } from "../../src/plugin/indexeddb-query-log-file";
import { FakeIndexedDb } from "./fake-indexeddb";

/** The file an earlier version kept in the plugin's folder, in memory. */
class OldLogFile implements QueryLogFile {
  cleared = 0;
  constructor(
    public previous = "",
    public current = "",
  ) {}
  async append(text: string) {
    this.current += text;
  }
  async size() {
    return this.current.length;
  }
  async rotate() {
    this.previous = this.current;
    this.current = "";
  }
  async read() {
    return { previous: this.previous, current: this.current };
  }
  async clear() {
    this.cleared++;
    this.previous = this.current = "";
  }
}

let idb: FakeIndexedDb;

beforeEach(() => {
  idb = new FakeIndexedDb();
  vi.spyOn(console, "warn").mockImplementation(() => undefined);
});
afterEach(() => vi.restoreAllMocks());

describe("IndexedDbQueryLogFile", () => {
  it("appends, counts bytes, rotates into the previous one and reads both, in a later session too", async () => {
    const log = new IndexedDbQueryLogFile("vault-a", null, idb.asFactory());
    expect(await log.size()).toBe(0);
    await log.append("one é\n");
    expect(await log.size()).toBe(7);
    await log.rotate();
    await log.append("two\n");
    expect(await new IndexedDbQueryLogFile("vault-a", null, idb.asFactory()).read()).toEqual({ previous: "one é\n", current: "two\n" });
    await log.rotate();
    expect(await log.read()).toEqual({ previous: "two\n", current: "" });
  });

  it("keeps one log per vault, and clear empties only its own", async () => {
    const a = new IndexedDbQueryLogFile("vault-a", null, idb.asFactory());
    const b = new IndexedDbQueryLogFile("vault-b", null, idb.asFactory());
    await a.append("a\n");
    await b.append("b\n");
    await a.clear();
    expect(await a.read()).toEqual({ previous: "", current: "" });
    expect(await b.read()).toEqual({ previous: "", current: "b\n" });
  });

  it("with no IndexedDB, a write fails (the log says so) instead of keeping nothing in silence", async () => {
    const log = new IndexedDbQueryLogFile("vault-a", null, undefined);
    await expect(log.append("lost?\n")).rejects.toThrow(/IndexedDB is not available/);
    expect(await log.read()).toEqual({ previous: "", current: "" });
  });

  it("moves an earlier version's file in before the first line, once, and removes the file", async () => {
    const old = new OldLogFile("p1\n", "c1\n");
    const log = new IndexedDbQueryLogFile("vault-a", old, idb.asFactory());
    await log.append("c2\n");
    expect(await log.read()).toEqual({ previous: "p1\n", current: "c1\nc2\n" });
    expect(await old.read()).toEqual({ previous: "", current: "" });
    expect(old.cleared).toBe(1);
    await log.append("c3\n");
    expect(old.cleared).toBe(1);
  });

  it("a read that fails fails the line, and never replaces the log with that one line", async () => {
    const file = new IndexedDbQueryLogFile("vault-a", null, idb.asFactory());
    const log = new QueryLog({ file });
    const search: SearchToLog = { query: "kites", level: 1, ranLevel: 1, filters: { folders: [], tags: [] }, results: [], latencyMs: 1, surface: "cli" };
    for (let i = 0; i < 3; i++) expect(await log.recordSearch(search)).not.toBeNull();
    idb.faults.read = true;
    expect(await log.recordSearch({ ...search, query: "after the fault" })).toBeNull();
    expect(log.problem).toMatch(/^The query log could not be written/);
    idb.faults.read = false;
    const { current } = await file.read();
    expect(current.split("\n").filter(Boolean).map((line) => (JSON.parse(line) as { query: string }).query)).toEqual(["kites", "kites", "kites"]);
  });

  it("keeps the old file where it was when the move cannot be made, and clearing the log clears it too", async () => {
    const old = new OldLogFile("", "kept\n");
    const log = new IndexedDbQueryLogFile("vault-a", old, undefined);
    await expect(log.append("x\n")).rejects.toThrow();
    expect(old.current).toBe("kept\n");
    await log.clear();
    expect(old.current).toBe("");
  });

  it("reads the current log once per logged search, not once to size it and again to append", async () => {
    const file = new IndexedDbQueryLogFile("vault-a", null, idb.asFactory());
    await new QueryLog({ file }).recordSearch(searchToLog("first"));
    // Room for two lines of this length, not three.
    const log = new QueryLog({ file, maxBytes: Math.floor((await file.size()) * 2.5) });
    const reads = vi.spyOn(IndexedDbCache.prototype, "readOrFail");
    await log.recordSearch(searchToLog("second"));
    expect(reads.mock.calls.map(([name]) => name)).toEqual(["current"]);
    // One that rotates first reads no more: the text it read to size the log is the text it moves.
    reads.mockClear();
    await log.recordSearch(searchToLog("third"));
    expect(reads.mock.calls.map(([name]) => name)).toEqual(["current"]);
    const { previous, current } = await file.read();
    expect([previous.split("\n").filter(Boolean).length, current.split("\n").filter(Boolean).length]).toEqual([2, 1]);
    expect((await log.read()).lines.map((l) => l.type === "search" && l.query)).toEqual(["first", "second", "third"]);
  });

  it("a clear that IndexedDB refuses fails, so the clear-log command does not say the log is cleared while it is not", async () => {
    const file = new IndexedDbQueryLogFile("vault-a", null, idb.asFactory());
    const log = new QueryLog({ file });
    await log.recordSearch(searchToLog("private matter"));
    idb.faults.write = true;
    await expect(log.clear()).rejects.toThrow(/Quota exceeded/);
    idb.faults.write = false;
    expect((await log.read()).lines).toHaveLength(1);
    // Blocked by another window: the log may be in there, so it is not said to be cleared.
    idb.faults.open = "blocked";
    await expect(new IndexedDbQueryLogFile("vault-a", null, idb.asFactory()).clear()).rejects.toThrow();
    idb.faults.open = undefined;
    await log.clear();
    expect(await file.read()).toEqual({ previous: "", current: "" });
  });

  it("reads the log afresh for a line after a rotation, a clear or a failed write, never an old copy", async () => {
    const file = new IndexedDbQueryLogFile("vault-a", null, idb.asFactory());
    await file.append("a\n");
    await file.size();
    await file.clear();
    await file.append("b\n");
    expect(await file.read()).toEqual({ previous: "", current: "b\n" });
    await file.size();
    idb.faults.write = true;
    await expect(file.append("lost\n")).rejects.toThrow();
    idb.faults.write = false;
    // Another window logs a line in between: the next line goes after it, not over it.
    await new IndexedDbQueryLogFile("vault-a", null, idb.asFactory()).append("elsewhere\n");
    await file.append("c\n");
    expect(await file.read()).toEqual({ previous: "", current: "b\nelsewhere\nc\n" });
  });
});

function searchToLog(query: string): SearchToLog {
  return { query, level: 1, ranLevel: 1, filters: { folders: [], tags: [] }, results: ["a.md"], latencyMs: 3, surface: "search-modal" };
}
