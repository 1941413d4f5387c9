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

  it("gives back what was saved, in a later session too", async () => {
    await new IndexedDbCache("vault-a", idb.asFactory()).save('{"notes":3}');
    expect(await new IndexedDbCache("vault-a", idb.asFactory()).load()).toBe('{"notes":3}');
  });

  it("keeps one cache per vault", async () => {
    await new IndexedDbCache("vault-a", idb.asFactory()).save("a");
    await new IndexedDbCache("vault-b", idb.asFactory()).save("b");
    expect(await new IndexedDbCache("vault-a", idb.asFactory()).load()).toBe("a");
    expect(await new IndexedDbCache("vault-b", idb.asFactory()).load()).toBe("b");
    expect([...idb.databases.keys()]).toEqual(["vault-research-cache/vault-a", "vault-research-cache/vault-b"]);
  });

  it("loads nothing from an empty or cleared cache", async () => {
    const cache = new IndexedDbCache("v", idb.asFactory());
    expect(await cache.load()).toBeNull();
    await cache.save("data");
    await cache.clear();
    expect(await cache.load()).toBeNull();
  });

  it("treats a record that is not text as no cache", async () => {
    const cache = new IndexedDbCache("v", idb.asFactory());
    await cache.save("x");
    idb.databases.get("vault-research-cache/v")!.stores.get("index")!.set("index-v1", { corrupt: true });
    expect(await cache.load()).toBeNull();
    expect(warnings.join("\n")).toMatch(/unexpected/);
  });

  it.each(["error", "blocked", "throw"] as const)("works as no cache when opening fails (%s)", async (fault) => {
    idb.faults.open = fault;
    const cache = new IndexedDbCache("v", idb.asFactory());
    await expect(cache.save("data")).resolves.toBeUndefined();
    await expect(cache.load()).resolves.toBeNull();
    await expect(cache.clear()).resolves.toBeUndefined();
    expect(warnings.length).toBeGreaterThan(0);
    expect(warnings[0]).toMatch(/Vault Research/);
  });

  it("works as no cache when IndexedDB does not exist at all", async () => {
    const cache = new IndexedDbCache("v", undefined);
    await expect(cache.save("data")).resolves.toBeUndefined();
    await expect(cache.load()).resolves.toBeNull();
    expect(warnings[0]).toMatch(/not available/);
  });

  it("survives a failed write and keeps the previous copy", async () => {
    const cache = new IndexedDbCache("v", idb.asFactory());
    await cache.save("old");
    idb.faults.write = true;
    await expect(cache.save("new")).resolves.toBeUndefined();
    expect(warnings.join("\n")).toMatch(/could not save/);
    idb.faults.write = false;
    expect(await cache.load()).toBe("old");
  });

  it("opens the database once per session", async () => {
    const cache = new IndexedDbCache("v", idb.asFactory());
    await cache.save("a");
    await cache.load();
    await cache.load();
    expect(idb.openCalls).toBe(1);
  });
});
