// The notes' vectors as cache parts: a round trip keeps every vector and version; a part of other
// meanings, settings, dimensions or the wrong shape (a hole for a path, a list of paths longer than
// its vectors, found so without walking it) gives none; buckets spread paths and stay put;
// the number of parts grows with the vault and holds still while each part holds a fair share.
import { describe, expect, it } from "vitest";
import { quantize } from "../../../src/index/embeddings/quantize";
import { NO_SLICES } from "../../../src/index/work-slice";
import { bucketOf, bucketsFor, encodeNotesPart, isLanguagePartName, isNotesPartName, meaningsId, NOTE_BUCKETS, notesPartName, partOrder, readNotesPart, savedNotes } from "../../../src/index/vault-language/note-vector-file";
import { LANGUAGE_PART } from "../../../src/index/vault-language/vault-language-file";
import { listWalkedAtMost, withHole } from "../hole-lists";

const notes = [0, 1, 2].map((i) => ({ path: `n${i}.md`, version: { mtime: 1000 + i, size: 10 * i }, vector: quantize([i + 1, -1, 0.5, 2 - i]) }));

describe("notes' vector parts", () => {
  it("keep every vector and version through a save and a load", async () => {
    const part = encodeNotesPart(savedNotes(notes), 4, 77, "fp", 128);
    const read = await readNotesPart(structuredClone(part), 4, 77, "fp", NO_SLICES);
    expect(read!.buckets).toBe(128);
    const back = read!.notes;
    expect(back.map((n) => [n.path, n.version, Array.from(n.vector.values)])).toEqual(notes.map((n) => [n.path, n.version, Array.from(n.vector.values)]));
    back.forEach((n, i) => {
      expect(n.vector.invNorm).toBeCloseTo(notes[i].vector.invNorm, 6);
      expect(n.vector.scale).toBeCloseTo(notes[i].vector.scale, 6);
    });
  });

  it("read a part saved before the number of parts was kept as one of 64", async () => {
    const { buckets: _, ...older } = encodeNotesPart(savedNotes(notes), 4, 77, "fp", 256);
    const read = await readNotesPart(older, 4, 77, "fp", NO_SLICES);
    expect(read!.buckets).toBe(NOTE_BUCKETS);
    expect(read!.notes.map((n) => n.path)).toEqual(["n0.md", "n1.md", "n2.md"]);
  });

  // The lane multiplies a note's every similarity by it: 1,000 times too large, the note came first for any question.
  it("give none when a stored 1 / |v| disagrees with its values, and otherwise the very one quantize made", async () => {
    const part = encodeNotesPart(savedNotes(notes), 4, 77, "fp", 64);
    const read = await readNotesPart(structuredClone(part), 4, 77, "fp", NO_SLICES);
    // Worked out again from the values, as quantize worked it out: not its float32 rounding, which a restart gave.
    read!.notes.forEach((n, i) => expect(n.vector.invNorm).toBe(notes[i].vector.invNorm));
    const damaged = structuredClone(part);
    damaged.norms[2] *= 1000;
    expect(await readNotesPart(damaged, 4, 77, "fp", NO_SLICES)).toBeNull();
    // A note kept without a vector (its values zero) says so with 0, and keeps saying it.
    const none = encodeNotesPart(savedNotes([{ ...notes[0], vector: { values: new Int8Array(4), invNorm: 0, scale: 0 } }]), 4, 77, "fp", 64);
    expect((await readNotesPart(none, 4, 77, "fp", NO_SLICES))!.notes[0].vector.invNorm).toBe(0);
  });

  it("give none for other meanings, other settings, other dimensions or a wrong shape", async () => {
    const part = encodeNotesPart(savedNotes(notes), 4, 77, "fp", 64);
    expect(await readNotesPart(part, 4, 78, "fp", NO_SLICES)).toBeNull();
    expect(await readNotesPart(part, 4, 77, "other", NO_SLICES)).toBeNull();
    expect(await readNotesPart(part, 8, 77, "fp", NO_SLICES)).toBeNull();
    const broken: unknown[] = [
      null,
      "garbage",
      { ...part, format: "else" },
      { ...part, version: 2 },
      { ...part, paths: ["a.md"] },
      { ...part, values: part.values.slice(1) },
      { ...part, versions: new Float64Array([Number.NaN, 1, 2, 3, 4, 5]) },
      { ...part, norms: new Float32Array(6).fill(-1) },
      { ...part, values: Array.from(part.values) },
      { ...part, buckets: 0 },
      { ...part, buckets: 1.5 },
      { ...part, buckets: 1e21 },
      { ...part, buckets: "64" },
      // `every` skips a hole: its note's vector was kept under no path.
      { ...part, paths: withHole(part.paths, 1) },
      // A list's length is only a number: the typed arrays' bytes say how many notes there are.
      { ...part, paths: listWalkedAtMost(2 ** 32 - 1, 100) },
    ];
    for (const value of broken) expect(await readNotesPart(value, 4, 77, "fp", NO_SLICES)).toBeNull();
  });

  it("spread paths over every bucket, each path always in the same one", () => {
    for (const buckets of [NOTE_BUCKETS, 512]) {
      const seen = new Set<number>();
      for (let i = 0; i < 10_000; i++) {
        const b = bucketOf(`folder/note ${i}.md`, buckets);
        expect(b).toBeGreaterThanOrEqual(0);
        expect(b).toBeLessThan(buckets);
        seen.add(b);
      }
      expect(seen.size).toBe(buckets);
    }
    expect(bucketOf("a/b.md", 64)).toBe(bucketOf("a/b.md", 64));
  });

  it("put paths in an order that keeps each part's paths together, at any number of parts bucketsFor gives", () => {
    const paths = Array.from({ length: 5_000 }, (_, i) => `folder ${i % 9}/note ${i}.md`).sort((a, b) => partOrder(a) - partOrder(b));
    for (const buckets of [NOTE_BUCKETS, 128, 512, 4_096]) {
      // Each part's paths in one run: a part met again after another began would be a second run.
      const runs = paths.filter((p, i) => i === 0 || bucketOf(p, buckets) !== bucketOf(paths[i - 1], buckets));
      expect(new Set(runs.map((p) => bucketOf(p, buckets))).size).toBe(runs.length);
    }
    expect(partOrder("a/b.md")).toBe(partOrder("a/b.md"));
  });

  it("grow in number with the vault, a power of two near 300 notes a part, and hold still while a part holds 100 to 600", () => {
    expect(bucketsFor(0, null)).toBe(NOTE_BUCKETS);
    expect(bucketsFor(9_282, null)).toBe(64);
    expect(bucketsFor(19_200, null)).toBe(64);
    expect(bucketsFor(19_201, null)).toBe(128);
    expect(bucketsFor(100_000, null)).toBe(512);
    // A layout is kept while it fits…
    expect(bucketsFor(38_400, 64)).toBe(64);
    expect(bucketsFor(100_000, 256)).toBe(256);
    expect(bucketsFor(60_000, 512)).toBe(512);
    // …and 64 parts are kept however small the vault.
    expect(bucketsFor(3, 64)).toBe(64);
    // Past it, the notes are laid out anew.
    expect(bucketsFor(38_401, 64)).toBe(256);
    expect(bucketsFor(20_000, 512)).toBe(128);
  });

  it("are told from the index's parts by name, and meanings from one another by their values", () => {
    expect(isLanguagePartName(LANGUAGE_PART)).toBe(true);
    expect(isLanguagePartName(notesPartName(12))).toBe(true);
    expect(isLanguagePartName("manifest")).toBe(false);
    expect(isLanguagePartName("segment-1-0")).toBe(false);
    expect(isNotesPartName(notesPartName(700))).toBe(true);
    expect(isNotesPartName(LANGUAGE_PART)).toBe(false);
    const values = Int8Array.from({ length: 512 }, (_, i) => (i * 7) % 255 - 127);
    const other = values.slice();
    other[0] = values[0] === 1 ? 2 : 1;
    const id = (v: Int8Array, words: number) => meaningsId(v.length, (i) => v[i], words);
    expect(id(values, 4)).toBe(id(values.slice(), 4));
    expect(id(other, 4)).not.toBe(id(values, 4));
    expect(id(values, 5)).not.toBe(id(values, 4));
    // Only the values it hashes are asked for: about 4,096, evenly spaced.
    const asked: number[] = [];
    meaningsId(20_000 * 128, (i) => (asked.push(i), 0), 20_000);
    expect(asked.length).toBe(4096);
    expect(asked[1] - asked[0]).toBe(625);
  });
});
