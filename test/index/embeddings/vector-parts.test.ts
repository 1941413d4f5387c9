// The vectors in parts: a save writes what changed, never the whole store; a part that is not as
// written (a sign flipped, two values swapped: a norm that still agrees) is found and its notes
// embedded again, the rest kept; a save killed midway leaves what the last save wrote.
import { describe, expect, it } from "vitest";
import type { EmbeddingUnit } from "../../../src/index/embeddings/embedding-units";
import type { VectorCache } from "../../../src/index/embeddings/vector-cache";
import { readVectors, serializeVectors } from "../../../src/index/embeddings/vector-file";
import { loadStoredVectors, ROOT_PART, saveStoredVectors } from "../../../src/index/embeddings/vector-parts";
import { vectorResetWords } from "../../../src/index/embeddings/vector-reset";
import { VectorStore } from "../../../src/index/embeddings/vector-store";
import { UNLISTED_PART_GRACE_MS, type SaveClock } from "../../../src/index/unlisted-parts";
import { fakeClock } from "../../support/fake-clock";
import { MemoryVectorCache, nameByCount, rootOf } from "./memory-vector-cache";
import { randomUnitVector } from "./random-vectors";

const MODEL = "ollama:nomic-embed-text";
/** A save's wall time; a part no root names any more stays UNLISTED_PART_GRACE_MS after it. */
const T0 = 1_800_000_000_000;

/** A save's clock reading `ms`: wall time only, which its waits are then measured on too. */
const at = (ms: number): SaveClock => ({ now: () => ms });

function put(s: VectorStore, n: number, seed = 0): void {
  const d = s.dimensions!;
  const units: EmbeddingUnit[] = Array.from({ length: 3 }, (_, u) => ({ kind: u === 0 ? "title" : "section", headingPath: u === 0 ? [] : [`Part ${u}`], line: u * 5 + 1, start: u * 100, end: u * 100 + 90, text: `Part ${u} of note ${n}` }));
  s.put({ path: `Folder ${n % 7}/Note ${n}.md`, mtime: 1_700_000_000_000 + n + seed, size: 1000 + n }, units, units.map((_, u) => randomUnitVector(d, n * 31 + u + 1 + seed)));
}

function store(notes: number, dimensions: number): VectorStore {
  const s = new VectorStore(MODEL);
  s.adoptDimensions(dimensions);
  for (let n = 0; n < notes; n++) put(s, n);
  return s;
}

function filesOf(s: VectorStore): { path: string; mtime: number; size: number }[] {
  return Array.from(s.entries(), (n) => ({ path: n.path, mtime: n.mtime, size: n.size }));
}

/** The stored parts other than the root, sorted. */
function vectorPartsIn(cache: MemoryVectorCache): string[] {
  return [...cache.parts.keys()].filter((name) => name !== ROOT_PART).sort();
}

/** The part a note is kept in, and where its rows start there (rows are the part's last bytes, in header order). */
function partHolding(cache: MemoryVectorCache, path: string): { name: string; bytes: Uint8Array; rowsAt: number } {
  for (const [name, bytes] of cache.parts) {
    if (name === ROOT_PART) continue;
    const length = new DataView(bytes.buffer, bytes.byteOffset).getUint32(36, true);
    const header = JSON.parse(new TextDecoder().decode(bytes.subarray(40, 40 + length))) as { notes: { path: string; units: unknown[] }[] };
    let rows = 0;
    for (const note of header.notes) {
      if (note.path === path) return { name, bytes, rowsAt: 40 + length + rows };
      rows += note.units.length + 1;
    }
  }
  throw new Error(`no part holds ${path}`);
}

