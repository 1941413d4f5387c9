// The IndexedDB caches when another window acts on the same database: a version change (another
// window deleting or upgrading it) closes our connection so it is not held up, and the next read or
// write opens a new one rather than failing for the rest of the session.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { IndexedDbCache } from "../../src/plugin/indexeddb-cache";
import { IndexedDbQueryLogFile } from "../../src/plugin/indexeddb-query-log-file";
import { IndexedDbVectorCache } from "../../src/plugin/indexeddb-vector-cache";
import { FakeIndexedDb } from "./fake-indexeddb";

let idb: FakeIndexedDb;

beforeEach(() => {
  idb = new FakeIndexedDb();
  vi.spyOn(console, "warn").mockImplementation(() => {});
});
afterEach(() => vi.restoreAllMocks());

describe("IndexedDB caches and another window", () => {
  it("closes the index cache's connection at a version change, and opens a new one for the next write", async () => {
    const cache = new IndexedDbCache("vault-a", idb.asFactory());
    await cache.write("manifest", { notes: 1 });
    idb.versionChangeElsewhere("vault-research-cache/vault-a");
    expect(idb.openConnections("vault-research-cache/vault-a")).toBe(0);
    await cache.write("manifest", { notes: 2 });
    expect(await cache.read("manifest")).toEqual({ notes: 2 });
  });

  it("does the same for the stored vectors", async () => {
    const vectors = new IndexedDbVectorCache("vault-a", idb.asFactory());
    await vectors.write("vectors", Uint8Array.from([1, 2]));
    idb.versionChangeElsewhere("vault-research-vectors/vault-a");
    await vectors.write("vectors", Uint8Array.from([3, 4]));
    expect(await vectors.read("vectors")).toEqual(Uint8Array.from([3, 4]));
  });

  // Disabled, or replaced by an update, the plugin left its connections open: the next use after
  // close opened a new one and kept it for good.
  it("close lets the connection go once the save under way is done, and a save after it (the unload's last) keeps none open", async () => {
    const cache = new IndexedDbCache("vault-a", idb.asFactory());
    await cache.write("manifest", { notes: 1 });
    const saving = cache.write("manifest", { notes: 2 });
    cache.close();
    await saving;
    expect(idb.openConnections("vault-research-cache/vault-a")).toBe(0);
    await cache.write("manifest", { notes: 3 });
    expect(await cache.available()).toBe(true);
    expect(idb.openConnections("vault-research-cache/vault-a")).toBe(0);
    expect(await new IndexedDbCache("vault-a", idb.asFactory()).read("manifest")).toEqual({ notes: 3 });
  });

  it("the vectors and the query log close the same way", async () => {
    const vectors = new IndexedDbVectorCache("vault-a", idb.asFactory());
    const log = new IndexedDbQueryLogFile("vault-a", null, idb.asFactory());
    await vectors.write("vectors", Uint8Array.from([1]));
    await log.append("one\n");
    vectors.close();
    log.close();
    await log.append("two\n");
    expect(idb.openConnections("vault-research-vectors/vault-a")).toBe(0);
    expect(idb.openConnections("vault-research-query-log/vault-a")).toBe(0);
    expect((await log.read()).current).toBe("one\ntwo\n");
  });
});
