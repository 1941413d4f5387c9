// The passages a large vault's language is learned from: the smallest keys, whatever order they
// were offered in (in the order offered while under the limit); a note that comes or goes changes the sample
// by its own passages and the few at the cut-off only (a reservoir drawn in reading order did not).
import { describe, expect, it } from "vitest";
import { createAnalyzer } from "../../../src/index/tokenize";
import { MAX_NOTE_CHARS } from "../../../src/index/note-limit";
import { notesReadAgain, passageKey, samplePassages, SmallestKeys } from "../../../src/index/vault-language/passage-sample";
import { NO_SLICES } from "../../../src/index/work-slice";
import { MemoryNoteStore } from "../../support/memory-note-store";

/** Every passage of `notes` (path → passage count) offered in path order, as the lane reads them. */
function sampleOf(notes: Map<string, number>, limit: number): string[] {
  const sample = new SmallestKeys<string>(limit);
  for (const path of [...notes.keys()].sort()) for (let place = 0; place < notes.get(path)!; place++) sample.offer(passageKey(path, place), `${path}#${place}`);
  return sample.items();
}

function vault(count: number): Map<string, number> {
  return new Map(Array.from({ length: count }, (_, i) => [`notes/n${String(i).padStart(4, "0")}.md`, 1 + (i % 5)]));
}

describe("SmallestKeys", () => {
  it("keeps the items of smallest key", () => {
    const sample = new SmallestKeys<string>(3);
    for (const [key, item] of [[5, "a"], [1, "b"], [9, "c"], [3, "d"], [7, "e"], [2, "f"]] as const) sample.offer(key, item);
    expect(sample.items().sort()).toEqual(["b", "d", "f"]);
    const many = new SmallestKeys<number>(100);
    const keys = Array.from({ length: 5000 }, (_, i) => passageKey("n.md", i));
    keys.forEach((k) => many.offer(k, k));
    expect(many.items().sort((a, b) => a - b)).toEqual([...keys].sort((a, b) => a - b).slice(0, 100));
  });

  it("keeps every item below its limit, and none at a limit of 0", () => {
    const all = new SmallestKeys<number>(10);
    [4, 8, 1].forEach((n) => all.offer(n, n));
    expect(all.items()).toEqual([4, 8, 1]);
    // Exactly at the limit, a larger key does not come in; a smaller one does.
    const full = new SmallestKeys<number>(3);
    [4, 8, 1, 9].forEach((n) => full.offer(n, n));
    expect(full.items().sort()).toEqual([1, 4, 8]);
    full.offer(2, 2);
    expect(full.items().sort()).toEqual([1, 2, 4]);
    const none = new SmallestKeys<number>(0);
    none.offer(1, 1);
    expect(none.items()).toEqual([]);
  });

  it("keeps the same items whatever order they come in", () => {
    const keys = Array.from({ length: 500 }, (_, i) => passageKey(`p${i}`, i % 3));
    const forward = new SmallestKeys<number>(50);
    const backward = new SmallestKeys<number>(50);
    keys.forEach((k, i) => forward.offer(k, i));
    [...keys].reverse().forEach((k, i) => backward.offer(k, keys.length - 1 - i));
    expect(new Set(backward.items())).toEqual(new Set(forward.items()));
  });
});

describe("passageKey", () => {
  it("is a whole number below 2^53, other for another place or another path", () => {
    const keys = new Set<number>();
    for (let n = 0; n < 200; n++) {
      for (let place = 0; place < 20; place++) {
        const key = passageKey(`folder/note ${n}.md`, place);
        expect(Number.isSafeInteger(key) && key >= 0).toBe(true);
        keys.add(key);
      }
    }
    expect(keys.size).toBe(4000);
  });

  it("spreads keys evenly: each tenth of the range holds about a tenth of them", () => {
    const tenths = new Array(10).fill(0);
    for (let n = 0; n < 2000; n++) for (let place = 0; place < 5; place++) tenths[Math.floor((passageKey(`n${n}.md`, place) / 2 ** 53) * 10)]++;
    for (const t of tenths) expect(t).toBeGreaterThan(850);
    for (const t of tenths) expect(t).toBeLessThan(1150);
  });
});

describe("a vault's sample", () => {
  it("changes by one note's passages and the cut-off's when a note that sorts first comes or goes", () => {
    const notes = vault(2000);
    const before = sampleOf(notes, 1500);
    const grown = new Map([["aaa first.md", 4], ...notes]);
    const after = sampleOf(grown, 1500);
    const left = before.filter((p) => !after.includes(p));
    const joined = after.filter((p) => !before.includes(p));
    // At most the new note's 4 passages came in, and as many at the cut-off went.
    expect(joined.every((p) => p.startsWith("aaa first.md#"))).toBe(true);
    expect(left.length).toBe(joined.length);
    expect(left.length).toBeLessThanOrEqual(4);
    // Removing it again gives the first sample back.
    expect(sampleOf(notes, 1500)).toEqual(before);
  });

  it("is every passage, in reading order, when the vault is under the limit", () => {
    const notes = vault(30);
    const all = [...notes.keys()].sort().flatMap((path) => Array.from({ length: notes.get(path)! }, (_, place) => `${path}#${place}`));
    expect(sampleOf(notes, 10_000)).toEqual(all);
  });
});

