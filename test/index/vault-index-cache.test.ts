// Persistence: a saved index comes back without reading unchanged notes, re-reads only what
// changed by mtime or size, drops what is gone, and any unusable cache means a rebuild with a
// reason, never a crash.
import fc from "fast-check";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { ControlledStore } from "../support/controlled-note-store";
import { INDEX_FORMAT_VERSION } from "../../src/index/cache-file";
import { describeRebuildReason } from "../../src/index/rebuild-reason";
import type { SyncReport } from "../../src/index/types";
import { VaultIndex } from "../../src/index/vault-index";
import { fakeClock, FAKE_NOW } from "../support/fake-clock";
import { MemoryIndexCache } from "../support/memory-index-cache";
import { partsOf, withReplaced } from "./cache-parts";

/** Any JSON value, or nothing at all (the part is then missing). */
const valueOrNothing = fc.oneof(fc.jsonValue(), fc.constant(undefined));

let store: ControlledStore;
let cache: MemoryIndexCache;

beforeEach(async () => {
  store = new ControlledStore();
  store.write("Alpha.md", "# Alpha\n\nAbout aardvarks.\n");
  store.write("Beta.md", "# Beta\n\nAbout badgers.\n");
  store.write("Gamma.md", "# Gamma\n\nAbout gazelles.\n");
  store.write("Delta.md", "# Delta\n\nAbout dolphins.\n");
  cache = new MemoryIndexCache();
  // Indexed a minute after the notes were written: read clearly after their dates, which vouch for them from then on.
  const first = new VaultIndex({ clock: fakeClock(FAKE_NOW + 60_000) });
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

  // A manifest's averages skew every score of every search until the next rebuild, so a load
  // computes them again from the notes' field lengths instead of trusting them.
  it.each([
    ["no numbers", Number.NaN],
    ["negative numbers", -5],
    ["huge numbers", 1e30],
    ["nulls", null],
  ])("scores as the saved index did when the manifest's average field lengths are %s", async (_name, value) => {
    store.write("Long.md", "# Long\n\nAbout aardvarks, badgers, bisons and many other beasts of the field and the forest.\n");
    const saved = new VaultIndex({ clock: fakeClock() });
    await saved.sync(store, null);
    await saved.save(cache);
    const scores = async (index: VaultIndex) => (await index.search("about aardvarks", store)).map((r) => [r.path, r.score]);
    const expected = await scores(saved);
    const manifest = cache.manifest();
    cache.parts.set("manifest", { ...manifest, averageFieldLength: manifest.averageFieldLength.map(() => value) });
    const loaded = new VaultIndex({ clock: fakeClock() });
    expect((await loaded.sync(store, cache)).mode).toBe("cache");
    expect(await scores(loaded)).toEqual(expected);
    expect(expected.every(([, score]) => Number.isFinite(score))).toBe(true);
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

describe("the notes a question names", () => {
  // Many notes about rivers, and one called by a name the question says, with few of its words.
  beforeEach(() => {
    for (let i = 0; i < 6; i++) store.write(`River ${i}.md`, `# River ${i}\n\nWho mapped the river delta, and the river mouth.\n`);
    store.write("Delta Force.md", "---\naliases: [The Unit]\n---\n");
  });
  const top3 = async (index: VaultIndex, question: string) => (await searchPaths(index, question)).slice(0, 3);
  const BY_NAME = "who mapped the delta force river mouth";
  const BY_ALIAS = "the unit that mapped the river delta mouth";

  it("are found by the names a loaded index holds, and follow a rename and a removal", async () => {
    const words = new VaultIndex({ clock: fakeClock(), ranking: { namedPlace: null } });
    await words.sync(store, null);
    // The words alone leave the note out of the top three for both questions.
    expect(await top3(words, BY_NAME)).not.toContain("Delta Force.md");
    expect(await top3(words, BY_ALIAS)).not.toContain("Delta Force.md");
    const built = new VaultIndex({ clock: fakeClock() });
    await built.sync(store, cache);
    await built.save(cache);
    const loaded = new VaultIndex({ clock: fakeClock() });
    expect(await loaded.sync(store, cache)).toMatchObject({ mode: "cache" });
    expect((await top3(loaded, BY_NAME))[2]).toBe("Delta Force.md");
    expect((await top3(loaded, BY_ALIAS))[2]).toBe("Delta Force.md");

    store.files.delete("Delta Force.md");
    store.write("Delta Squadron.md", "---\naliases: [The Team]\n---\n");
    await loaded.renameFile(store, "Delta Force.md", "Delta Squadron.md");
    expect(await top3(loaded, BY_NAME)).not.toContain("Delta Squadron.md");
    expect(await top3(loaded, BY_ALIAS)).not.toContain("Delta Squadron.md");
    expect((await top3(loaded, "who mapped the delta squadron river mouth"))[2]).toBe("Delta Squadron.md");
    loaded.removeFile("Delta Squadron.md");
    expect(await searchPaths(loaded, "who mapped the delta squadron river mouth")).not.toContain("Delta Squadron.md");
  });
});

describe("an unusable cache means a rebuild with a reason", () => {
  /** The one segment's name (four notes fit in one). */
  const segment = () => cache.manifest().segments[0].name;
  const corruptions: [string, (c: MemoryIndexCache) => void, RegExp][] = [
    ["garbage", (c) => c.parts.set("manifest", "\u0000not an index at all{"), /not a Vault Research index/],
    ["a segment cut short", (c) => c.parts.set(segment(), { ...(c.parts.get(segment()) as object), postings: new Uint32Array(3) }), /corrupt/],
    ["another program's data", (c) => c.parts.set("manifest", { format: "something-else", version: INDEX_FORMAT_VERSION }), /not a Vault Research index/],
    ["an older format version", (c) => c.parts.set("manifest", { ...c.manifest(), version: INDEX_FORMAT_VERSION - 1 }), /version/],
    // An integer too large to count in exactly: the next note's short id would be one already given.
    ["a next id beyond a safe integer", (c) => c.parts.set("manifest", { ...c.manifest(), nextId: 1e21 }), /counters have the wrong shape/],
    ["a missing segment", (c) => c.parts.delete(segment()), /incomplete/],
    ["a broken segment", (c) => c.parts.set(segment(), { nonsense: true }), /corrupt/],
    ["note rows of the wrong shape", (c) => {
      const part = c.parts.get(segment()) as { notes: unknown[][] };
      c.parts.set(segment(), { ...part, notes: part.notes.map((row) => [...row.slice(0, 9), null]) });
    }, /inconsistent|corrupt/],
    ["a note of a negative size", (c) => {
      const part = c.parts.get(segment()) as { notes: unknown[][] };
      c.parts.set(segment(), { ...part, notes: part.notes.map((row, i) => (i === 0 ? [...row.slice(0, 3), -1, ...row.slice(4)] : row)) });
    }, /^cache is corrupt \(note 1 of 4 of segment segment-[0-9a-f]{16}-0 has the wrong shape\)$/],
    ["a posting of a note the segment does not hold", (c) => {
      const part = c.parts.get(segment()) as { postings: Uint32Array; notes: unknown[] };
      const postings = part.postings.slice();
      postings[3] = part.notes.length;
      c.parts.set(segment(), { ...part, postings });
    }, /^cache is corrupt \(the postings of segment segment-[0-9a-f]{16}-0 name a note out of order\)$/],
    ["a segment said to hold more notes than its range has room for", (c) => {
      const manifest = c.manifest();
      c.parts.set("manifest", { ...manifest, segments: [{ ...manifest.segments[0], notes: 5 }] });
    }, /^cache is corrupt \(segment 1 of 1 has the wrong shape\)$/],
    ["notes that disagree with the manifest", (c) => {
      const part = c.parts.get(segment()) as { notes: unknown[][] };
      c.parts.set(segment(), { ...part, notes: part.notes.slice(1) });
    }, /inconsistent/],
  ];

  it.each(corruptions)("rebuilds from %s", async (_name, corrupt, reason) => {
    corrupt(cache);
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
    const valid = new Map(cache.parts);
    const parts = [...valid].flatMap(([name, value]) => partsOf(value).map((path) => ({ name, path })));
    // A value of the right shape in the wrong place (another note's count, a field's length) can
    // skew a score; MiniSearch may warn about it at the first search that meets it.
    vi.spyOn(console, "warn").mockImplementation(() => {});
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: parts.length - 1 }), valueOrNothing, async (i, value) => {
        const broken = new MemoryIndexCache();
        for (const [name, part] of valid) broken.parts.set(name, name === parts[i].name ? withReplaced(part, parts[i].path, value) : part);
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
        // And what it saves next loads again.
        await index.save(broken);
        const again = await new VaultIndex().sync(store, broken);
        expect(again.mode, again.rebuildReason && describeRebuildReason(again.rebuildReason)).toBe("cache");
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
    cache.failRead = new Error("disk on fire");
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
