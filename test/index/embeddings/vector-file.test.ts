// The vectors' file: a round trip that loses nothing, and every way a file can be unusable is an
// empty store with a reason, never an error.
import { describe, expect, it } from "vitest";
import { UNITS_CUT, type EmbeddingUnit } from "../../../src/index/embeddings/embedding-units";
import { readVectors, serializeVectors } from "../../../src/index/embeddings/vector-file";
import { VectorStore } from "../../../src/index/embeddings/vector-store";
import { vectorResetWords } from "../../../src/index/embeddings/vector-reset";
import { randomUnitVector } from "./random-vectors";
import { rewriteVectorHeader } from "./rewrite-vector-header";

function store(notes: number, dimensions: number, unitsPerNote = 3): VectorStore {
  const s = new VectorStore("ollama:nomic-embed-text");
  s.adoptDimensions(dimensions);
  for (let n = 0; n < notes; n++) {
    const units: EmbeddingUnit[] = Array.from({ length: unitsPerNote }, (_, u) => ({ kind: u === 0 ? "title" : "section", headingPath: u === 0 ? [] : [`Part ${u}`], line: u * 5 + 1, start: u * 100, end: u * 100 + 90, text: `Part ${u} of note ${n}` }));
    s.put({ path: `Folder ${n % 7}/Note ${n}.md`, mtime: 1_700_000_000_000 + n, size: 1000 + n }, units, units.map((_, u) => randomUnitVector(dimensions, n * 31 + u + 1)));
  }
  return s;
}