describe("vectors in parts", () => {
  it("round-trips notes, places, rows and the fingerprint", async () => {
    const original = store(40, 24);
    original.adoptFingerprint(randomUnitVector(24, 5));
    const cache = new MemoryVectorCache();
    await saveStoredVectors(cache, original);
    const loaded = await loadStoredVectors(cache, MODEL);
    expect(loaded.reset).toBeNull();
    expect(loaded.store.size).toBe(40);
    for (const note of original.entries()) expect(loaded.store.note(note.path)).toEqual(note);
    expect(loaded.store.sameModelAs(original.fingerprint!)).toBe(true);
    const query = randomUnitVector(24, 999);
    expect(loaded.store.nearestSections(query, 5)).toEqual(original.nearestSections(query, 5));
  });

  // One blob of every vector was encoded and written at every save: 5 MB for 1,000 notes, 500 MB
  // for 100,000, after a single note changed.
  it("after one note changes, a save writes that note's part and the root, not the store", async () => {
    const cache = new MemoryVectorCache();
    const s = store(2000, 64);
    await saveStoredVectors(cache, s);
    const whole = cache.bytesWritten;
    cache.written.length = 0;
    cache.bytesWritten = 0;
    put(s, 17, 1);
    await saveStoredVectors(cache, s, 0, at(T0));
    expect(cache.written).toHaveLength(2);
    expect(cache.written[1]).toBe(ROOT_PART);
    expect(cache.bytesWritten).toBeLessThan(whole / 20);
    const loaded = await loadStoredVectors(cache, MODEL);
    expect([loaded.reset, loaded.store.size]).toEqual([null, 2000]);
    expect(loaded.store.note("Folder 3/Note 17.md")).toEqual(s.note("Folder 3/Note 17.md"));
    // The part it replaced stays ten minutes (a process that read the older root may be loading it),
    // then goes: 2,000 notes fill every one of the 64 buckets, 64 parts and the root, nothing left over.
    expect(cache.parts.size).toBe(66);
    await saveStoredVectors(cache, s, 0, at(T0 + UNLISTED_PART_GRACE_MS));
    expect(cache.parts.size).toBe(65);
  });

  // The plugin reloaded mid-save, then the wall clock set forward a day: the part the old instance's
  // root stopped naming went at its next save, while the new instance may still be loading it.
  it("a part its root stopped naming stays ten minutes however far the wall clock is set forward", async () => {
    const cache = new MemoryVectorCache();
    const clock = fakeClock(T0);
    const s = store(30, 8);
    await saveStoredVectors(cache, s, 0, clock);
    const { name } = partHolding(cache, "Folder 0/Note 0.md");
    put(s, 0, 1);
    await saveStoredVectors(cache, s, 0, clock);
    clock.set(T0 + 24 * 60 * 60_000);
    await saveStoredVectors(cache, s, 0, clock);
    expect(cache.parts.has(name)).toBe(true);
    clock.advance(UNLISTED_PART_GRACE_MS);
    await saveStoredVectors(cache, s, 0, clock);
    expect(cache.parts.has(name)).toBe(false);
  });

  it("writes nothing but the root when nothing changed, and drops a removed note's part", async () => {
    const cache = new MemoryVectorCache();
    const s = store(30, 8);
    await saveStoredVectors(cache, s);
    cache.written.length = 0;
    await saveStoredVectors(cache, s);
    expect(cache.written).toEqual([ROOT_PART]);
    const { name } = partHolding(cache, "Folder 0/Note 0.md");
    s.remove("Folder 0/Note 0.md");
    await saveStoredVectors(cache, s, 0, at(T0));
    await saveStoredVectors(cache, s, 0, at(T0 + UNLISTED_PART_GRACE_MS));
    expect(cache.parts.has(name)).toBe(false);
    expect((await loadStoredVectors(cache, MODEL)).store.note("Folder 0/Note 0.md")).toBeUndefined();
  });

  // Laid out for the notes already there, a first embedding's parts were all written again once it
  // grew past what 64 parts hold (38,400 notes), and each part held up to 600 notes meanwhile.
  it("a save told how many notes are coming lays the parts out for them at once, and keeps that layout", async () => {
    const cache = new MemoryVectorCache();
    const s = store(40, 8);
    await saveStoredVectors(cache, s, 40_000);
    expect(rootOf(cache).buckets).toBe(256);
    put(s, 40);
    cache.written.length = 0;
    await saveStoredVectors(cache, s, 40_000);
    expect(cache.written).toHaveLength(2);
    expect(rootOf(cache).buckets).toBe(256);
    // A restart midway goes on with the same layout.
    const loaded = await loadStoredVectors(cache, MODEL);
    expect(loaded.store.size).toBe(41);
    put(loaded.store, 41);
    cache.written.length = 0;
    await saveStoredVectors(cache, loaded.store, 40_000);
    expect([cache.written.length, rootOf(cache).buckets]).toEqual([2, 256]);
    // Told nothing, a store this small is laid out for what it holds.
    await saveStoredVectors(cache, loaded.store);
    expect(rootOf(cache).buckets).toBe(64);
  });

  // A norm check passes both: the sum of squares does not change.
  it.each([
    ["a component's sign flipped", (b: Uint8Array, at: number) => void (b[at + 3] = (-(b[at + 3] << 24 >> 24)) & 0xff)],
    ["two components swapped", (b: Uint8Array, at: number) => void ([b[at + 1], b[at + 6]] = [b[at + 6], b[at + 1]])],
  ])("%s in a stored part: that part's notes are embedded again, with words saying so; the others are kept", async (_, damage) => {
    const cache = new MemoryVectorCache();
    const s = store(200, 16);
    await saveStoredVectors(cache, s);
    const { name, bytes, rowsAt } = partHolding(cache, "Folder 2/Note 9.md");
    // Its first unit's row (after the note's own), at values that differ.
    const at = rowsAt + 16;
    expect([bytes[at + 3], bytes[at + 1]]).not.toContain(0);
    expect(bytes[at + 1]).not.toBe(bytes[at + 6]);
    damage(bytes, at);
    cache.parts.set(name, bytes);
    const loaded = await loadStoredVectors(cache, MODEL);
    const inPart = Array.from(s.entries()).filter((n) => partHolding(cache, n.path).name === name).map((n) => n.path);
    expect(loaded.reset).toEqual({ kind: "notes_damaged", notes: inPart.length });
    expect(vectorResetWords(loaded.reset!)).toMatch(/damaged; those notes will be embedded again, the others are kept\.$/);
    expect(loaded.store.size).toBe(200 - inPart.length);
    expect(loaded.store.plan(filesOf(s)).toEmbed.map((f) => f.path).sort()).toEqual(inPart.sort());
    for (const note of loaded.store.entries()) expect(note).toEqual(s.note(note.path));
  });

  it("a damaged root is a corrupt store, every note embedded again", async () => {
    const cache = new MemoryVectorCache();
    await saveStoredVectors(cache, store(5, 8));
    const root = cache.parts.get(ROOT_PART)!;
    root[root.length - 3] ^= 0x01;
    const loaded = await loadStoredVectors(cache, MODEL);
    expect(loaded.store.size).toBe(0);
    expect(loaded.reset).toMatchObject({ kind: "corrupt", detail: "the list of parts does not match its checksum" });
  });

  it("a part that is missing, or holds a note of another bucket, leaves its notes to be embedded again", async () => {
    const cache = new MemoryVectorCache();
    await saveStoredVectors(cache, store(100, 8));
    const [first, second] = [...cache.parts.keys()].filter((n) => n !== ROOT_PART);
    const secondNotes = (await loadStoredVectors(cache, MODEL)).store.size;
    cache.parts.delete(first);
    // Another bucket's part in its place: checksummed, but not what the root says is there.
    cache.parts.set(second, cache.parts.get([...cache.parts.keys()].filter((n) => n !== ROOT_PART && n !== second)[0])!);
    const loaded = await loadStoredVectors(cache, MODEL);
    expect(loaded.reset?.kind).toBe("notes_damaged");
    expect(loaded.store.size).toBeLessThan(secondNotes);
    expect(loaded.store.size).toBeGreaterThan(0);
  });

  it("a part that cannot be read rejects the load, never reads as none (a save would put a few notes over the rest)", async () => {
    const cache = new MemoryVectorCache();
    await saveStoredVectors(cache, store(20, 8));
    cache.read = async (name) => {
      if (name !== ROOT_PART) throw new Error("I/O error");
      return cache.parts.get(name)!;
    };
    await expect(loadStoredVectors(cache, MODEL)).rejects.toThrow("I/O error");
  });

  // A save killed midway (a full disk, a quota, the app closed) must never leave parts that load as other vectors.
  it("a save that fails midway leaves the last save's vectors, and takes away what it wrote", async () => {
    const cache = new MemoryVectorCache();
    const s = store(300, 8);
    await saveStoredVectors(cache, s);
    const before = new Map(cache.parts);
    for (let n = 0; n < 300; n += 3) put(s, n, 7);
    cache.writesLeft = 4;
    await expect(saveStoredVectors(cache, s)).rejects.toThrow("disk full");
    expect(cache.parts).toEqual(before);
    const loaded = await loadStoredVectors(cache, MODEL);
    expect(loaded.reset).toBeNull();
    expect(loaded.store.note("Folder 3/Note 3.md")!.mtime).toBe(1_700_000_000_003);
    // The next save, once there is room, writes every change.
    cache.writesLeft = null;
    await saveStoredVectors(cache, s);
    const after = await loadStoredVectors(cache, MODEL);
    for (const note of s.entries()) expect(after.store.note(note.path)).toEqual(note);
  });

  it("reads the one-blob file of earlier versions, and the next save writes parts over it", async () => {
    const cache = new MemoryVectorCache();
    const s = store(12, 8);
    await cache.write(ROOT_PART, serializeVectors(s));
    const loaded = await loadStoredVectors(cache, MODEL);
    expect([loaded.reset, loaded.store.size]).toEqual([null, 12]);
    await saveStoredVectors(cache, loaded.store);
    expect(new TextDecoder().decode(cache.parts.get(ROOT_PART)!.subarray(0, 4))).toBe("VRV3");
    const again = await loadStoredVectors(cache, MODEL);
    for (const note of s.entries()) expect(again.store.note(note.path)).toEqual(note);
  });

  // Versions that read VRV2 read whatever root is not VRV2 as the one blob.
  // Parts named by a count could be written over by a process of that version still running.
  it("a root naming parts by a count of saves (VRV2) loads without a word, and the next save names every part anew, embedding nothing", async () => {
    const cache = new MemoryVectorCache();
    const s = store(200, 8);
    await saveStoredVectors(cache, s);
    await nameByCount(cache, 4);
    expect([...cache.parts.keys()].filter((name) => name !== ROOT_PART)).toEqual(expect.arrayContaining([expect.stringMatching(/^vectors-4-\d+$/)]));
    const loaded = await loadStoredVectors(cache, MODEL);
    expect(loaded.reset).toBeNull();
    for (const note of s.entries()) expect(loaded.store.note(note.path)).toEqual(note);
    expect(loaded.store.plan(filesOf(s)).toEmbed).toEqual([]);
    await saveStoredVectors(cache, loaded.store, 0, at(T0));
    expect(new TextDecoder().decode(cache.parts.get(ROOT_PART)!.subarray(0, 4))).toBe("VRV3");
    // The counted parts stay ten minutes for a process that read the VRV2 root, then go.
    expect([...cache.parts.keys()]).toEqual(expect.arrayContaining([expect.stringMatching(/^vectors-4-\d+$/)]));
    await saveStoredVectors(cache, loaded.store, 0, at(T0 + UNLISTED_PART_GRACE_MS));
    const names = [...cache.parts.keys()].filter((name) => name !== ROOT_PART);
    expect(names.sort()).toEqual(rootOf(cache).parts.map((p) => p.name).sort());
    for (const name of names) expect(name).toMatch(/^vectors-[0-9a-f]{16}-\d+$/);
    const again = await loadStoredVectors(cache, MODEL);
    expect(again.reset).toBeNull();
    for (const note of s.entries()) expect(again.store.note(note.path)).toEqual(note);
  });

  it("a version that reads only the one-blob file, or parts named by a count, takes the root for a newer format, and embeds again rather than misread it", async () => {
    const cache = new MemoryVectorCache();
    await saveStoredVectors(cache, store(3, 8));
    expect(readVectors(cache.parts.get(ROOT_PART)!, MODEL)).toMatchObject({ reset: { kind: "newer_version", found: "VRV3" } });
  });

  it("another model's vectors are thrown away, counted, and their parts taken away ten minutes after the save that stopped naming them", async () => {
    const cache = new MemoryVectorCache();
    await saveStoredVectors(cache, store(9, 8));
    const loaded = await loadStoredVectors(cache, "openai:text-embedding-3-small");
    expect(loaded.reset).toEqual({ kind: "model_changed", from: MODEL, to: "openai:text-embedding-3-small", notes: 9 });
    expect(loaded.store.size).toBe(0);
    await saveStoredVectors(cache, loaded.store, 0, at(T0));
    // A process on the other model that read its root may be loading them.
    expect(cache.parts.size).toBeGreaterThan(1);
    await saveStoredVectors(cache, loaded.store, 0, at(T0 + UNLISTED_PART_GRACE_MS));
    expect([...cache.parts.keys()]).toEqual([ROOT_PART]);
  });
});

