// The IndexedDB caches when another window acts on the same database: a version change (another
// window deleting or upgrading it) closes our connection so it is not held up, and the next read or
// write opens a new one rather than failing for the rest of the session.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { IndexedDbCache } from "../../src/plugin/indexeddb-cache";
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
    await vectors.save(Uint8Array.from([1, 2]));
    idb.versionChangeElsewhere("vault-research-vectors/vault-a");
    await vectors.save(Uint8Array.from([3, 4]));
    expect(await vectors.load()).toEqual(Uint8Array.from([3, 4]));
  });
});
