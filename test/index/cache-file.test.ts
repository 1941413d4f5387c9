// The saved index's parts: what goes in comes back, and anything else — another program's data,
// another version, other settings, or the right header over parts of the wrong shape — is a reason
// to rebuild, never an exception.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { INDEX_FORMAT_VERSION, readManifest, readSegment, Uint32Appender, writeSegment, type Manifest, type SegmentEntry } from "../../src/index/cache-file";
import { describeRebuildReason, type RebuildReason } from "../../src/index/rebuild-reason";
import { parseNote } from "../../src/index/markdown";
import { createEngine, toEngineDoc } from "../../src/index/search-engine";
import { createAnalyzer } from "../../src/index/tokenize";
import type { IndexedNote } from "../../src/index/types";
import { VaultIndex } from "../../src/index/vault-index";
import { NO_SLICES, type WorkSlice } from "../../src/index/work-slice";
import { MemoryIndexCache } from "../support/memory-index-cache";
import { partsOf, withReplaced } from "./cache-parts";

/** Any JSON value, or nothing at all (the part is then missing). */
const valueOrNothing = fc.oneof(fc.jsonValue(), fc.constant(undefined));

const FINGERPRINT = JSON.stringify({ stemming: true, excluded: [] });

/**
 * A saved segment as this file reads and breaks it: cache-file.ts's SegmentPart, which it keeps to
 * itself, field by field (a note row in its order: short id, path, mtime, size, title, aliases,
 * tags, source URLs, problems, field lengths). A change of the format is a change here too.
 */
const noteRowSchema = z.tuple([
  z.number(),
  z.string(),
  z.number(),
  z.number(),
  z.string(),
  z.array(z.string()),
  z.array(z.string()),
  z.array(z.string()),
  z.array(z.looseObject({ kind: z.string(), message: z.string() })),
  z.array(z.number()),
]);
const segmentSchema = z.looseObject({ first: z.number(), end: z.number(), notes: z.array(noteRowSchema), terms: z.array(z.string()), postings: z.instanceof(Uint32Array) });
type SavedSegment = z.infer<typeof segmentSchema>;

/** Sets `key` of a part to a value its type does not allow, as a damaged cache holds. */
function put(part: object, key: string | number, value: unknown): void {
  Reflect.set(part, key, value);
}

/** Takes away `key` of a part: a field its type says is always there, or a list's item (a hole). */
function remove(part: object, key: string | number): void {
  Reflect.deleteProperty(part, key);
}

async function savedIndex(): Promise<MemoryIndexCache> {
  const index = new VaultIndex();
  index.applyText("Alpha.md", "---\ntags: [zoo]\nsource: https://example.com/a\n---\n# Alpha\n\nAbout aardvarks.\n", 1, 10);
  index.applyText("Beta.md", "---\ntitle: never closed\n\nAbout badgers.\n", 2, 20);
  index.applyText("Gamma.md", "# Gamma\n\nAbout gazelles.\n", 3, 30);
  index.removeFile("Gamma.md"); // a discarded note leaves postings behind until MiniSearch vacuums
  const cache = new MemoryIndexCache();
  await index.save(cache);
  return cache;
}

const CACHE = await savedIndex();
const MANIFEST = CACHE.manifest();
const ENTRY: SegmentEntry = MANIFEST.segments[0];
const SEGMENT: SavedSegment = segmentSchema.parse(CACHE.parts.get(ENTRY.name));

function manifestWords(value: unknown): string {
  const read = readManifest(value, FINGERPRINT);
  return read.ok ? "ok" : describeRebuildReason(read.reason);
}

/** The segment read into a fresh engine: the notes it gave back, or why it could not be used. */
async function loaded(segment: unknown, entry: SegmentEntry = ENTRY): Promise<{ reason: RebuildReason | null; notes: IndexedNote[]; documents: number }> {
  const engine = createEngine(createAnalyzer({ stemming: true }));
  const notes: IndexedNote[] = [];
  const reason = await readSegment(segment, entry, engine, (n) => notes.push(n), NO_SLICES);
  return { reason, notes, documents: engine.documentCount };
}

async function segmentWords(segment: unknown, entry: SegmentEntry = ENTRY): Promise<string> {
  const { reason } = await loaded(segment, entry);
  return reason ? describeRebuildReason(reason) : "ok";
}