describe("samplePassages", () => {
  /** 400 notes of three sections each (one passage a section), every passage told apart by its word. */
  function notes(): Record<string, string> {
    const files: Record<string, string> = {};
    for (let n = 0; n < 400; n++) files[`notes/n${String(n).padStart(3, "0")}.md`] = [0, 1, 2].map((s) => `## Part ${s}\n\nword${n}x${s} about things`).join("\n\n");
    return files;
  }

  async function sample(files: Record<string, string>, max: number): Promise<string[]> {
    const store = new MemoryNoteStore(files);
    const paths = Object.keys(files);
    const passages = await samplePassages({ store, analyzer: createAnalyzer({ stemming: true }), paths: () => paths, holds: (p) => p in files, maxNoteChars: MAX_NOTE_CHARS }, max, NO_SLICES, () => false);
    return passages.map((p) => p.find((t) => t.startsWith("word"))!);
  }

  it("reads every note's passages when they are fewer than the limit", async () => {
    expect(await sample(notes(), 10_000)).toHaveLength(1200);
  });

  it("keeps its sample when a note that sorts first comes: only the new note's passages come in", async () => {
    const before = await sample(notes(), 600);
    expect(before).toHaveLength(600);
    const after = await sample({ ...notes(), "aaa.md": "## One\n\nwordnew0 a\n\n## Two\n\nwordnew1 b" }, 600);
    const joined = after.filter((w) => !before.includes(w));
    expect(joined.every((w) => w.startsWith("wordnew"))).toBe(true);
    expect(before.filter((w) => !after.includes(w)).length).toBe(joined.length);
  });

  it("cuts the words with an analyser of its own, so the index's keeps no memo of the whole vault", async () => {
    const files = notes();
    const indexes = createAnalyzer({ stemming: true });
    let asked = 0;
    const counted = { ...indexes, analyzeWord: (w: string) => (asked++, indexes.analyzeWord(w)), terms: (t: string) => (asked++, indexes.terms(t)) };
    const paths = Object.keys(files);
    const passages = await samplePassages({ store: new MemoryNoteStore(files), analyzer: counted, paths: () => paths, holds: () => true, maxNoteChars: MAX_NOTE_CHARS }, 10_000, NO_SLICES, () => false);
    expect(asked).toBe(0);
    // Cut as the index's options say: stemmed.
    expect(passages[0]).toEqual(["n000", "part", "0", "word0x0", "about", "thing"]);
  });

  it("skips a note no longer indexed", async () => {
    const files = notes();
    const store = new MemoryNoteStore(files);
    const paths = Object.keys(files);
    const passages = await samplePassages({ store, analyzer: createAnalyzer({ stemming: true }), paths: () => paths, holds: (p) => p !== "notes/n000.md", maxNoteChars: MAX_NOTE_CHARS }, 10_000, NO_SLICES, () => false);
    expect(passages).toHaveLength(1197);
  });
});

describe("notesReadAgain", () => {
  const analyzer = createAnalyzer({ stemming: true });
  async function readAgain(files: Record<string, string>, maxNoteChars: number, batchChars?: number): Promise<[string, string][][]> {
    const paths = Object.keys(files);
    const source = { store: new MemoryNoteStore(files), analyzer, paths: () => paths, holds: (p: string) => p in files, maxNoteChars };
    const batches: [string, string][][] = [];
    for await (const batch of notesReadAgain(source, NO_SLICES, () => false, batchChars)) batches.push(batch);
    return batches;
  }

  it("waits for each batch's reads through the slice, so a store answering without a turn still pauses between batches", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 300; i++) files[`n${String(i).padStart(3, "0")}.md`] = `note ${i}`;
    const paths = Object.keys(files);
    const source = { store: new MemoryNoteStore(files), analyzer, paths: () => paths, holds: (p: string) => p in files, maxNoteChars: 1000 };
    let waits = 0;
    let restarts = 0;
    const slice = {
      ...NO_SLICES,
      restart: () => void restarts++,
      waitFor: <T>(wait: Promise<T>): Promise<T> => {
        waits++;
        return wait;
      },
    };
    let notes = 0;
    for await (const batch of notesReadAgain(source, slice, () => false)) notes += batch.length;
    expect(notes).toBe(300);
    // One wait a batch of reads, and no restart that would forget the work done before the read.
    expect(waits).toBeGreaterThan(1);
    expect(restarts).toBe(0);
  });

  it("hands on the part of a note the index indexed, cut where the index cuts it", async () => {
    const long = `## Start\n\nkestrel ${"a ".repeat(600)}\n\n## Past the limit\n\npelican`;
    const [batch] = await readAgain({ "long.md": long, "short.md": "pelican" }, 1000);
    expect(batch).toEqual([
      ["long.md", long.slice(0, 1000)],
      ["short.md", "pelican"],
    ]);
    const store = new MemoryNoteStore({ "long.md": long });
    const passages = await samplePassages({ store, analyzer, paths: () => ["long.md"], holds: () => true, maxNoteChars: 1000 }, 100, NO_SLICES, () => false);
    expect(passages.flat()).toContain("kestrel");
    expect(passages.flat()).not.toContain("pelican");
  });

  it("hands on batches of at most batchChars of text (a longer note alone), every note once, in path order", async () => {
    const files: Record<string, string> = {};
    for (let n = 0; n < 10; n++) files[`n${n}.md`] = String(n).repeat(n === 4 ? 5000 : 1000);
    const batches = await readAgain(files, MAX_NOTE_CHARS, 2500);
    expect(batches.map((b) => b.map(([path]) => path))).toEqual([["n0.md", "n1.md"], ["n2.md", "n3.md"], ["n4.md"], ["n5.md", "n6.md"], ["n7.md", "n8.md"], ["n9.md"]]);
    expect(batches.flat()).toEqual(Object.entries(files));
  });
});
