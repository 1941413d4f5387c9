import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { IndexedDbCache } from "../../src/plugin/indexeddb-cache";
import { FakeIndexedDb } from "./fake-indexeddb";

describe("IndexedDB index cache", () => {
  let idb: FakeIndexedDb;
  let warnings: string[];

  beforeEach(() => {
    idb = new FakeIndexedDb();
    warnings = [];
    vi.spyOn(console, "warn").mockImplementation((...args: unknown[]) => void warnings.push(args.map(String).join(" ")));
  });
  afterEach(() => vi.restoreAllMocks());

  const records = (vault: string) => idb.databases.get(`vault-research-cache/${vault}`)!.stores.get("index")!;

  it("gives back each part as it was saved, typed arrays included, in a later session too", async () => {
    await new IndexedDbCache("vault-a", idb.asFactory()).write("manifest", { notes: 3 });
    await new IndexedDbCache("vault-a", idb.asFactory()).write("segment-1-0", { postings: Uint32Array.from([1, 2, 3]) });
    const later = new IndexedDbCache("vault-a", idb.asFactory());
    expect(await later.read("manifest")).toEqual({ notes: 3 });
    expect(await later.read("segment-1-0")).toEqual({ postings: Uint32Array.from([1, 2, 3]) });
    expect((await later.names()).sort()).toEqual(["manifest", "segment-1-0"]);
  });

  it("keeps one cache per vault", async () => {
    await new IndexedDbCache("vault-a", idb.asFactory()).write("manifest", { a: 1 });
    await new IndexedDbCache("vault-b", idb.asFactory()).write("manifest", { b: 1 });
    expect(await new IndexedDbCache("vault-a", idb.asFactory()).read("manifest")).toEqual({ a: 1 });
    expect(await new IndexedDbCache("vault-b", idb.asFactory()).read("manifest")).toEqual({ b: 1 });
    expect([...idb.databases.keys()]).toEqual(["vault-research-cache/vault-a", "vault-research-cache/vault-b"]);
  });

  it("loads nothing from an empty or cleared cache, and removes parts by name", async () => {
    const cache = new IndexedDbCache("v", idb.asFactory());
    expect(await cache.read("manifest")).toBeNull();
    expect(await cache.names()).toEqual([]);
    await cache.write("manifest", { m: 1 });
    await cache.write("segment-1-0", { s: 1 });
    await cache.remove(["segment-1-0", "segment-9-9"]);
    expect(await cache.names()).toEqual(["manifest"]);
    await cache.clear();
    expect(await cache.read("manifest")).toBeNull();
  });

  it("treats a record that is not a part as no cache, and drops the earlier format's record", async () => {
    const cache = new IndexedDbCache("v", idb.asFactory());
    await cache.write("manifest", { m: 1 });
    records("v").set("index-v1", '{"the old":"single record"}');
    records("v").set("v2/manifest", "not a part");
    expect(await cache.read("manifest")).toBeNull();
    expect(warnings.join("\n")).toMatch(/unexpected/);
    expect(await cache.names()).toEqual(["manifest"]);
    await cache.write("manifest", { m: 2 });
    expect(records("v").has("index-v1")).toBe(false);
  });

  // A write that kept nothing must not say it was kept: the index would record a save that never
  // happened, and the embedding keeper would never tell the user the vectors are not being saved.
  it.each(["error", "blocked", "throw"] as const)("works as no cache when opening fails (%s), and a write says it kept nothing", async (fault) => {
    idb.faults.open = fault;
    const cache = new IndexedDbCache("v", idb.asFactory());
    await expect(cache.write("manifest", { m: 1 })).rejects.toThrow(/could not be opened/);
    await expect(cache.read("manifest")).resolves.toBeNull();
    await expect(cache.names()).resolves.toEqual([]);
    await expect(cache.clear()).resolves.toBeUndefined();
    expect(warnings.length).toBeGreaterThan(0);
    expect(warnings[0]).toMatch(/Vault Research/);
  });

  it("works as no cache when IndexedDB does not exist at all, and a write says it kept nothing", async () => {
    const cache = new IndexedDbCache("v", undefined);
    await expect(cache.write("manifest", { m: 1 })).rejects.toThrow(/not available/);
    await expect(cache.read("manifest")).resolves.toBeNull();
    expect(warnings[0]).toMatch(/not available/);
  });

  it("opens the database again at the next use after opening failed (a save tried again can then work)", async () => {
    idb.faults.open = "error";
    const cache = new IndexedDbCache("v", idb.asFactory());
    await expect(cache.write("manifest", { m: 1 })).rejects.toThrow();
    idb.faults.open = undefined;
    await cache.write("manifest", { m: 2 });
    expect(await cache.read("manifest")).toEqual({ m: 2 });
    expect(await new IndexedDbCache("v", idb.asFactory()).read("manifest")).toEqual({ m: 2 });
  });

  it("survives a failed write, says so (the index then keeps its changes for the next save), and keeps the previous copy", async () => {
    const cache = new IndexedDbCache("v", idb.asFactory());
    await cache.write("manifest", { version: "old" });
    idb.faults.write = true;
    await expect(cache.write("manifest", { version: "new" })).rejects.toThrow(/Quota/);
    expect(warnings.join("\n")).toMatch(/could not save/);
    idb.faults.write = false;
    expect(await cache.read("manifest")).toEqual({ version: "old" });
  });

  it("opens the database once per session", async () => {
    const cache = new IndexedDbCache("v", idb.asFactory());
    await cache.write("manifest", { a: 1 });
    await cache.read("manifest");
    await cache.names();
    expect(idb.openCalls).toBe(1);
  });
});