const changedSegment = (edit: (s: SavedSegment) => void) => {
  const copy = structuredClone(SEGMENT);
  edit(copy);
  return copy;
};
const changedManifest = (edit: (m: Manifest) => void) => {
  const copy = structuredClone(MANIFEST);
  edit(copy);
  return copy;
};

describe("readManifest and readSegment", () => {
  it("give back the notes and the postings that were saved, and only the notes still in the index", async () => {
    expect(readManifest(MANIFEST, FINGERPRINT)).toEqual({ ok: true, manifest: MANIFEST });
    expect(MANIFEST.segments).toHaveLength(1);
    const { reason, notes, documents } = await loaded(SEGMENT);
    expect(reason).toBeNull();
    expect(notes.map((n) => [n.path, n.mtime, n.size, n.title])).toEqual([
      ["Alpha.md", 1, 10, "Alpha"],
      ["Beta.md", 2, 20, "Beta"],
    ]);
    expect(notes[0]).toMatchObject({ tags: ["zoo"], sourceUrls: ["https://example.com/a"] });
    expect(notes[1].problems).toEqual([expect.objectContaining({ kind: "frontmatter" })]);
    expect(documents).toBe(2);
  });

  it("names what is wrong with a manifest that is not usable", () => {
    expect(readManifest("{not a manifest", FINGERPRINT)).toEqual({ ok: false, reason: { kind: "not_an_index" } });
    expect(readManifest(null, FINGERPRINT)).toEqual({ ok: false, reason: { kind: "not_an_index" } });
    expect(readManifest([1, 2], FINGERPRINT)).toEqual({ ok: false, reason: { kind: "not_an_index" } });
    expect(readManifest(changedManifest((m) => (m.version = 2)), FINGERPRINT)).toEqual({ ok: false, reason: { kind: "format_changed", from: "2", to: INDEX_FORMAT_VERSION } });
    expect(manifestWords(changedManifest((m) => remove(m, "version")))).toBe(`cache version undefined ≠ ${INDEX_FORMAT_VERSION}`);
    expect(manifestWords(changedManifest((m) => put(m, "version", JSON.parse('{"toString":1}'))))).toBe(`cache version {"toString":1} ≠ ${INDEX_FORMAT_VERSION}`);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(manifestWords(changedManifest((m) => put(m, "version", cyclic)))).toBe(`cache version an object ≠ ${INDEX_FORMAT_VERSION}`);
    // Damage, not a version: shown cut, never whole (a million characters reached the terminal).
    expect(manifestWords(changedManifest((m) => put(m, "version", "9".repeat(1_000_000))))).toBe(`cache version ${"9".repeat(24)}… ≠ ${INDEX_FORMAT_VERSION}`);
    expect(manifestWords(changedManifest((m) => put(m, "version", { v: "x".repeat(1_000_000) })))).toBe(`cache version {"v":"xxxxxxxxxxxxxxxxxx… ≠ ${INDEX_FORMAT_VERSION}`);
    expect(manifestWords(changedManifest((m) => put(m, "version", INDEX_FORMAT_VERSION + 1)))).toBe(`cache version ${INDEX_FORMAT_VERSION + 1} ≠ ${INDEX_FORMAT_VERSION}`);
    expect(readManifest(MANIFEST, JSON.stringify({ stemming: false, excluded: [] }))).toEqual({ ok: false, reason: { kind: "settings_changed" } });
    expect(readManifest(changedManifest((m) => put(m, "segments", {})), FINGERPRINT)).toEqual({ ok: false, reason: { kind: "incomplete" } });
    expect(readManifest(changedManifest((m) => remove(m, "averageFieldLength")), FINGERPRINT)).toEqual({ ok: false, reason: { kind: "incomplete" } });
  });

  const wrongManifests: [string, (m: Manifest) => void, string][] = [
    ["a negative next id", (m) => (m.nextId = -1), "the manifest's counters have"],
    ["field lengths of the wrong count", (m) => m.averageFieldLength.pop(), "the manifest's field lengths have"],
    ["a segment without a name", (m) => remove(m.segments[0], "name"), "segment 1 of 1 has"],
    ["a segment name that is a path", (m) => (m.segments[0].name = "../../etc"), "segment 1 of 1 has"],
    ["a segment past the next id", (m) => (m.segments[0].end = m.nextId + 1), "segment 1 of 1 has"],
    ["segments out of order", (m) => m.segments.push({ ...m.segments[0], name: `segment-${"9".repeat(16)}-${m.segments[0].first}` }), "segment 2 of 2 has"],
    ["a note that left outside its segment", (m) => (m.segments[0].left = [99]), "segment 1 of 1 has"],
    // Right in type, impossible in value.
    ["a save time that is no time", (m) => (m.savedAt = Number.NaN), "the manifest's counters have"],
    ["field lengths with a hole", (m) => remove(m.averageFieldLength, 2), "the manifest's field lengths have"],
    // Loaded into an index of no notes, MiniSearch would make NaN of it at the first note added.
    ["an infinite field length", (m) => (m.averageFieldLength[2] = Number.POSITIVE_INFINITY), "the manifest's field lengths have"],
    ["a segment of no notes", (m) => (m.segments[0].notes = 0), "segment 1 of 1 has"],
    ["a segment of more notes than its range has short ids", (m) => (m.segments[0].notes = m.segments[0].end - m.segments[0].first + 1), "segment 1 of 1 has"],
    // A count of saves, as versions before 17 named segments: a rebuild counted again from 1, over another process's segments.
    ["a segment named by a count of saves, not a save's token", (m) => (m.segments[0].name = `segment-1-${m.segments[0].first}`), "segment 1 of 1 has"],
    ["a segment named after another first note", (m) => (m.segments[0].name = m.segments[0].name.replace(/-[0-9]+$/, `-${m.segments[0].first + 1}`)), "segment 1 of 1 has"],
  ];

  it.each(wrongManifests)("says the cache is corrupt for %s", (_name, edit, part) => {
    expect(manifestWords(changedManifest(edit))).toBe(`cache is corrupt (${part} the wrong shape)`);
  });

  const wrongRows: [string, (s: SavedSegment) => void][] = [
    ["a row that is not a list", (s) => put(s.notes, 0, "Alpha.md")],
    ["a row missing its field lengths", (s) => s.notes[0].pop()],
    ["a number for a path", (s) => put(s.notes[0], 1, 7)],
    ["a string for an mtime", (s) => put(s.notes[0], 2, "yesterday")],
    ["a tag that is not text", (s) => put(s.notes[0], 6, ["zoo", 3])],
    ["aliases that are not a list", (s) => put(s.notes[0], 5, "Alpha")],
    ["a problem without a message", (s) => put(s.notes[1], 8, [{ kind: "frontmatter" }])],
    ["a problem of an unknown kind", (s) => (s.notes[1][8] = [{ kind: "gremlins", message: "?" }])],
    ["a problem that is null", (s) => put(s.notes[1], 8, [null])],
    ["field lengths that are not numbers", (s) => put(s.notes[0], 9, ["x", 1, 1, 1, 1, 1, 1])],
    ["a short id outside the segment", (s) => (s.notes[1][0] = 99)],
    ["short ids out of order", (s) => (s.notes[1][0] = s.notes[0][0])],
    // Right in type, impossible in value.
    ["an empty path", (s) => (s.notes[0][1] = "")],
    ["an mtime that is no time", (s) => (s.notes[0][2] = Number.NaN)],
    ["a negative size", (s) => (s.notes[0][3] = -10)],
    ["a size that is not a whole number of bytes", (s) => (s.notes[0][3] = 10.5)],
    ["a negative field length", (s) => (s.notes[0][9][2] = -1)],
    ["a field length of no number at all", (s) => (s.notes[0][9][2] = Number.POSITIVE_INFINITY)],
    // More distinct terms than a note the index reads in part (2,000,000 characters) can hold.
    ["a field length no note could have", (s) => (s.notes[0][9][2] = 2 ** 40)],
    ["field lengths with a hole", (s) => remove(s.notes[0][9], 2)],
    ["tags with a hole", (s) => {
      s.notes[0][6] = ["zoo", "bird"];
      remove(s.notes[0][6], 0);
    }],
  ];

  it.each(wrongRows)("says the cache is corrupt for %s, naming the note", async (_name, edit) => {
    expect(await segmentWords(changedSegment(edit))).toMatch(new RegExp(`^cache is corrupt \\(note [12] of 2 of segment ${ENTRY.name} has the wrong shape\\)$`));
  });

  const wrongPostings: [string, (s: SavedSegment) => void, RegExp][] = [
    ["postings that are a list", (s) => put(s, "postings", Array.from(s.postings)), /has the wrong shape/],
    ["postings cut short", (s) => (s.postings = s.postings.slice(0, s.postings.length - 3)), /postings .* (are cut short|do not match its terms|name)/],
    ["postings longer than the terms", (s) => (s.postings = Uint32Array.from([...s.postings, 1])), /postings .* do not match its terms/],
    ["a term that is not text", (s) => put(s.terms, 0, 5), /postings .* do not match its terms/],
    ["a field that does not exist", (s) => (s.postings[1] = 9), /postings .* name an unknown field/],
    ["a note row that does not exist", (s) => (s.postings[3] = 7), /postings .* name a note out of order/],
    ["a note row past the end of the rows", (s) => (s.postings[3] = s.notes.length), /postings .* name a note out of order/],
    ["a posting count of nothing", (s) => (s.postings[4] = 0), /postings .* name a note out of order/],
    ["more postings than the part holds", (s) => (s.postings[2] = 2 ** 31), /postings .* are cut short/],
    ["an empty term", (s) => (s.terms[0] = ""), /postings .* name an empty term/],
    ["a term listed twice", (s) => {
      s.terms = [...s.terms, s.terms[0]];
      const first = s.postings.slice(0, 3 + 2 * s.postings[2]);
      s.postings = Uint32Array.from([...s.postings, ...first]);
    }, /postings .* name (a note out of order|an unknown field)|do not match/],
  ];

  it.each(wrongPostings)("says the cache is corrupt for %s", async (_name, edit, words) => {
    expect(await segmentWords(changedSegment(edit))).toMatch(/^cache is corrupt/);
    expect(await segmentWords(changedSegment(edit))).toMatch(words);
  });

  it("calls a segment that disagrees with its manifest inconsistent, and another program's data not a segment", async () => {
    expect(await segmentWords(changedSegment((s) => (s.first = 1)))).toBe("cache is inconsistent");
    expect(await segmentWords(changedSegment((s) => s.notes.pop()))).toBe("cache is inconsistent");
    // Gamma.md (the last short id) was removed before the save: it is no row of the segment.
    expect(SEGMENT.notes.map((row) => row[1])).toEqual(["Alpha.md", "Beta.md"]);
    expect(await segmentWords(SEGMENT, { ...ENTRY, left: [ENTRY.end - 1] })).toBe("cache is inconsistent");
    expect(await segmentWords({ documentCount: 3 })).toBe(`cache is corrupt (segment ${ENTRY.name} is not a segment)`);
  });

  it("leaves out the notes the manifest says have left", async () => {
    const alpha = SEGMENT.notes[0][0];
    const { reason, notes, documents } = await loaded(SEGMENT, { ...ENTRY, left: [alpha] });
    expect(reason).toBeNull();
    expect(notes.map((n) => n.path)).toEqual(["Beta.md"]);
    expect(documents).toBe(1);
  });

  it("never throws, whatever value replaces whatever part of a valid manifest or segment", async () => {
    const manifestParts = partsOf(MANIFEST);
    const segmentParts = partsOf(SEGMENT);
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.nat(), valueOrNothing, async (inManifest, n, value) => {
        if (inManifest) {
          const broken = withReplaced(MANIFEST, manifestParts[n % manifestParts.length], value);
          expect(() => readManifest(broken, FINGERPRINT)).not.toThrow();
        } else {
          const broken = withReplaced(SEGMENT, segmentParts[n % segmentParts.length], value);
          await expect(loaded(broken)).resolves.toBeDefined();
        }
      }),
      { numRuns: 400 },
    );
  });

  it("never throws, whatever numbers the postings hold", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.nat(), fc.nat({ max: 2 ** 32 - 1 })), { maxLength: 6 }), async (changes) => {
        const broken = changedSegment((s) => {
          for (const [at, value] of changes) s.postings[at % s.postings.length] = value;
        });
        await expect(loaded(broken)).resolves.toBeDefined();
      }),
      { numRuns: 400 },
    );
  });
});

