// Saving in proportion to the change: the first save writes every segment, a save after one edit
// writes one small segment and the manifest, notes that leave are listed until half a segment has
// gone (then it is written again), small segments are merged before they pile up, a save cut short
// leaves the previous cache whole, and what loads finds what the saved index found. Loading and
// building yield between slices and count the notes up as they go.
import { beforeEach, describe, expect, it } from "vitest";
import type { Clock, IndexCache } from "../../src/ports";
import { parseQuery } from "../../src/index/query";
import type { IndexStatus } from "../../src/index/types";
import { VaultIndex } from "../../src/index/vault-index";
import { ControlledStore } from "../support/controlled-note-store";
import { fakeClock, FAKE_NOW, type FakeClock } from "../support/fake-clock";
import { MemoryIndexCache } from "../support/memory-index-cache";
import { parseNote } from "../../src/index/markdown";
import { SavedIndex, type PersistedIndex } from "../../src/index/saved-index";
import { createEngine, toEngineDoc } from "../../src/index/search-engine";
import { createAnalyzer } from "../../src/index/tokenize";
import type { IndexedNote } from "../../src/index/types";
import { NO_SLICES, type WorkSlice } from "../../src/index/work-slice";
import { INDEX_FORMAT_VERSION } from "../../src/index/cache-file";
import { describeRebuildReason } from "../../src/index/rebuild-reason";
import { listWalkedAtMost } from "./hole-lists";

const NOTES = 2500;
const topics = ["garden", "kitchen", "harbour", "orchard", "workshop", "library", "observatory", "greenhouse"];

function noteText(i: number, edit = ""): string {
  return `# Note ${i} about ${topics[i % topics.length]}\n\nThe ${topics[(i * 3) % topics.length]} log, entry ${i}: word${i % 97} and term${i % 389}.${edit}\n`;
}

let store: ControlledStore;
let cache: MemoryIndexCache;
let index: VaultIndex;

beforeEach(async () => {
  store = new ControlledStore();
  for (let i = 0; i < NOTES; i++) store.write(`n/${String(i).padStart(4, "0")}.md`, noteText(i));
  cache = new MemoryIndexCache();
  index = new VaultIndex();
  await index.sync(store, null);
  await index.save(cache);
});

const segments = () => cache.manifest().segments as { name: string; first: number; end: number; notes: number; left: number[] }[];
const segmentNames = () => segments().map((s) => s.name);

async function edit(i: number, words: string): Promise<void> {
  const path = `n/${String(i).padStart(4, "0")}.md`;
  store.write(path, noteText(i, words), FAKE_NOW + 1000);
  await index.updateFile(store, path);
}

/** Top results with their scores: what a search found, to compare across a save and a load. */
function ranked(vault: VaultIndex, query: string): [string, number][] {
  return vault.rank(parseQuery(query), 10).map((h) => [h.path, h.score]);
}

