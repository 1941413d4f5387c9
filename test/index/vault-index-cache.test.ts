// Persistence: a saved index comes back without reading unchanged notes, re-reads only what
// changed by mtime or size, drops what is gone, and any unusable cache means a rebuild with a
// reason, never a crash.
import fc from "fast-check";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { IndexCache } from "../../src/ports";
import { ControlledStore } from "../support/controlled-note-store";
import { INDEX_FORMAT_VERSION } from "../../src/index/cache-file";
import { describeRebuildReason } from "../../src/index/rebuild-reason";
import type { SyncReport } from "../../src/index/types";
import { VaultIndex } from "../../src/index/vault-index";
import { fakeClock, FAKE_NOW } from "../support/fake-clock";
import { partsOf, replaced } from "./json-parts";

/** Any JSON value, or nothing at all (the part is then missing from the file). */
const valueOrNothing = fc.oneof(fc.jsonValue(), fc.constant(undefined));

class MemoryCache implements IndexCache {
  data: string | null = null;
  failLoad: Error | null = null;

  async load(): Promise<string | null> {
    if (this.failLoad) throw this.failLoad;
    return this.data;
  }

  async save(data: string): Promise<void> {
    this.data = data;
  }

  async clear(): Promise<void> {
    this.data = null;
  }
}

let store: ControlledStore;
let cache: MemoryCache;

beforeEach(async () => {
  store = new ControlledStore();
  store.write("Alpha.md", "# Alpha\n\nAbout aardvarks.\n");
  store.write("Beta.md", "# Beta\n\nAbout badgers.\n");
  store.write("Gamma.md", "# Gamma\n\nAbout gazelles.\n");
  store.write("Delta.md", "# Delta\n\nAbout dolphins.\n");
  cache = new MemoryCache();
  const first = new VaultIndex({ clock: fakeClock() });
  const report = await first.sync(store, cache);
  expect(report).toMatchObject({ mode: "rebuild", rebuildReason: { kind: "no_cache" }, added: 4 });
  expect(reasonWords(report)).toBe("no cache");
  await first.save(cache);
  store.reads.length = 0;
});

/** The rebuild reason in the words the CLI shows. */
function reasonWords(report: SyncReport): string | undefined {
  return report.rebuildReason && describeRebuildReason(report.rebuildReason);
}

async function searchPaths(index: VaultIndex, query: string): Promise<string[]> {
  return (await index.search(query, store)).map((r) => r.path);
}

describe("loading a saved index", () => {
  it("comes back from the cache without reading a single unchanged note", async () => {
    const index = new VaultIndex({ clock: fakeClock() });
    const report = await index.sync(store, cache);
    expect(report).toMatchObject({ mode: "cache", added: 0, updated: 0, removed: 0, unchanged: 4 });
    expect(report.rebuildReason).toBeUndefined();
    expect(store.reads).toEqual([]);
    expect(index.status()).toMatchObject({ notes: 4, state: "ready" });
    expect(await searchPaths(index, "badgers")).toEqual(["Beta.md"]);
    expect(index.note("Beta.md")?.title).toBe("Beta");
  });

  it("re-reads only notes whose mtime or size changed, adds new ones and drops deleted ones", async () => {
    store.write("Alpha.md", "# Alpha\n\nAbout aardvarks.\n", FAKE_NOW + 1000); // same text, newer mtime
    store.write("Beta.md", "# Beta\n\nAbout bisons.\n"); // same mtime, different size
    store.files.delete("Gamma.md");
    store.write("Epsilon.md", "# Epsilon\n\nAbout eels.\n");
    const index = new VaultIndex({ clock: fakeClock() });
    const report = await index.sync(store, cache);
    expect(report).toMatchObject({ mode: "cache", added: 1, updated: 2, removed: 1, unchanged: 1 });
    expect(store.reads.sort()).toEqual(["Alpha.md", "Beta.md", "Epsilon.md"]);
    expect(index.paths().sort()).toEqual(["Alpha.md", "Beta.md", "Delta.md", "Epsilon.md"]);
    expect(await searchPaths(index, "bisons")).toEqual(["Beta.md"]);
    expect(await searchPaths(index, "badgers")).toEqual([]);
    expect(await searchPaths(index, "gazelles")).toEqual([]);
  });

  it("keeps a note's source URLs and problems across a save", async () => {
    store.write("Clip.md", "---\nsource: https://example.com/a\n---\n# Clip\n");
    store.write("Broken.md", "---\ntitle: never closed\n\nbody\n");
    const first = new VaultIndex();
    await first.sync(store, null);
    await first.save(cache);
    const index = new VaultIndex();
    await index.sync(store, cache);
    expect(index.notesWithSourceUrl("https://example.com/a")).toEqual(["Clip.md"]);
    expect(index.status().problems.map((p) => p.path)).toEqual(["Broken.md"]);
  });
});