describe("Uint32Appender", () => {
  it("keeps every number it is given as it grows past its first room, drops the last ones when its length is set lower, and can be used again", () => {
    const out = new Uint32Appender();
    const expected: number[] = [];
    for (let i = 0; i < 300_000; i++) {
      const value = (i * 2_654_435_761) >>> 0;
      out.push(value);
      expected.push(value);
    }
    out.set(5, 7);
    expected[5] = 7;
    out.length = 250_000;
    expected.length = 250_000;
    out.push(4_294_967_295);
    expected.push(4_294_967_295);
    const written = out.written();
    expect(written).toBeInstanceOf(Uint32Array);
    expect(written.length).toBe(250_001);
    // The first place they differ (a diff of 250,000 numbers would take minutes to print).
    expect(expected.findIndex((value, i) => written[i] !== value)).toBe(-1);
    // A copy: writing on does not change what was handed out.
    out.length = 0;
    out.push(1);
    expect(Array.from(out.written())).toEqual([1]);
    expect(written[0]).toBe(expected[0]);
  });
});

describe("writeSegment", () => {
  it("looks at its slice as it walks every term of the index, not only those of the notes it writes", async () => {
    // 3,000 notes of words of their own, then one note: a save after one edit writes a segment of
    // that note alone, yet walks the index's every term to find its postings. At 100,000 notes that
    // walk took 26–36 ms without a look at the clock.
    const engine = createEngine(createAnalyzer({ stemming: false }));
    const notes = new Map<string, IndexedNote>();
    const add = (path: string, text: string) => {
      engine.add(toEngineDoc(parseNote(path, text)));
      notes.set(path, { path, mtime: 1, size: text.length, title: path, aliases: [], tags: [], sourceUrls: [], problems: [] });
    };
    for (let i = 0; i < 3000; i++) add(`old-${i}.md`, `word${i}x word${i}y`);
    const first = engine.nextShortId;
    add("new.md", "fresh");
    const terms = engine.terms.size;
    let looks = 0;
    const counting: WorkSlice = { ...NO_SLICES, over: () => (looks++, false) };
    const { part, notes: written } = await writeSegment(engine, (path) => notes.get(path), first, engine.nextShortId, counting);
    expect(written).toBe(1);
    expect(part.terms).toEqual(expect.arrayContaining(["fresh"]));
    expect(part.terms.every((term) => !term.startsWith("word"))).toBe(true);
    // About one look every 64 terms walked (TERMS_PER_CHECK).
    expect(looks).toBeGreaterThanOrEqual(Math.floor(terms / 64) - 1);
  });

  it("keeps each term with its own postings while notes come and go between its slices", async () => {
    // The term map is walked by its names and its postings side by side: a note leaving between two
    // slices takes its terms out of the map, and one coming puts new ones at its end.
    const engine = createEngine(createAnalyzer({ stemming: false }));
    const notes = new Map<string, IndexedNote>();
    const texts = new Map<string, string>();
    const add = (path: string, text: string) => {
      engine.add(toEngineDoc(parseNote(path, text)));
      notes.set(path, { path, mtime: 1, size: text.length, title: path, aliases: [], tags: [], sourceUrls: [], problems: [] });
      texts.set(path, text);
    };
    for (let i = 0; i < 600; i++) add(`note-${i}.md`, `shared own${i} group${i % 7} word${(i * 13) % 600}`);
    const [first, end] = [200, 400];
    const noteOf = (path: string) => notes.get(path);
    const quiet = await writeSegment(engine, noteOf, first, end, NO_SLICES);
    let pauses = 0;
    const busy: WorkSlice = {
      ...NO_SLICES,
      over: () => true,
      pause: async () => {
        pauses++;
        // A note before the range leaves, its own words with it, some of them not walked yet; and a new
        // one comes, with words old and new.
        const leaving = `note-${150 + (pauses % 50)}.md`;
        const text = texts.get(leaving);
        if (text !== undefined && notes.delete(leaving)) engine.remove(toEngineDoc(parseNote(leaving, text)));
        add(`late-${pauses}.md`, `shared word${first + (pauses % 200)} fresh${pauses}`);
      },
    };
    const changing = await writeSegment(engine, noteOf, first, end, busy);
    expect(pauses).toBeGreaterThan(10);
    expect(engine.terms.has("own170")).toBe(false);
    expect(changing.part.terms).toEqual(quiet.part.terms);
    expect(changing.part.postings).toEqual(quiet.part.postings);
    expect(changing.part.notes).toEqual(quiet.part.notes);
  });
});