describe("saving the index", () => {
  it("writes every segment the first time, each of at most a thousand notes, and the manifest last", () => {
    expect(segments().map((s) => s.notes)).toEqual([1000, 1000, 500]);
    expect(cache.written).toEqual([...segmentNames(), "manifest"]);
    expect([...cache.parts.keys()].sort()).toEqual([...segmentNames(), "manifest"].sort());
  });

  it("after one edit writes one small segment and the manifest, and leaves the others as they were", async () => {
    const before = new Map(cache.parts);
    cache.written.length = 0;
    await edit(1500, " Now with otters.");
    await index.save(cache);
    expect(cache.written).toHaveLength(2);
    expect(cache.written[1]).toBe("manifest");
    expect(segments()).toHaveLength(4);
    for (const name of segmentNames().slice(0, 3)) expect(cache.parts.get(name)).toBe(before.get(name));
    // The edited note's old version is listed as gone from its segment.
    expect(segments()[1].left).toHaveLength(1);
    expect(segments()[3].notes).toBe(1);
  });

  it("writes nothing but the manifest when nothing changed", async () => {
    cache.written.length = 0;
    await index.save(cache);
    expect(cache.written).toEqual(["manifest"]);
  });

  it("after 500 edits writes those 500 notes and leaves the segments they came from", async () => {
    cache.written.length = 0;
    for (let i = 0; i < 500; i++) await edit(i * 5, " Revised.");
    await index.save(cache);
    expect(cache.written).toHaveLength(2);
    expect(segments().map((s) => s.notes)).toEqual([1000, 1000, 500, 500]);
    expect(segments().slice(0, 3).map((s) => s.left.length)).toEqual([200, 200, 100]);
  });

  it("writes a segment again once half its notes have gone, and drops one that emptied", async () => {
    for (let i = 0; i < 600; i++) index.removeFile(`n/${String(i).padStart(4, "0")}.md`);
    for (let i = 2000; i < NOTES; i++) index.removeFile(`n/${String(i).padStart(4, "0")}.md`);
    const kept = segmentNames()[1];
    cache.written.length = 0;
    await index.save(cache);
    expect(segments().map((s) => [s.notes, s.left.length])).toEqual([
      [400, 0],
      [1000, 0],
    ]);
    expect(segmentNames()[1]).toBe(kept);
    expect(cache.written).toHaveLength(2);
    // The two it replaced stay ten minutes, for a process that read the manifest naming them.
    expect(cache.parts.size).toBe(3 + 2);
  });

  it("merges small segments before more than four pile up", async () => {
    for (let round = 0; round < 12; round++) {
      await edit(round * 7, ` Round ${round}.`);
      await index.save(cache);
      expect(segments().filter((s) => s.notes - s.left.length < 500).length).toBeLessThanOrEqual(5);
    }
    const loaded = new VaultIndex();
    expect((await loaded.sync(store, cache)).mode).toBe("cache");
    expect(ranked(loaded, "round")).toEqual(ranked(index, "round"));
  });

  it("keeps the previous cache whole when a save fails part-way", async () => {
    await edit(10, " Otters.");
    cache.failWrite = (name) => name === "manifest";
    await expect(index.save(cache)).rejects.toThrow(/disk full/);
    cache.failWrite = null;
    const loaded = new VaultIndex();
    const report = await loaded.sync(store, cache);
    expect(report).toMatchObject({ mode: "cache", updated: 1 });
    // The index remembers what the failed save did not write, and the next save writes it.
    await edit(11, " Beavers.");
    await index.save(cache);
    const again = new VaultIndex();
    expect(await again.sync(store, cache)).toMatchObject({ mode: "cache", updated: 0, added: 0 });
    expect(ranked(again, "otters beavers")).toEqual(ranked(index, "otters beavers"));
    // What the failed save wrote under its own names, no manifest lists: the next save took it away.
    expect([...cache.parts.keys()].sort()).toEqual([...segmentNames(), "manifest"].sort());
  });

  // A rebuild while a save ran kept the save's count from moving on, though its manifest was
  // written: the next save named its segments as that manifest's are named, and wrote over them
  // before its own manifest — cut short there, it left a cache that could not be loaded.
  it("never writes over a part the saved manifest lists, even after a rebuild during a save", async () => {
    for (let i = 0; i < 600; i++) {
      const path = `n/${String(i).padStart(4, "0")}.md`;
      store.files.delete(path);
      index.removeFile(path);
    }
    const during: { rebuild?: Promise<unknown> } = {};
    cache.failWrite = (name) => {
      if (name === "manifest") during.rebuild ??= index.rebuild(store);
      return false;
    };
    await index.save(cache);
    await during.rebuild;
    const listed = new Set(segmentNames());
    const overwritten: string[] = [];
    cache.failWrite = (name) => {
      if (listed.has(name)) overwritten.push(name);
      // Cut short before its manifest (a crash): the previous cache must still load.
      return name === "manifest";
    };
    await expect(index.save(cache)).rejects.toThrow(/disk full/);
    expect(overwritten).toEqual([]);
    cache.failWrite = null;
    expect(await new VaultIndex().sync(store, cache)).toMatchObject({ mode: "cache" });
  });

  // A cache folder that can be written but not listed (permissions, a flaky network share): the
  // manifest and its segments were written, yet the tidy-up's listing rejected the save, and the
  // index command said the cache was not saved.
  it("is done once its manifest is written, though listing the cache to tidy it fails", async () => {
    await edit(12, " Herons.");
    const names = cache.names.bind(cache);
    cache.names = () => Promise.reject(new Error("permission denied, scandir"));
    await expect(index.save(cache)).resolves.toBeUndefined();
    cache.names = names;
    const loaded = new VaultIndex();
    expect(await loaded.sync(store, cache)).toMatchObject({ mode: "cache", updated: 0, added: 0 });
    expect(ranked(loaded, "herons")).toEqual(ranked(index, "herons"));
  });

  // A damaged or hostile manifest: v8 and IndexedDB give back a list of 4 billion holes from a few
  // bytes. The load refused it at its first entry, but the save read it again for the names it was
  // replacing and walked every place (minutes of a frozen save, or of the plugin's thread).
  it("after a manifest whose list of segments says four billion, saves without walking it, and the next start loads", async () => {
    const damaged = { format: "vault-research-index", version: INDEX_FORMAT_VERSION, fingerprint: cache.manifest().fingerprint, savedAt: 0, nextId: 0, averageFieldLength: cache.manifest().averageFieldLength, segments: listWalkedAtMost(2 ** 32 - 1, 100) };
    const read = cache.read.bind(cache);
    let manifestDamaged = true;
    cache.read = (name) => (name === "manifest" && manifestDamaged ? Promise.resolve(damaged) : read(name));
    const write = cache.write.bind(cache);
    cache.write = async (name, value) => {
      await write(name, value);
      if (name === "manifest") manifestDamaged = false;
    };
    const rebuilt = new VaultIndex();
    const report = await rebuilt.sync(store, cache);
    expect(report.mode).toBe("rebuild");
    expect(describeRebuildReason(report.rebuildReason!)).toBe("cache is corrupt (segment 1 of 4294967295 has the wrong shape)");
    await rebuilt.save(cache);
    const loaded = new VaultIndex();
    expect(await loaded.sync(store, cache)).toMatchObject({ mode: "cache", added: 0, updated: 0 });
    expect(ranked(loaded, "harbour entry")).toEqual(ranked(index, "harbour entry"));
  });

  it("calls a cache whose manifest holds such a list under a key no check reads, and lacks a segment, incomplete", async () => {
    const holes: unknown[] = [];
    holes.length = 2 ** 32 - 1;
    cache.parts.set("manifest", { ...cache.manifest(), notes: holes });
    cache.parts.delete(segmentNames()[1]);
    const report = await new VaultIndex().sync(store, cache);
    // Not "cache is corrupt (Invalid string length)": comparing it with the manifest as it is now threw.
    expect(describeRebuildReason(report.rebuildReason!)).toBe("cache is incomplete");
    expect(report.added).toBe(NOTES);
  });

  it("runs one save at a time, however often it is asked", async () => {
    await edit(3, " Owls.");
    const saves = [index.save(cache), index.save(cache)];
    await edit(4, " Owls too.");
    saves.push(index.save(cache));
    await Promise.all(saves);
    const loaded = new VaultIndex();
    expect(await loaded.sync(store, cache)).toMatchObject({ mode: "cache", updated: 0 });
    expect(ranked(loaded, "owls")).toEqual(ranked(index, "owls"));
  });

  it("names every part with lower-case letters, digits and dashes", () => {
    for (const name of cache.parts.keys()) expect(name).toMatch(/^[a-z0-9-]{1,64}$/);
  });
});

