// The plugin's query log in IndexedDB: the QueryLogFile port's behaviour (append, size in bytes,
// rotate, read, clear), one log per vault, a write with no IndexedDB failing rather than keeping
// nothing in silence, and the move of an earlier version's file out of the vault's folder.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { QueryLogFile } from "../../src/index/query-log/query-log-file";
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

  it("keeps the old file where it was when the move cannot be made, and clearing the log clears it too", async () => {
    const old = new OldLogFile("", "kept\n");
    const log = new IndexedDbQueryLogFile("vault-a", old, undefined);
    await expect(log.append("x\n")).rejects.toThrow();
    expect(old.current).toBe("kept\n");
    await log.clear();
    expect(old.current).toBe("");
  });
});