describe("an unusable cache means a rebuild with a reason", () => {
  const corruptions: [string, (valid: string) => string, RegExp][] = [
    ["garbage", () => "\u0000not json at all{", /corrupt/],
    ["truncated JSON", (valid) => valid.slice(0, Math.floor(valid.length / 2)), /corrupt/],
    ["another program's JSON", () => JSON.stringify({ format: "something-else", version: INDEX_FORMAT_VERSION }), /not a Vault Research index/],
    ["an older format version", (valid) => JSON.stringify({ ...JSON.parse(valid), version: INDEX_FORMAT_VERSION - 1 }), /version/],
    ["a missing engine", (valid) => JSON.stringify({ ...JSON.parse(valid), engine: null }), /incomplete/],
    ["a broken engine", (valid) => JSON.stringify({ ...JSON.parse(valid), engine: { nonsense: true } }), /corrupt/],
    ["note rows of the wrong shape", (valid) => JSON.stringify({ ...JSON.parse(valid), notes: JSON.parse(valid).notes.map((row: unknown[]) => [...row.slice(0, 7), null]) }), /inconsistent|corrupt/],
    ["notes that disagree with the engine", (valid) => JSON.stringify({ ...JSON.parse(valid), notes: JSON.parse(valid).notes.slice(1) }), /inconsistent/],
  ];

  it.each(corruptions)("rebuilds from %s", async (_name, corrupt, reason) => {
    cache.data = corrupt(cache.data!);
    const index = new VaultIndex();
    const report = await index.sync(store, cache);
    expect(report.mode).toBe("rebuild");
    expect(reasonWords(report)).toMatch(reason);
    expect(report.added).toBe(4);
    expect(store.reads.sort()).toEqual(["Alpha.md", "Beta.md", "Delta.md", "Gamma.md"]);
    expect(index.status()).toMatchObject({ notes: 4, problems: [] });
    expect(await searchPaths(index, "dolphins")).toEqual(["Delta.md"]);
  });

  it("loads or rebuilds, and then searches, whatever value replaces whatever part of the cache", async () => {
    const valid = cache.data!;
    const parts = partsOf(JSON.parse(valid));
    // A posting for a note the cache does not list loads, and MiniSearch drops it with a warning
    // at the first search that meets it: harmless, and not worth a pass over every posting.
    vi.spyOn(console, "warn").mockImplementation(() => {});
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: parts.length - 1 }), valueOrNothing, async (i, value) => {
        const broken = new MemoryCache();
        broken.data = replaced(valid, parts[i], value);
        const index = new VaultIndex();
        const report = await index.sync(store, broken);
        expect(report.mode === "cache" || describeRebuildReason(report.rebuildReason).length > 0).toBe(true);
        expect(index.status().notes).toBe(4);
        for (const query of ["dolphins", "about", '"about badgers"', "#zoo", "gazelle"]) await index.search(query, store);
        await index.updateFile(store, "Alpha.md");
        index.removeFile("Beta.md");
        // A value of the right shape but the wrong content (an emptied posting, another note's
        // count) can still skew results; what must hold is that only notes the index holds come back.
        const found = (await index.search("about dolphins", store)).map((r) => r.path);
        expect(found.every((path) => index.paths().includes(path))).toBe(true);
        expect(found).not.toContain("Beta.md");
      }),
      { numRuns: 300 },
    );
  });

  it("rebuilds when the stemming setting changed since the save", async () => {
    const index = new VaultIndex({ stemming: false });
    const report = await index.sync(store, cache);
    expect(report).toMatchObject({ mode: "rebuild", rebuildReason: { kind: "settings_changed" }, added: 4 });
    expect(reasonWords(report)).toBe("index settings changed");
  });

  it("rebuilds when the excluded folders changed since the save", async () => {
    const report = await new VaultIndex({ excludedFolders: ["Archive"] }).sync(store, cache);
    expect(report).toMatchObject({ mode: "rebuild", rebuildReason: { kind: "settings_changed" } });
    expect(reasonWords(report)).toBe("index settings changed");
  });

  it("rebuilds when the cache cannot even be loaded", async () => {
    cache.failLoad = new Error("disk on fire");
    const index = new VaultIndex();
    const report = await index.sync(store, cache);
    expect(report.mode).toBe("rebuild");
    expect(report.rebuildReason).toEqual({ kind: "unreadable", detail: "disk on fire" });
    expect(reasonWords(report)).toContain("disk on fire");
    expect(index.status().notes).toBe(4);
  });

  it("rebuilds from scratch when asked, whatever the cache holds", async () => {
    const index = new VaultIndex();
    await index.sync(store, cache);
    store.reads.length = 0;
    const report = await index.rebuild(store);
    expect(report).toMatchObject({ mode: "rebuild", rebuildReason: { kind: "asked_for" }, added: 4 });
    expect(reasonWords(report)).toBe("asked for");
    expect(store.reads).toHaveLength(4);
  });
});