describe("loading the saved index", () => {
  it("finds what the saved index found, score for score", async () => {
    const loaded = new VaultIndex();
    expect((await loaded.sync(store, cache)).mode).toBe("cache");
    expect(store.reads).toHaveLength(NOTES);
    for (const query of ["garden log", "word7 term100", "orchard", "observ", "kitchen entry 42"]) expect(ranked(loaded, query)).toEqual(ranked(index, query));
  });

  it("yields between segments and counts the notes up as they come in", async () => {
    let yields = 0;
    const loaded = new VaultIndex({ yieldToUi: async () => void yields++ });
    const counts: number[] = [];
    loaded.onChange((status: IndexStatus) => counts.push(status.notes));
    await loaded.sync(store, cache);
    expect(yields).toBeGreaterThanOrEqual(3);
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    expect(counts).toContain(1000);
    expect(counts.at(-1)).toBe(NOTES);
  });

  it("gives the UI a turn between a part it waited for and the work on it (the adapter decodes it in that turn)", async () => {
    const events: string[] = [];
    const slow = new MemoryIndexCache();
    for (const [name, part] of cache.parts) slow.parts.set(name, part);
    const read = slow.read.bind(slow);
    slow.read = async (name) => {
      await new Promise((resolve) => setTimeout(resolve, 2));
      events.push(`read ${name}`);
      return read(name);
    };
    const loaded = new VaultIndex({ yieldToUi: async () => void events.push(`yield at ${loaded.status().notes} notes`) });
    expect((await loaded.sync(store, slow)).mode).toBe("cache");
    const first = segmentNames()[0];
    // Without that turn, the first thing after the read would be the first segment's notes.
    expect(events[events.indexOf(`read ${first}`) + 1]).toBe("yield at 0 notes");
  });

  it("gives the UI a turn before it hands a part over to be encoded", async () => {
    const events: string[] = [];
    const saving = new VaultIndex({ yieldToUi: async () => void events.push("yield") });
    await saving.sync(store, null);
    const watched = new MemoryIndexCache();
    const write = watched.write.bind(watched);
    watched.write = (name, value) => {
      events.push(`write ${name}`);
      return write(name, value);
    };
    events.length = 0;
    await saving.save(watched);
    const segmentWrites = events.flatMap((e, i) => (e.startsWith("write segment") ? [i] : []));
    expect(segmentWrites).toHaveLength(3);
    for (const at of segmentWrites) expect(events[at - 1]).toBe("yield");
  });
});

describe("a segment gone while the load reads the others", () => {
  /** An empty index to load into, and each index it started over with. */
  function loadTarget(made: { notes: Map<string, IndexedNote> }[]): PersistedIndex {
    const notes = new Map<string, IndexedNote>();
    made.push({ notes });
    return {
      engine: createEngine(createAnalyzer({ stemming: false })),
      note: (path) => notes.get(path),
      remember: (note) => void notes.set(note.path, note),
      slice: () => NO_SLICES,
      startOver: () => loadTarget(made),
    };
  }

  // Another process's save replaced every segment after the load had read the first: the one it
  // read next was gone, and the load was a rebuild, "incomplete", where the new manifest was whole.
  it("starts over in an emptied index from the manifest that replaced the one it began with", async () => {
    const old = segmentNames();
    const second = old[1];
    const read = cache.read.bind(cache);
    let replaced = false;
    cache.read = async (name) => {
      if (name === second && !replaced) {
        replaced = true;
        // A process that built the index itself saves every segment under a token of its own; its
        // next save, ten minutes on, takes away those of the manifest it replaced.
        const other = new VaultIndex();
        await other.sync(store, null);
        await other.save(cache);
        await cache.remove(old);
      }
      return read(name);
    };
    const made: { notes: Map<string, IndexedNote> }[] = [];
    const reason = await new SavedIndex().load(cache, cache.manifest().fingerprint, loadTarget(made));
    expect(reason).toBeNull();
    // It read the first segment of the old manifest, then met the second gone: two indexes, the last one whole.
    expect(segmentNames().filter((n) => old.includes(n))).toEqual([]);
    expect(made).toHaveLength(2);
    expect(made[0].notes.size).toBe(1000);
    expect(made[1].notes.size).toBe(NOTES);
  });
});

