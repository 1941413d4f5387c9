// The vectors in parts: a save writes what changed, never the whole store; a part that is not as
// written (a sign flipped, two values swapped: a norm that still agrees) is found and its notes
// embedded again, the rest kept; a save killed midway leaves what the last save wrote.
import { describe, expect, it } from "vitest";
import type { EmbeddingUnit } from "../../../src/index/embeddings/embedding-units";
import { readVectors, serializeVectors } from "../../../src/index/embeddings/vector-file";
import { loadStoredVectors, ROOT_PART, saveStoredVectors } from "../../../src/index/embeddings/vector-parts";
import { vectorResetWords } from "../../../src/index/embeddings/vector-reset";
import { VectorStore } from "../../../src/index/embeddings/vector-store";
import { MemoryVectorCache, nameByCount, rootOf } from "./memory-vector-cache";
import { randomUnitVector } from "./random-vectors";

const MODEL = "ollama:nomic-embed-text";

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
    await saveStoredVectors(cache, s);
    expect(cache.written).toHaveLength(2);
    expect(cache.written[1]).toBe(ROOT_PART);
    expect(cache.bytesWritten).toBeLessThan(whole / 20);
    // The part it replaced is gone; what is left loads as the store is.
    const loaded = await loadStoredVectors(cache, MODEL);
    expect([loaded.reset, loaded.store.size]).toEqual([null, 2000]);
    expect(loaded.store.note("Folder 3/Note 17.md")).toEqual(s.note("Folder 3/Note 17.md"));
    // 2,000 notes fill every one of the 64 buckets: 64 parts and the root, nothing left over.
    expect(cache.parts.size).toBe(65);
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
    await saveStoredVectors(cache, s);
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
    await saveStoredVectors(cache, loaded.store);
    expect(new TextDecoder().decode(cache.parts.get(ROOT_PART)!.subarray(0, 4))).toBe("VRV3");
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

  it("another model's vectors are thrown away, counted, and their parts taken away at the next save", async () => {
    const cache = new MemoryVectorCache();
    await saveStoredVectors(cache, store(9, 8));
    const loaded = await loadStoredVectors(cache, "openai:text-embedding-3-small");
    expect(loaded.reset).toEqual({ kind: "model_changed", from: MODEL, to: "openai:text-embedding-3-small", notes: 9 });
    expect(loaded.store.size).toBe(0);
    await saveStoredVectors(cache, loaded.store);
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
        await saveStoredVectors(cache, other);
      }
      return read(name);
    };
    const loaded = await loadStoredVectors(cache, MODEL);
    expect(loaded.reset).toBeNull();
    expectLoadedAs(loaded, other);
  });

  it("parts no root names are taken away at the next save, under the names of old saves too", async () => {
    const cache = new MemoryVectorCache();
    const s = embedded(MODEL, 50, 0);
    await saveStoredVectors(cache, s);
    const some = cache.parts.get([...cache.parts.keys()].find((name) => name !== ROOT_PART)!)!;
    cache.parts.set("vectors-7-3", some);
    cache.parts.set("vectors-00112233445566ff-3", some);
    await saveStoredVectors(cache, s);
    expect([...cache.parts.keys()].filter((name) => name.startsWith("vectors-")).sort()).toEqual(rootOf(cache).parts.map((p) => p.name).sort());
  });
});
