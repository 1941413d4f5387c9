import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { IndexCache } from "../../src/ports";
import { IndexedDbCache } from "../../src/plugin/indexeddb-cache";
import { VaultIndex } from "../../src/index/vault-index";
import { describeRebuildReason } from "../../src/index/rebuild-reason";
import { ControlledStore } from "../support/controlled-note-store";
import { fakeClock, FAKE_NOW } from "../support/fake-clock";
import { stringMatching } from "../support/typed-matchers";
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

  it("refuses a record that is not a part, and drops the earlier format's record", async () => {
    const cache = new IndexedDbCache("v", idb.asFactory());
    await cache.write("manifest", { m: 1 });
    records("v").set("index-v1", '{"the old":"single record"}');
    records("v").set("v2/manifest", "not a part");
    await expect(cache.read("manifest")).rejects.toThrow(/the part manifest is not stored with its checksum/);
    expect(warnings.join("\n")).toMatch(/index cache.*made again from the notes/);
    expect(await cache.names()).toEqual(["manifest"]);
    await cache.write("manifest", { m: 2 });
    expect(records("v").has("index-v1")).toBe(false);
    expect(await cache.read("manifest")).toEqual({ m: 2 });
  });

  // A write that kept nothing must not say it was kept: the index would record a save that never
  // happened, and the embedding keeper would never tell the user the vectors are not being saved.
  it.each(["error", "blocked", "throw"] as const)("works as no cache when opening fails (%s), and a write or a listing says it could not", async (fault) => {
    idb.faults.open = fault;
    const cache = new IndexedDbCache("v", idb.asFactory());
    await expect(cache.write("manifest", { m: 1 })).rejects.toThrow(/could not be opened/);
    await expect(cache.read("manifest")).resolves.toBeNull();
    await expect(cache.names()).rejects.toThrow(/could not be opened/);
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

  // A listing that failed read as an empty cache: the save took every segment it kept for one another
  // process had taken away, and wrote the whole index again.
  it("says a listing failed, so a save writes only what changed rather than every segment again", async () => {
    const store = new ControlledStore();
    for (const name of ["One", "Two", "Three"]) store.write(`${name}.md`, `# ${name}\n\nA note called ${name}.\n`);
    const clock = fakeClock(FAKE_NOW + 3_600_000);
    const index = new VaultIndex({ clock });
    const cache = new IndexedDbCache("v", idb.asFactory());
    await index.sync(store, cache);
    await index.save(cache);
    store.write("Four.md", "# Four\n\nA note called Four.\n", FAKE_NOW + 10);
    await index.updateFile(store, "Four.md");
    idb.faults.read = true;
    const written: string[] = [];
    const write = cache.write.bind(cache);
    cache.write = (name, value) => {
      written.push(name);
      return write(name, value);
    };
    await index.save(cache);
    idb.faults.read = false;
    expect(written).toEqual([stringMatching(/^segment-[0-9a-f]{16}-3$/), "manifest"]);
    expect(await new VaultIndex({ clock }).sync(store, new IndexedDbCache("v", idb.asFactory()))).toMatchObject({ mode: "cache", added: 0, updated: 0 });
  });

  // Obsidian closed (or, on a phone, put away) while a save wrote its segments: the next session
  // found them unlisted with no date to go by, and left them until two of its saves ten minutes
  // apart; a session shorter than that never took them away, and each such session added its own.
  it("takes away at the next session's first save the segments a session killed mid-save left, by their write time", async () => {
    const store = new ControlledStore();
    for (const name of ["One", "Two", "Three"]) store.write(`${name}.md`, `# ${name}\n\nA note called ${name}.\n`);
    const clock = fakeClock(FAKE_NOW + 3_600_000);
    const session = async (): Promise<{ index: VaultIndex; cache: IndexedDbCache }> => {
      const cache = new IndexedDbCache("v", idb.asFactory(), undefined, () => clock.now());
      const index = new VaultIndex({ clock });
      await index.sync(store, cache);
      return { index, cache };
    };
    const first = await session();
    await first.index.save(first.cache);
    store.write("Four.md", "# Four\n\nA note called Four.\n", clock.now());
    await first.index.updateFile(store, "Four.md");
    const killed: IndexCache = { read: (n) => first.cache.read(n), names: () => first.cache.names(), remove: (n) => first.cache.remove(n), clear: () => first.cache.clear(), write: (n, v) => (n === "manifest" ? Promise.reject(new Error("killed")) : first.cache.write(n, v)) };
    await expect(first.index.save(killed)).rejects.toThrow(/killed/);
    const unlisted = async (cache: IndexedDbCache) => {
      const manifest = (await cache.read("manifest")) as { segments: { name: string }[] };
      const listed = new Set(["manifest", ...manifest.segments.map((s) => s.name)]);
      return (await cache.names()).filter((name) => !listed.has(name));
    };
    expect(await unlisted(first.cache)).toHaveLength(1);

    clock.advance(3_600_000);
    const second = await session();
    for (const note of ["Five", "Six"]) {
      clock.advance(60_000);
      store.write(`${note}.md`, `# ${note}\n\nA note called ${note}.\n`, clock.now());
      await second.index.updateFile(store, `${note}.md`);
      await second.index.save(second.cache);
    }
    expect(await unlisted(second.cache)).toEqual([]);
  });

  it("opens the database once per session", async () => {
    const cache = new IndexedDbCache("v", idb.asFactory());
    await cache.write("manifest", { a: 1 });
    await cache.read("manifest");
    await cache.names();
    expect(idb.openCalls).toBe(1);
  });

  describe("a part damaged where it is stored", () => {
    /** A vault of four notes, indexed and saved into the fake IndexedDB. */
    async function savedVault(): Promise<ControlledStore> {
      const store = new ControlledStore();
      store.write("Alpha.md", "# Alpha\n\nAbout aardvarks.\n");
      store.write("Beta.md", "# Beta\n\nAbout badgers.\n");
      store.write("Gamma.md", "# Gamma\n\nAbout gazelles.\n");
      store.write("Delta.md", "# Delta\n\nAbout dolphins.\n");
      const index = new VaultIndex({ clock: fakeClock() });
      await index.sync(store, new IndexedDbCache("v", idb.asFactory()));
      await index.save(new IndexedDbCache("v", idb.asFactory()));
      return store;
    }

    /** The stored segment (a checksummed record holds it as `part`): its terms, as the disk holds them. */
    function storedTerms(): string[] {
      const key = [...records("v").keys()].find((k) => typeof k === "string" && k.startsWith("v2/segment-"))!;
      const record = records("v").get(key) as { part?: { terms: string[] }; terms?: string[] };
      return (record.part ?? (record as { terms: string[] })).terms;
    }

    // Two words trade places on disk: each is still a possible term, so the part has a possible
    // shape, and without a checksum a search for badgers found the note about aardvarks.
    it("is refused, and the index is built from the notes, so a search finds the right note", async () => {
      const store = await savedVault();
      const terms = storedTerms();
      const [a, b] = [terms.indexOf("aardvark"), terms.indexOf("badger")];
      expect(a).toBeGreaterThanOrEqual(0);
      expect(b).toBeGreaterThanOrEqual(0);
      [terms[a], terms[b]] = [terms[b], terms[a]];

      const index = new VaultIndex({ clock: fakeClock() });
      const report = await index.sync(store, new IndexedDbCache("v", idb.asFactory()));
      expect(report.mode).toBe("rebuild");
      expect(report.rebuildReason).toEqual({ kind: "corrupt", detail: stringMatching(/^the part segment-[0-9a-f]{16}-0 does not match its checksum$/) });
      expect(warnings.join("\n")).toMatch(/segment-[0-9a-f]{16}-0 does not match its checksum/);
      expect((await index.search("badgers", store)).map((r) => r.path)).toEqual(["Beta.md"]);
    });

    it("is replaced by the rebuild's save, after which the cache loads again", async () => {
      const store = await savedVault();
      const terms = storedTerms();
      terms[0] = `${terms[0]}x`;
      const rebuilt = new VaultIndex({ clock: fakeClock() });
      expect((await rebuilt.sync(store, new IndexedDbCache("v", idb.asFactory()))).mode).toBe("rebuild");
      await rebuilt.save(new IndexedDbCache("v", idb.asFactory()));
      const next = new VaultIndex({ clock: fakeClock() });
      expect((await next.sync(store, new IndexedDbCache("v", idb.asFactory()))).mode).toBe("cache");
    });

    // A cache saved before parts had a checksum is rebuilt once, with a reason of its own (an
    // upgrade, which the plugin does not show as damage, and says nothing of in the console), then loads.
    it("saved by an earlier version, without a checksum, is a rebuild once, with its reason", async () => {
      const store = await savedVault();
      for (const [key, record] of records("v")) records("v").set(key, (record as { part: unknown }).part);
      const first = new VaultIndex({ clock: fakeClock() });
      const report = await first.sync(store, new IndexedDbCache("v", idb.asFactory()));
      expect(report.rebuildReason).toEqual({ kind: "saved_without_checksums" });
      expect(describeRebuildReason(report.rebuildReason!)).toBe("cache was saved by an earlier version, without checksums");
      expect(warnings).toEqual([]);
      await first.save(new IndexedDbCache("v", idb.asFactory()));
      const next = new VaultIndex({ clock: fakeClock() });
      expect((await next.sync(store, new IndexedDbCache("v", idb.asFactory()))).mode).toBe("cache");
      expect((await next.search("badgers", store)).map((r) => r.path)).toEqual(["Beta.md"]);
    });
  });

  // The plugin reloaded while its last save ran, with stemming switched off in between: the new
  // index rebuilt and saved under the count of saves it started again from, over a segment the old
  // one's next save still listed, and the next start searched with postings of other words.
  it("never names another save's segment in a manifest, when a reloaded plugin saves beside the old one", async () => {
    const store = new ControlledStore();
    store.write("Runner.md", "# Jogging\n\nShe runs every morning.\n");
    store.write("Other.md", "# Other\n\nNothing here about that.\n");
    // An hour after the notes' dates: read then, they are vouched for by date and size, not read again.
    const clock = fakeClock(FAKE_NOW + 3_600_000);
    const before = new VaultIndex({ clock, stemming: true });
    await before.sync(store, new IndexedDbCache("v", idb.asFactory()));
    await before.save(new IndexedDbCache("v", idb.asFactory()));
    const reloaded = new VaultIndex({ clock, stemming: false });
    await reloaded.sync(store, new IndexedDbCache("v", idb.asFactory()));
    await reloaded.save(new IndexedDbCache("v", idb.asFactory()));
    store.write("New.md", "# New\n\nA new note.\n");
    await before.updateFile(store, "New.md");
    await before.save(new IndexedDbCache("v", idb.asFactory()));
    const next = new VaultIndex({ clock, stemming: true });
    await next.sync(store, new IndexedDbCache("v", idb.asFactory()));
    expect((await next.search("running", store)).map((r) => r.path)).toEqual(["Runner.md"]);
  });
});