describe("a VaultIndex whose cache another process replaces while it loads", () => {
  // Another process (the MCP server beside \`vault-research index\`) saved a new manifest and took the
  // old segments away after this load had read the first: the index did not say it could start over,
  // so the second was "incomplete" and the whole vault was read and built again.
  it("loads the replacing manifest into an emptied index, reading no note", async () => {
    store.write("n/source.md", "---\nsource: https://example.org/page\n---\n# Sourced\n\nA clipped page.\n");
    await index.updateFile(store, "n/source.md");
    await index.save(cache);
    const old = segmentNames();
    const read = cache.read.bind(cache);
    let replaced = false;
    cache.read = async (name) => {
      if (name === old[1] && !replaced) {
        replaced = true;
        const other = new VaultIndex();
        await other.sync(store, null);
        await other.save(cache);
        await cache.remove(old);
        // The other process's reads, not this load's.
        store.reads.length = 0;
      }
      return read(name);
    };
    const counts: number[] = [];
    const loading = new VaultIndex();
    loading.onChange((status) => void counts.push(status.notes));
    store.reads.length = 0;
    const report = await loading.sync(store, cache);
    expect(replaced).toBe(true);
    expect(report).toMatchObject({ mode: "cache", added: 0, updated: 0, removed: 0, unchanged: NOTES + 1 });
    expect(store.reads).toEqual([]);
    // What the half-load put in went first: no note twice, nor more of them at any moment.
    expect(loading.paths()).toHaveLength(NOTES + 1);
    expect(Math.max(...counts)).toBeLessThanOrEqual(NOTES + 1);
    expect(loading.notesWithSourceUrl("https://example.org/page")).toEqual(["n/source.md"]);
    expect(ranked(loading, "harbour log")).toEqual(ranked(index, "harbour log"));
    // The next save keeps the manifest it loaded: nothing left over of the first attempt's.
    await loading.save(cache);
    expect(cache.manifest().segments.every((s: { name: string }) => cache.parts.has(s.name))).toBe(true);
  });
});

describe("the slices of a first save", () => {
  // A first save plans its segments by looking up every short id the index has given: 50,000 of
  // them before its first look at the clock, most of its first slice's CPU (7–11 ms; 12 at 100,000).
  it("looks at the clock at least every 1,024 short ids while it plans its segments", async () => {
    const engine = createEngine(createAnalyzer({ stemming: false }));
    const notes = new Map<string, IndexedNote>();
    for (let i = 0; i < 5000; i++) {
      const path = `n/${i}.md`;
      engine.add(toEngineDoc(parseNote(path, `word${i % 7}`)));
      notes.set(path, { path, mtime: 1, size: 5, title: path, aliases: [], tags: [], sourceUrls: [], problems: [] });
    }
    let lookups = 0;
    let most = 0;
    const holds = engine.holds.bind(engine);
    engine.holds = (shortId) => (lookups++, holds(shortId));
    const pausing: WorkSlice = { ...NO_SLICES, over: () => true, pause: async () => void ((most = Math.max(most, lookups)), (lookups = 0)) };
    const written = new MemoryIndexCache();
    await new SavedIndex().save(written, "settings", fakeClock(), { engine, note: (path) => notes.get(path), remember: () => undefined, slice: () => pausing });
    expect(written.manifest().segments).toHaveLength(5);
    expect(Math.max(most, lookups)).toBeGreaterThan(0);
    expect(Math.max(most, lookups)).toBeLessThanOrEqual(1024);
  });
});

describe("building the index", () => {
  it("yields every few milliseconds of work, and can be searched before it is done", async () => {
    // A clock that moves a millisecond each time it is read: slices end by time, not by batch.
    let now = FAKE_NOW;
    const clock: Clock = { now: () => now++, sleep: async () => undefined };
    const found: number[] = [];
    const building = new VaultIndex({ clock, yieldToUi: async () => void found.push(building.rank(parseQuery("garden"), 5000).length) });
    await building.sync(store, null);
    expect(found.length).toBeGreaterThan(NOTES / 250);
    expect(found[0]).toBeGreaterThan(0);
    expect(found[0]).toBeLessThan(found.at(-1)!);
  });
});