// The CLI's `embed` beside the MCP server, or the plugin reloaded while its last save ran: two
// stores loaded from one cache, each saving as if it were alone. Parts were named after a count of
// saves, which the other process counted too: a part one root named was written over with the
// other's contents, and loaded as its own with no word.
describe("two processes saving into one cache", () => {
  const OTHER = "ollama:mxbai-embed-large";

  /** Note `n` as embedded by the model `vectorSeed` stands for, at the file's date and size (`edit` moves them). */
  function embedNote(s: VectorStore, n: number, vectorSeed: number, edit = 0): void {
    const units: EmbeddingUnit[] = [0, 1].map((u) => ({ kind: "section", headingPath: [`Part ${u}`], line: u * 5 + 1, start: u * 100, end: u * 100 + 90, text: `Part ${u} of note ${n}` }));
    s.put({ path: `Note ${n}.md`, mtime: 1_700_000_000_000 + n + edit, size: 1000 + n + edit }, units, units.map((_, u) => randomUnitVector(8, n * 31 + u + 1 + vectorSeed)));
  }

  function embedded(model: string, notes: number, vectorSeed: number): VectorStore {
    const s = new VectorStore(model);
    s.adoptDimensions(8);
    for (let n = 0; n < notes; n++) embedNote(s, n, vectorSeed);
    return s;
  }

  function expectLoadedAs(loaded: { store: VectorStore }, s: VectorStore): void {
    expect(loaded.store.size).toBe(s.size);
    for (const note of s.entries()) expect(loaded.store.note(note.path)).toEqual(note);
  }

  it("both save note 3, then the first saves again: the load gives back the first's note 3", async () => {
    const cache = new MemoryVectorCache();
    await saveStoredVectors(cache, embedded(MODEL, 200, 0));
    const first = (await loadStoredVectors(cache, MODEL)).store;
    const second = (await loadStoredVectors(cache, MODEL)).store;
    embedNote(first, 3, 1, 1);
    await saveStoredVectors(cache, first);
    embedNote(second, 3, 2, 2);
    await saveStoredVectors(cache, second);
    await saveStoredVectors(cache, first);
    const loaded = await loadStoredVectors(cache, MODEL);
    expect(loaded.reset).toBeNull();
    expectLoadedAs(loaded, first);
  });

  // Another model of the same dimensions (or another model behind the same name, told apart only by
  // the fingerprint the root keeps): a part records no model, so the other's rows loaded as this
  // model's under the very dates and sizes of the notes, and were never embedded again.
  it("a process on another model of the same dimensions: no load gives one model's vectors under the other's root", async () => {
    const cache = new MemoryVectorCache();
    await saveStoredVectors(cache, embedded(MODEL, 200, 0));
    const first = (await loadStoredVectors(cache, MODEL)).store;
    const other = await loadStoredVectors(cache, OTHER);
    expect(other.reset?.kind).toBe("model_changed");
    const second = other.store;
    second.adoptDimensions(8);
    for (let n = 0; n < 200; n++) embedNote(second, n, 5000);
    embedNote(first, 3, 1, 1);
    await saveStoredVectors(cache, first);
    await saveStoredVectors(cache, second);
    embedNote(first, 5, 1, 1);
    await saveStoredVectors(cache, first);
    embedNote(second, 7, 5000, 1);
    await saveStoredVectors(cache, second);
    const loaded = await loadStoredVectors(cache, OTHER);
    for (const note of loaded.store.entries()) expect(note.values).toEqual(second.note(note.path)!.values);
    // The parts the first's saves took away are written again: nothing to embed again either.
    expect(loaded.reset).toBeNull();
    expectLoadedAs(loaded, second);
  });

  it("a part another process took away is not called damage: its notes are said to be missing", async () => {
    const cache = new MemoryVectorCache();
    await saveStoredVectors(cache, embedded(MODEL, 100, 0));
    const gone = [...cache.parts.keys()].find((name) => name !== ROOT_PART)!;
    const notes = (await loadStoredVectors(cache, MODEL)).store.size;
    cache.parts.delete(gone);
    const loaded = await loadStoredVectors(cache, MODEL);
    expect(loaded.reset).toEqual({ kind: "notes_missing", notes: notes - loaded.store.size });
    expect(vectorResetWords(loaded.reset!)).not.toMatch(/damaged/);
  });

  // A load held up ten minutes between the root and its parts (a machine asleep): the other's saves
  // replaced every part, and the second took away those the root it read named.
  it("a load that meets a part replaced by another process's save since it read the root loads that save instead", async () => {
    const cache = new MemoryVectorCache();
    await saveStoredVectors(cache, embedded(MODEL, 100, 0));
    const other = (await loadStoredVectors(cache, MODEL)).store;
    for (let n = 0; n < 100; n++) embedNote(other, n, 9, 1);
    const read = cache.read.bind(cache);
    let saved = false;
    cache.read = async (name) => {
      if (name !== ROOT_PART && !saved) {
        saved = true;
        await saveStoredVectors(cache, other, 0, at(T0));
        await saveStoredVectors(cache, other, 0, at(T0 + UNLISTED_PART_GRACE_MS));
      }
      return read(name);
    };
    const loaded = await loadStoredVectors(cache, MODEL);
    expect(loaded.reset).toBeNull();
    expectLoadedAs(loaded, other);
  });

  // Process A's save has written its parts; before its root, process B's save takes away every part
  // its own root does not name, A's included; A's root then named parts that were gone, and the next
  // load embedded all 50 notes again (`notes_missing`).
  it("a save of another process between this one's parts and its root leaves them: the root names parts that are there", async () => {
    const cache = new MemoryVectorCache();
    const a = embedded(MODEL, 50, 0);
    const b = embedded(MODEL, 50, 7);
    const aSaving: VectorCache = {
      read: (name) => cache.read(name),
      names: () => cache.names(),
      remove: (names) => cache.remove(names),
      clear: () => cache.clear(),
      write: async (name, bytes) => {
        if (name === ROOT_PART) await saveStoredVectors(cache, b, 0, at(T0));
        await cache.write(name, bytes);
      },
    };
    await saveStoredVectors(aSaving, a, 0, at(T0));
    const loaded = await loadStoredVectors(cache, MODEL);
    expect(loaded.reset).toBeNull();
    expectLoadedAs(loaded, a);
    // B's parts, which no root names now, go ten minutes after A's save found them.
    const named = () => rootOf(cache).parts.map((p) => p.name).sort();
    expect(vectorPartsIn(cache)).not.toEqual(named());
    await saveStoredVectors(cache, a, 0, at(T0 + UNLISTED_PART_GRACE_MS));
    expect(vectorPartsIn(cache)).toEqual(named());
  });

  // A's first save (every part new) had written its first part when the wall clock was set forward an
  // hour; B's save then read that part's date as an hour old and took it away; A's root named it, and
  // the next load embedded those notes again (`notes_missing`).
  it("a part of its own another process takes away before the root, in a save that wrote every part, is written again", async () => {
    const cache = new MemoryVectorCache();
    let wall = T0;
    cache.now = () => wall;
    const b = embedded(MODEL, 50, 7);
    await saveStoredVectors(cache, b, 0, at(wall));
    const a = embedded(MODEL, 50, 0);
    let hooked = false;
    const aSaving: VectorCache = {
      read: (name) => cache.read(name),
      names: () => cache.names(),
      writtenAt: (name) => cache.writtenAt(name),
      remove: (names) => cache.remove(names),
      clear: () => cache.clear(),
      write: async (name, bytes) => {
        await cache.write(name, bytes);
        if (hooked || name === ROOT_PART) return;
        hooked = true;
        wall += 60 * 60_000;
        await saveStoredVectors(cache, b, 0, at(wall));
      },
    };
    await saveStoredVectors(aSaving, a, 0, at(T0));
    const loaded = await loadStoredVectors(cache, MODEL);
    expect(loaded.reset).toBeNull();
    expectLoadedAs(loaded, a);
  });

  // A process that read an older root (A) sees parts another wrote long ago (by their date) as
  // leftovers, and takes them away at once: mid-save of B, which keeps them and listed them at its start.
  it("a kept part another process takes away while this one saves is written again before the root", async () => {
    const cache = new MemoryVectorCache();
    let now = T0;
    cache.now = () => now;
    const a = embedded(MODEL, 60, 3);
    await saveStoredVectors(cache, embedded(MODEL, 60, 0), 0, at(now));
    const b = (await loadStoredVectors(cache, MODEL)).store;
    now = T0 + UNLISTED_PART_GRACE_MS;
    embedNote(b, 3, 1, 1);
    let aSaved = false;
    const bSaving: VectorCache = {
      read: (name) => cache.read(name),
      names: () => cache.names(),
      remove: (names) => cache.remove(names),
      clear: () => cache.clear(),
      writtenAt: (name) => cache.writtenAt(name),
      write: async (name, bytes) => {
        await cache.write(name, bytes);
        if (aSaved) return;
        aSaved = true;
        await saveStoredVectors(cache, a, 0, at(now));
      },
    };
    await saveStoredVectors(bSaving, b, 0, at(now));
    const loaded = await loadStoredVectors(cache, MODEL);
    expect(loaded.reset).toBeNull();
    expectLoadedAs(loaded, b);
  });

  // A process killed mid-save leaves parts no root names and no process of its will ever name.
  it("parts of a save killed midway go at the first save after they were written ten minutes ago, when the cache dates its parts", async () => {
    const cache = new MemoryVectorCache();
    let now = T0;
    cache.now = () => now;
    const s = embedded(MODEL, 50, 0);
    await saveStoredVectors(cache, s, 0, at(now));
    const kept = vectorPartsIn(cache);
    let killedAtRoot = (): void => undefined;
    const atRoot = new Promise<void>((resolve) => (killedAtRoot = resolve));
    const dying: VectorCache = {
      read: (name) => cache.read(name),
      names: () => cache.names(),
      remove: (names) => cache.remove(names),
      clear: () => cache.clear(),
      // Its root is never written: the process is gone.
      write: (name, bytes) => (name === ROOT_PART ? (killedAtRoot(), new Promise<void>(() => undefined)) : cache.write(name, bytes)),
    };
    void saveStoredVectors(dying, embedded(MODEL, 50, 4), 0, at(now));
    await atRoot;
    expect(vectorPartsIn(cache).length).toBeGreaterThan(kept.length);
    // The next session: a save a minute later leaves them (they may be a save under way), one ten minutes after their writing takes them away.
    const next = (await loadStoredVectors(cache, MODEL)).store;
    now = T0 + 60_000;
    await saveStoredVectors(cache, next, 0, at(now));
    expect(vectorPartsIn(cache).length).toBeGreaterThan(kept.length);
    now = T0 + UNLISTED_PART_GRACE_MS;
    await saveStoredVectors(cache, next, 0, at(now));
    expect(vectorPartsIn(cache)).toEqual(kept);
  });

  // A process that read the root a save replaced may be loading its parts, or keep them in its next save.
  it("a process loading the root another's save replaced still finds every part it names", async () => {
    const cache = new MemoryVectorCache();
    await saveStoredVectors(cache, embedded(MODEL, 100, 0), 0, at(T0));
    const other = (await loadStoredVectors(cache, MODEL)).store;
    for (let n = 0; n < 100; n++) embedNote(other, n, 9, 1);
    const read = cache.read.bind(cache);
    const rootsRead: string[] = [];
    let saved = false;
    let saving = false;
    cache.read = async (name) => {
      // The save reads the root it replaces too: only the load's reads are counted.
      if (name === ROOT_PART) {
        if (!saving) rootsRead.push(name);
      } else if (!saved) {
        saved = saving = true;
        await saveStoredVectors(cache, other, 0, at(T0 + 60_000));
        saving = false;
      }
      return read(name);
    };
    const loaded = await loadStoredVectors(cache, MODEL);
    expect(loaded.reset).toBeNull();
    expect(rootsRead).toHaveLength(1);
    expectLoadedAs(loaded, embedded(MODEL, 100, 0));
  });

  // `embed` beside the MCP server: ten minutes after `embed` saved, the server's save replaced its root
  // and took its parts away at once by their dates, while a search was loading them.
  it("a process loading another's root still finds every part it names when this process's save replaces that root", async () => {
    let wall = T0;
    const cache = new MemoryVectorCache();
    cache.now = () => wall;
    const server = embedded(MODEL, 100, 0);
    await saveStoredVectors(cache, server, 0, at(wall));
    const command = (await loadStoredVectors(cache, MODEL)).store;
    for (let n = 0; n < 100; n++) embedNote(command, n, 9, 1);
    await saveStoredVectors(cache, command, 0, at(wall));
    const commandParts = rootOf(cache).parts.map((p) => p.name);
    wall += 11 * 60_000;
    embedNote(server, 3, 0, 2);
    const read = cache.read.bind(cache);
    const rootsRead: string[] = [];
    let saved = false;
    let saving = false;
    cache.read = async (name) => {
      // The save reads the root it replaces too: only the load's reads are counted.
      if (name === ROOT_PART) {
        if (!saving) rootsRead.push(name);
      } else if (!saved) {
        saved = saving = true;
        await saveStoredVectors(cache, server, 0, at(wall));
        saving = false;
      }
      return read(name);
    };
    const loaded = await loadStoredVectors(cache, MODEL);
    cache.read = read;
    expect(loaded.reset).toBeNull();
    expect(rootsRead).toHaveLength(1);
    expectLoadedAs(loaded, command);
    // Ten minutes after the save that replaced that root, they go.
    wall += UNLISTED_PART_GRACE_MS;
    await saveStoredVectors(cache, server, 0, at(wall));
    expect(commandParts.filter((name) => cache.parts.has(name))).toEqual([]);
  });

  it("parts no root names are taken away once a save found them ten minutes ago, under the names of old saves too", async () => {
    const cache = new MemoryVectorCache();
    const s = embedded(MODEL, 50, 0);
    await saveStoredVectors(cache, s);
    const some = cache.parts.get([...cache.parts.keys()].find((name) => name !== ROOT_PART)!)!;
    cache.parts.set("vectors-7-3", some);
    cache.parts.set("vectors-00112233445566ff-3", some);
    await saveStoredVectors(cache, s, 0, at(T0));
    expect(cache.parts.has("vectors-7-3")).toBe(true);
    await saveStoredVectors(cache, s, 0, at(T0 + UNLISTED_PART_GRACE_MS));
    expect([...cache.parts.keys()].filter((name) => name.startsWith("vectors-")).sort()).toEqual(rootOf(cache).parts.map((p) => p.name).sort());
  });
});