describe("vector file", () => {
  it("round-trips notes, places and int8 rows exactly", () => {
    const original = store(20, 48);
    const loaded = readVectors(serializeVectors(original), "ollama:nomic-embed-text");
    expect(loaded.reset).toBeNull();
    expect(loaded.store.dimensions).toBe(48);
    expect(loaded.store.size).toBe(20);
    for (const note of original.entries()) expect(loaded.store.note(note.path)).toEqual(note);
    const query = randomUnitVector(48, 999);
    expect(loaded.store.nearestSections(query, 5)).toEqual(original.nearestSections(query, 5));
  });

  it("keeps the model's fingerprint, and reads a file from before it was kept as having none", () => {
    const original = store(3, 48);
    original.adoptFingerprint(randomUnitVector(48, 7));
    const bytes = serializeVectors(original);
    const loaded = readVectors(bytes, "ollama:nomic-embed-text").store;
    const kept = loaded.fingerprint!;
    expect(kept).toHaveLength(48);
    expect(Math.max(...Array.from(kept, (x, i) => Math.abs(x - original.fingerprint![i])))).toBeLessThan(1e-6);
    const older = readVectors(
      rewriteVectorHeader(bytes, ({ fingerprint: _fingerprint, ...rest }) => rest),
      "ollama:nomic-embed-text",
    );
    expect(older.reset).toBeNull();
    expect(older.store.fingerprint).toBeNull();
    expect(older.store.size).toBe(3);
  });

  it("reads a file saved before the first vector as a store of no dimensions yet (not 0)", () => {
    const loaded = readVectors(serializeVectors(new VectorStore("ollama:nomic-embed-text")), "ollama:nomic-embed-text");
    expect(loaded.reset).toBeNull();
    expect(loaded.store.dimensions).toBeNull();
    expect(loaded.store.adoptDimensions(48)).toBeNull();
  });

  it("keeps how each note's units were cut and what they sent, so a later version can check them", () => {
    const original = store(2, 8);
    const header = (bytes: Uint8Array) => JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + new DataView(bytes.buffer).getUint32(4, true)))) as { notes: { cut: string; hash: string }[] };
    const written = header(serializeVectors(original)).notes;
    expect(written.map((n) => n.cut)).toEqual([UNITS_CUT, UNITS_CUT]);
    expect(written[0].hash).toMatch(/^[0-9a-f]{16}$/);
    expect(written[0].hash).not.toBe(written[1].hash);
  });

  it("a file from before the cut was kept loads whole, its notes to be checked, not thrown away", () => {
    const older = rewriteVectorHeader(serializeVectors(store(3, 8)), (h) => ({ ...h, notes: h.notes.map(({ cut: _cut, hash: _hash, ...rest }) => rest) }));
    const loaded = readVectors(older, "ollama:nomic-embed-text");
    expect(loaded.reset).toBeNull();
    expect(loaded.store.size).toBe(3);
    const files = Array.from(loaded.store.entries(), (n) => ({ path: n.path, mtime: n.mtime, size: n.size }));
    expect(loaded.store.plan(files)).toMatchObject({ toEmbed: [], unchanged: 0, toCheck: files });
    // Their vectors still answer meanwhile.
    expect(loaded.store.nearestNotes(randomUnitVector(8, 5), 3)).toHaveLength(3);
  });

  // 1 / |row| is never believed as stored: one of 1e30 made a cosine of 1e32 and put its note
  // first. Nor is a note whose stored 1 / |row| disagrees with its row: which of the two was
  // damaged cannot be told, so it is embedded again.
  it.each([
    ["huge", 1e30],
    ["no number", Number.NaN],
    ["infinite", Number.POSITIVE_INFINITY],
    ["negative", -0.5],
    ["zero", 0],
  ])("a stored 1 / |row| that is %s makes no similarity: its note is left to be embedded again, the others kept", (_, damaged) => {
    const original = store(6, 16);
    const bytes = serializeVectors(original);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const norms = 8 + view.getUint32(4, true);
    // Note 2's unit 1 (rows: 4 a note, its own vector first).
    view.setFloat32(norms + (2 * 4 + 2) * 4, damaged, true);
    const loaded = readVectors(bytes, "ollama:nomic-embed-text");
    expect(loaded.reset).toEqual({ kind: "notes_damaged", notes: 1 });
    expect(loaded.store.size).toBe(5);
    expect(loaded.store.note("Folder 2/Note 2.md")).toBeUndefined();
    for (const note of original.entries()) if (note.path !== "Folder 2/Note 2.md") expect(loaded.store.note(note.path)).toEqual(note);
    expect(loaded.store.nearestNotes(randomUnitVector(16, 7), 6).every((n) => Math.abs(n.similarity) <= 1)).toBe(true);
  });

  // The rows are nearly all of a file: a bit flipped there loaded a skewed vector without a word,
  // and the next save wrote it back with a 1 / |row| to match, for good.
  it("a bit flipped in a note's vector leaves that note to be embedded again and keeps the others, saying so", () => {
    const original = store(6, 16);
    const bytes = serializeVectors(original);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const values = 8 + view.getUint32(4, true) + 6 * 4 * 4;
    // Note 4's unit 2, its fifth value: the lowest bit changes the row's sum of squares by an odd number.
    bytes[values + (4 * 4 + 3) * 16 + 5] ^= 0x01;
    const loaded = readVectors(bytes, "ollama:nomic-embed-text");
    expect(loaded.reset).toEqual({ kind: "notes_damaged", notes: 1 });
    expect(vectorResetWords(loaded.reset!)).toBe("The stored vectors of 1 note were damaged; that note will be embedded again, the others are kept.");
    expect([...loaded.store.entries()].map((n) => n.path)).toEqual([...original.entries()].map((n) => n.path).filter((p) => p !== "Folder 4/Note 4.md"));
    const files = [...original.entries()].map((n) => ({ path: n.path, mtime: n.mtime, size: n.size }));
    expect(loaded.store.plan(files).toEmbed.map((f) => f.path)).toEqual(["Folder 4/Note 4.md"]);
  });

  it("another model's file is thrown away as such, its damaged notes counted with the rest", () => {
    const bytes = serializeVectors(store(3, 8));
    bytes[bytes.length - 1] ^= 0x01;
    const loaded = readVectors(bytes, "openai:text-embedding-3-small");
    expect(loaded.store.size).toBe(0);
    expect(loaded.reset).toEqual({ kind: "model_changed", from: "ollama:nomic-embed-text", to: "openai:text-embedding-3-small", notes: 3 });
  });

  it("reads a file inside a bigger buffer (Node's pooled Buffers start at any offset)", () => {
    const bytes = serializeVectors(store(3, 16));
    const big = new Uint8Array(bytes.length + 3);
    big.set(bytes, 3);
    expect(readVectors(big.subarray(3), "ollama:nomic-embed-text").store.size).toBe(3);
  });

  it("costs about d + 4 bytes per section plus a little for its place (measured at 768 dimensions)", () => {
    const sections = 200 * 4;
    const bytes = serializeVectors(store(200, 768, 4)).length;
    // 4 units and the note's own vector per note; the header holds paths and places.
    const perSection = bytes / sections;
    expect(perSection).toBeGreaterThan(772);
    expect(perSection).toBeLessThan(772 * 1.25 + 60);
  });

  it("no file is an empty store and no reset", () => {
    expect(readVectors(null, "m")).toMatchObject({ reset: null });
    expect(readVectors(new Uint8Array(), "m").store.size).toBe(0);
  });

  it("another model's file is thrown away with the model_changed words", () => {
    const loaded = readVectors(serializeVectors(store(5, 8)), "openai:text-embedding-3-small");
    expect(loaded.store.size).toBe(0);
    expect(loaded.store.model).toBe("openai:text-embedding-3-small");
    expect(loaded.reset).toEqual({ kind: "model_changed", from: "ollama:nomic-embed-text", to: "openai:text-embedding-3-small", notes: 5 });
  });

  it.each([
    ["cut short", "corrupt", (b: Uint8Array) => b.subarray(0, b.length - 1)],
    ["too short for a header", "corrupt", () => new Uint8Array([0x56, 0x52])],
    ["not a vector file", "corrupt", () => new TextEncoder().encode('{"schema":"x"}')],
    ["in an older format", "old_version", (b: Uint8Array) => Uint8Array.from([0x56, 0x52, 0x56, 0x30, ...b.subarray(4)])],
    ["in a newer format", "newer_version", (b: Uint8Array) => Uint8Array.from([0x56, 0x52, 0x56, 0x32, ...b.subarray(4)])],
    ["whose tag only starts like ours", "corrupt", (b: Uint8Array) => Uint8Array.from([0x56, 0x52, 0x56, 0x21, ...b.subarray(4)])],
    ["with a header that is not JSON", "corrupt", (b: Uint8Array) => Uint8Array.from([...b.subarray(0, 8), 0x21, ...b.subarray(9)])],
  ])("a file %s is an empty store with a %s reset", (_, kind, damage) => {
    const loaded = readVectors(damage(serializeVectors(store(2, 8))), "ollama:nomic-embed-text");
    expect(loaded.store.size).toBe(0);
    expect(loaded.reset?.kind).toBe(kind);
    expect(vectorResetWords(loaded.reset!)).toMatch(/every note will be embedded again/);
  });

  // A file a later version wrote was called "in an older format (VRV2)".
  it("names a newer format as newer, not older", () => {
    const bytes = serializeVectors(store(2, 8));
    bytes[3] = 0x32;
    const reset = readVectors(bytes, "ollama:nomic-embed-text").reset!;
    expect(vectorResetWords(reset)).toBe("The stored vectors are in a newer format (VRV2) than this version of Vault Research reads; every note will be embedded again, in this version's format.");
  });

  // `embed` refuses vectors it cannot read (nothing sent, nothing written), so search and the MCP
  // server must not say every note will be embedded again.
  it("says vectors that cannot be read are left as they are, not embedded again", () => {
    const words = vectorResetWords({ kind: "unreadable", detail: "vectors-1-0.bin is a folder, not a file" });
    expect(words).toBe("The stored vectors could not be read (vectors-1-0.bin is a folder, not a file); they are left as they are, and searches go by words alone until they can be read.");
  });

  it("a header of the wrong shape is corrupt", () => {
    const header = new TextEncoder().encode(JSON.stringify({ schema: "vault-research.vectors.v1", model: "m", dimensions: -1, notes: [] }));
    const bytes = new Uint8Array(8 + header.length);
    bytes.set(new TextEncoder().encode("VRV1"));
    new DataView(bytes.buffer).setUint32(4, header.length, true);
    bytes.set(header, 8);
    expect(readVectors(bytes, "m").reset).toMatchObject({ kind: "corrupt", detail: expect.stringContaining("expected shape") as string });
  });
});