// Two processes on one cache folder (the MCP server and `vault-research index`), or a plugin
// reloaded while its last save ran: each saves by the manifest it knows. Segments were named after
// a count of saves that a rebuild starts again, so one process wrote its `segment-1-0` over the
// other's, whose next manifest listed it: a warm start loaded the wrong postings without a word.
/** The cache as a second process sees it: its save waits before writing the manifest until released. */
function holdingManifest(shared: MemoryIndexCache): { cache: IndexCache; manifestDue: Promise<void>; release: () => void } {
  let due!: () => void;
  let release!: () => void;
  const manifestDue = new Promise<void>((resolve) => (due = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  const cache: IndexCache = {
    read: (name) => shared.read(name),
    write: async (name, value) => {
      if (name === "manifest") {
        due();
        await released;
      }
      await shared.write(name, value);
    },
    names: () => shared.names(),
    remove: (names) => shared.remove(names),
    clear: () => shared.clear(),
  };
  return { cache, manifestDue, release };
}

describe("two processes saving into one cache", () => {
  function sharedVault(): { store: ControlledStore; cache: MemoryIndexCache; clock: Clock } {
    const shared = new ControlledStore();
    shared.write("Runner.md", "# Jogging\n\nShe runs every morning.\n");
    shared.write("Other.md", "# Other\n\nNothing here about that.\n");
    return { store: shared, cache: new MemoryIndexCache(), clock: fakeClock(FAKE_NOW + 3_600_000) };
  }

  it("never gives a segment's name to other contents, even after the other process rebuilt under other settings", async () => {
    const shared = sharedVault();
    const server = new VaultIndex({ clock: shared.clock, stemming: true });
    await server.sync(shared.store, shared.cache);
    await server.save(shared.cache);
    const unstemmed = new VaultIndex({ clock: shared.clock, stemming: false });
    expect((await unstemmed.sync(shared.store, shared.cache)).rebuildReason).toEqual({ kind: "settings_changed" });
    await unstemmed.save(shared.cache);
    shared.store.write("New.md", "# New\n\nA new note.\n", FAKE_NOW + 10);
    await server.updateFile(shared.store, "New.md");
    await server.save(shared.cache);
    const next = new VaultIndex({ clock: shared.clock, stemming: true });
    await next.sync(shared.store, shared.cache);
    expect((await next.search("running", shared.store)).map((r) => r.path)).toEqual(["Runner.md"]);
  });

  it("writes again a segment it kept that the other process's save removed, so the next start loads", async () => {
    const shared = sharedVault();
    const server = new VaultIndex({ clock: shared.clock });
    await server.sync(shared.store, shared.cache);
    await server.save(shared.cache);
    const reloaded = new VaultIndex({ clock: shared.clock });
    expect((await reloaded.sync(shared.store, shared.cache)).mode).toBe("cache");
    shared.store.write("Later.md", "# Later\n\nKingfishers by the river.\n", FAKE_NOW + 10);
    await reloaded.updateFile(shared.store, "Later.md");
    await reloaded.rebuild(shared.store);
    await reloaded.save(shared.cache);
    // The server's manifest keeps the segment the reloaded plugin's save took away as unlisted.
    shared.store.write("New.md", "# New\n\nA new note.\n", FAKE_NOW + 20);
    await server.updateFile(shared.store, "New.md");
    await server.updateFile(shared.store, "Later.md");
    await server.save(shared.cache);
    const next = new VaultIndex({ clock: shared.clock });
    expect(await next.sync(shared.store, shared.cache)).toMatchObject({ mode: "cache", added: 0, updated: 0 });
    expect((await next.search("jogging", shared.store)).map((r) => r.path)).toEqual(["Runner.md"]);
    expect((await next.search("kingfishers", shared.store)).map((r) => r.path)).toEqual(["Later.md"]);
  });

  // The server's save took away, as unlisted, the segment `vault-research index` had just written
  // and not yet named in its manifest: the next start found a manifest naming a missing part,
  // reported the cache damaged ("incomplete") and built the whole vault again.
  it("does not take away a segment the other process has written and is about to name", async () => {
    const shared = sharedVault();
    const server = new VaultIndex({ clock: shared.clock });
    await server.sync(shared.store, shared.cache);
    await server.save(shared.cache);
    const command = new VaultIndex({ clock: shared.clock });
    expect((await command.sync(shared.store, shared.cache)).mode).toBe("cache");
    shared.store.write("Later.md", "# Later\n\nKingfishers by the river.\n", FAKE_NOW + 10);
    await command.updateFile(shared.store, "Later.md");
    const held = holdingManifest(shared.cache);
    const commandSave = command.save(held.cache);
    await held.manifestDue;
    shared.store.write("New.md", "# New\n\nA new note.\n", FAKE_NOW + 20);
    await server.updateFile(shared.store, "New.md");
    await server.save(shared.cache);
    held.release();
    await commandSave;
    const next = new VaultIndex({ clock: shared.clock });
    expect(await next.sync(shared.store, shared.cache)).toMatchObject({ mode: "cache", rebuildReason: undefined });
    expect((await next.search("kingfishers", shared.store)).map((r) => r.path)).toEqual(["Later.md"]);
  });

  it("takes away another process's unlisted segment only once it has stayed unlisted for ten minutes", async () => {
    const shared = sharedVault();
    const clock = fakeClock(FAKE_NOW + 3_600_000);
    const server = new VaultIndex({ clock });
    await server.sync(shared.store, shared.cache);
    await server.save(shared.cache);
    // Left by a save of another process that was cut short before its manifest.
    const leftover = "segment-0011223344556677-0";
    await shared.cache.write(leftover, { left: "by a save cut short" });
    const saveAfter = async (ms: number, note: string) => {
      clock.advance(ms);
      shared.store.write(note, `# ${note}\n\nWords.\n`, clock.now());
      await server.updateFile(shared.store, note);
      await server.save(shared.cache);
    };
    await saveAfter(1000, "One.md");
    expect(shared.cache.parts.has(leftover)).toBe(true);
    await saveAfter(9 * 60_000, "Two.md");
    expect(shared.cache.parts.has(leftover)).toBe(true);
    await saveAfter(60_000, "Three.md");
    expect(shared.cache.parts.has(leftover)).toBe(false);
    expect([...shared.cache.parts.keys()].sort()).toEqual([...shared.cache.manifest().segments.map((s) => s.name), "manifest"].sort());
  });
});

/** The shared cache as one process sees it: `hook` runs once, after that process's first write of a segment. */
function afterFirstSegment(shared: MemoryIndexCache, hook: () => Promise<void>): IndexCache {
  let ran = false;
  return {
    read: (name) => shared.read(name),
    write: async (name, value) => {
      await shared.write(name, value);
      if (ran || !name.startsWith("segment-")) return;
      ran = true;
      await hook();
    },
    names: () => shared.names(),
    remove: (names) => shared.remove(names),
    clear: () => shared.clear(),
  };
}

/** The shared cache as a process starting up sees it: `hook` runs once, after its manifest was read. */
function afterManifestRead(shared: IndexCache, hook: () => Promise<void>): IndexCache {
  let ran = false;
  return {
    read: async (name) => {
      const value = await shared.read(name);
      if (name === "manifest" && !ran) {
        ran = true;
        await hook();
      }
      return value;
    },
    write: (name, value) => shared.write(name, value),
    names: () => shared.names(),
    remove: (names) => shared.remove(names),
    clear: () => shared.clear(),
  };
}

describe("two processes saving into one cache, mid-save", () => {
  function sharedVault(): { store: ControlledStore; cache: MemoryIndexCache; clock: FakeClock } {
    const shared = new ControlledStore();
    shared.write("Runner.md", "# Jogging\n\nShe runs every morning.\n");
    shared.write("Other.md", "# Other\n\nNothing here about that.\n");
    return { store: shared, cache: new MemoryIndexCache(), clock: fakeClock(FAKE_NOW + 3_600_000) };
  }

  // The server kept the segment it had loaded; `vault-research index`, a run later, took it away
  // (by its file's date, long past) while the server's save wrote its new segment: the server's
  // manifest named a missing part, and the next start built the whole vault again ("incomplete").
  it("writes again, before naming it, a kept segment another process took away during this save", async () => {
    const shared = sharedVault();
    const server = new VaultIndex({ clock: shared.clock });
    await server.sync(shared.store, shared.cache);
    await server.save(shared.cache);
    const [kept] = shared.cache.manifest().segments;
    shared.store.write("New.md", "# New\n\nA new note about herons.\n", FAKE_NOW + 10);
    await server.updateFile(shared.store, "New.md");
    await server.save(afterFirstSegment(shared.cache, () => shared.cache.remove([kept.name])));
    const next = new VaultIndex({ clock: shared.clock });
    expect(await next.sync(shared.store, shared.cache)).toMatchObject({ mode: "cache", rebuildReason: undefined, added: 0, updated: 0 });
    expect((await next.search("jogging", shared.store)).map((r) => r.path)).toEqual(["Runner.md"]);
    expect((await next.search("herons", shared.store)).map((r) => r.path)).toEqual(["New.md"]);
  });

  // The plugin reloaded while its last save ran: the new one read the manifest, the old one's save
  // then replaced a segment that manifest names and took it away at once, and the new one's load
  // found it missing and built the whole vault again, saying the cache was damaged.
  it("leaves a replaced segment for a process that read the manifest naming it", async () => {
    const shared = sharedVault();
    const old = new VaultIndex({ clock: shared.clock });
    await old.sync(shared.store, shared.cache);
    await old.save(shared.cache);
    shared.store.files.delete("Other.md");
    old.removeFile("Other.md");
    const reloaded = new VaultIndex({ clock: shared.clock });
    const report = await reloaded.sync(shared.store, afterManifestRead(shared.cache, () => old.save(shared.cache)));
    expect(report).toMatchObject({ mode: "cache", rebuildReason: undefined, removed: 1 });
    expect((await reloaded.search("jogging", shared.store)).map((r) => r.path)).toEqual(["Runner.md"]);
  });

  // A wall clock set forward (by hand, a time sync, a machine waking) made a replaced segment's
  // ten minutes nothing: the old instance's next save took it away while the reloaded plugin was
  // loading it, and that load built the whole vault again, saying the cache was incomplete.
  it("leaves a replaced segment ten minutes however far the wall clock is set forward meanwhile", async () => {
    const shared = sharedVault();
    const old = new VaultIndex({ clock: shared.clock });
    await old.sync(shared.store, shared.cache);
    await old.save(shared.cache);
    shared.store.files.delete("Other.md");
    old.removeFile("Other.md");
    const reloaded = new VaultIndex({ clock: shared.clock });
    const saveTwice = async (): Promise<void> => {
      await old.save(shared.cache);
      shared.clock.set(shared.clock.now() + 24 * 3_600_000);
      await old.save(shared.cache);
    };
    const report = await reloaded.sync(shared.store, afterManifestRead(shared.cache, saveTwice));
    expect(report).toMatchObject({ mode: "cache", rebuildReason: undefined, removed: 1 });
    expect((await reloaded.search("jogging", shared.store)).map((r) => r.path)).toEqual(["Runner.md"]);
  });

  // A load held up ten minutes between the manifest and its segments (a machine asleep, a process
  // stopped): the other process's saves replaced every segment and, the second ten minutes on, took
  // away those the manifest it read named. It built the whole vault again, saying "incomplete".
  it("a load that finds the segments of the manifest it read gone loads the manifest that replaced it", async () => {
    const shared = sharedVault();
    const server = new VaultIndex({ clock: shared.clock });
    await server.sync(shared.store, shared.cache);
    await server.save(shared.cache);
    const [replaced] = shared.cache.manifest().segments;
    shared.store.files.delete("Other.md");
    server.removeFile("Other.md");
    const saveTwice = async (): Promise<void> => {
      await server.save(shared.cache);
      shared.clock.advance(10 * 60_000);
      await server.save(shared.cache);
    };
    const starting = new VaultIndex({ clock: shared.clock });
    const report = await starting.sync(shared.store, afterManifestRead(shared.cache, saveTwice));
    expect(shared.cache.parts.has(replaced.name)).toBe(false);
    expect(report).toMatchObject({ mode: "cache", rebuildReason: undefined, added: 0, updated: 0, removed: 0 });
    expect((await starting.search("jogging", shared.store)).map((r) => r.path)).toEqual(["Runner.md"]);
  });

  // `vault-research index` rebuilt the index (after a settings change) and wrote its first segment;
  // the wall clock was then set forward an hour (a time sync as the machine woke); the MCP server, or
  // a search starting up, saved, read that segment's file date as an hour old and took it away; the
  // index's manifest then named it, and every later start built the whole vault again ("incomplete").
  it("a segment of its own another process took away before its manifest, in a save that wrote every segment, is written again", async () => {
    for (const started of ["before the clock was set", "after it"] as const) {
      const shared = sharedVault();
      const dated = datedParts(shared.cache, shared.clock);
      let searcher = new VaultIndex({ clock: shared.clock });
      await searcher.sync(shared.store, dated);
      await searcher.save(dated);
      shared.store.write("New.md", "# New\n\nA new note about herons.\n", FAKE_NOW + 10);
      const indexer = new VaultIndex({ clock: shared.clock });
      await indexer.sync(shared.store, null);
      let hooked = false;
      const saving: IndexCache = {
        ...dated,
        write: async (name, value) => {
          await dated.write(name, value);
          if (hooked || !name.startsWith("segment-")) return;
          hooked = true;
          shared.clock.set(shared.clock.now() + 60 * 60_000);
          if (started === "after it") {
            searcher = new VaultIndex({ clock: shared.clock });
            await searcher.sync(shared.store, dated);
          }
          await searcher.save(dated);
        },
      };
      await indexer.save(saving);
      const next = new VaultIndex({ clock: shared.clock });
      expect(await next.sync(shared.store, dated), started).toMatchObject({ mode: "cache", rebuildReason: undefined, added: 0 });
      expect((await next.search("herons", shared.store)).map((r) => r.path), started).toEqual(["New.md"]);
    }
  });

  it("takes away a segment it replaced once ten minutes have passed since", async () => {
    const shared = sharedVault();
    const server = new VaultIndex({ clock: shared.clock });
    await server.sync(shared.store, shared.cache);
    await server.save(shared.cache);
    const [replaced] = shared.cache.manifest().segments;
    shared.store.files.delete("Other.md");
    server.removeFile("Other.md");
    await server.save(shared.cache);
    expect(shared.cache.parts.has(replaced.name)).toBe(true);
    shared.clock.advance(10 * 60_000);
    await server.save(shared.cache);
    expect([...shared.cache.parts.keys()].sort()).toEqual([...shared.cache.manifest().segments.map((s) => s.name), "manifest"].sort());
  });
  // `vault-research index` rebuilt and named segments of its own; ten minutes on, the server's save
  // replaced that manifest and took those segments away at once by their files' dates, while a
  // search starting up was loading them: it found one missing and built the whole vault again.
  it("leaves another process's segments for a process that read its manifest, when this save replaces it", async () => {
    const shared = sharedVault();
    const cache = datedParts(shared.cache, shared.clock);
    const server = new VaultIndex({ clock: shared.clock });
    await server.sync(shared.store, cache);
    await server.save(cache);
    const command = new VaultIndex({ clock: shared.clock });
    await command.sync(shared.store, cache);
    await command.rebuild(shared.store);
    await command.save(cache);
    const commandSegments = shared.cache.manifest().segments.map((s) => s.name);
    shared.clock.advance(11 * 60_000);
    const serverSave = async () => {
      shared.store.write("New.md", "# New\n\nA new note about herons.\n", FAKE_NOW + 10);
      await server.updateFile(shared.store, "New.md");
      await server.save(cache);
    };
    const search = new VaultIndex({ clock: shared.clock });
    expect(await search.sync(shared.store, afterManifestRead(cache, serverSave))).toMatchObject({ mode: "cache", rebuildReason: undefined });
    expect((await search.search("jogging", shared.store)).map((r) => r.path)).toEqual(["Runner.md"]);
    // Still bounded: ten minutes after the save that replaced that manifest, they go.
    shared.clock.advance(10 * 60_000);
    await server.save(cache);
    expect(commandSegments.filter((name) => shared.cache.parts.has(name))).toEqual([]);
  });
});

/** The shared cache dating each part by the clock when written, as the CLI's files and the plugin's records do. */
function datedParts(shared: MemoryIndexCache, clock: Clock): IndexCache {
  const dates = new Map<string, number>();
  return {
    read: (name) => shared.read(name),
    write: async (name, value) => {
      await shared.write(name, value);
      dates.set(name, clock.now());
    },
    names: () => shared.names(),
    writtenAt: async (name) => (shared.parts.has(name) ? (dates.get(name) ?? null) : null),
    remove: (names) => shared.remove(names),
    clear: () => shared.clear(),
  };
}

// A save killed at any step (the app closed, the disk full at one part): the next start loads the
// cache the last whole save left (the one before it, or its own), and reads the notes changed since;
// never a rebuild, a search with wrong postings or a note lost.
describe("a save cut short at every step", () => {
  it("leaves a cache the next start loads, finding what the saving index found, then a save that loads", async () => {
    const base = new ControlledStore();
    for (let i = 0; i < 30; i++) base.write(`n/${i}.md`, noteText(i));
    const steps = ["write", "names", "remove"] as const;
    for (const step of steps) {
      for (let nth = 1; nth <= 8; nth++) {
        const shared = new MemoryIndexCache();
        const clock = fakeClock(FAKE_NOW + 3_600_000);
        const vault = new ControlledStore();
        for (const [path, file] of base.files) vault.files.set(path, { ...file });
        const first = new VaultIndex({ clock });
        await first.sync(vault, shared);
        await first.save(shared);
        // A few notes go, one changes and two come: a save that keeps a segment, lists what left it, and adds one.
        for (let i = 0; i < 5; i++) {
          vault.files.delete(`n/${i}.md`);
          first.removeFile(`n/${i}.md`);
        }
        for (const [path, text] of [["n/20.md", noteText(20, " Otters.")], ["n/new-a.md", "# New a\n\nKingfishers.\n"], ["n/new-b.md", "# New b\n\nHerons.\n"]]) {
          vault.write(path, text, FAKE_NOW + 10);
          await first.updateFile(vault, path);
        }
        await first.save(cutShort(shared, step, nth)).catch(() => undefined);
        const next = new VaultIndex({ clock });
        const report = await next.sync(vault, shared);
        expect(report, `${step} ${nth}`).toMatchObject({ mode: "cache" });
        for (const query of ["otters", "kingfishers", "herons", "garden", "entry"]) expect(ranked(next, query), `${step} ${nth}: ${query}`).toEqual(ranked(first, query));
        expect(next.status().notes, `${step} ${nth}`).toBe(27);
        await next.save(shared);
        const after = new VaultIndex({ clock });
        expect(await after.sync(vault, shared), `${step} ${nth}`).toMatchObject({ mode: "cache", added: 0, updated: 0, removed: 0 });
        expect(ranked(after, "entry")).toEqual(ranked(first, "entry"));
      }
    }
  });
});

/** The shared cache with its `nth` call of `step` failing, and every call of any kind after it (the process died there). */
function cutShort(shared: MemoryIndexCache, step: "write" | "names" | "remove", nth: number): IndexCache {
  let calls = 0;
  let dead = false;
  const gate = async <T>(kind: string, work: () => Promise<T>): Promise<T> => {
    if (kind === step && ++calls === nth) dead = true;
    if (dead) throw new Error(`killed at ${step} ${nth}`);
    return work();
  };
  return {
    read: (name) => gate("read", () => shared.read(name)),
    write: (name, value) => gate("write", () => shared.write(name, value)),
    names: () => gate("names", () => shared.names()),
    remove: (names) => gate("remove", () => shared.remove(names)),
    clear: () => gate("clear", () => shared.clear()),
  };
}
