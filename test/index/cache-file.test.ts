// The saved index file: what goes in comes back, and anything else — not JSON, another program's
// JSON, another version, other settings, or the right header over parts of the wrong shape — is
// a reason to rebuild, never an exception.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { INDEX_FORMAT_VERSION, readCacheFile, type CacheRead } from "../../src/index/cache-file";
import { describeRebuildReason } from "../../src/index/rebuild-reason";
import { VaultIndex } from "../../src/index/vault-index";
import { partsOf, replaced } from "./json-parts";

/** Any JSON value, or nothing at all (the part is then missing from the file). */
const valueOrNothing = fc.oneof(fc.jsonValue(), fc.constant(undefined));

const FINGERPRINT = JSON.stringify({ stemming: true, excluded: [] });

function savedIndex(): string {
  const index = new VaultIndex();
  index.applyText("Alpha.md", "---\ntags: [zoo]\nsource: https://example.com/a\n---\n# Alpha\n\nAbout aardvarks.\n", 1, 10);
  index.applyText("Beta.md", "---\ntitle: never closed\n\nAbout badgers.\n", 2, 20);
  index.applyText("Gamma.md", "# Gamma\n\nAbout gazelles.\n", 3, 30);
  index.removeFile("Gamma.md"); // a discarded note leaves postings behind until MiniSearch vacuums
  return index.serialize();
}

const VALID = savedIndex();

/** The valid cache with one change made to its parsed form. */
function changed(edit: (file: Record<string, any>) => void): string {
  const file = JSON.parse(VALID);
  edit(file);
  return JSON.stringify(file);
}

function words(read: CacheRead): string {
  return read.ok ? "ok" : describeRebuildReason(read.reason);
}

describe("readCacheFile", () => {
  it("gives back the notes and the engine that were saved", () => {
    const read = readCacheFile(VALID, FINGERPRINT);
    if (!read.ok) throw new Error(describeRebuildReason(read.reason));
    expect(read.contents.notes.map((n) => [n.path, n.mtime, n.size, n.title])).toEqual([
      ["Alpha.md", 1, 10, "Alpha"],
      ["Beta.md", 2, 20, "Beta"],
    ]);
    expect(read.contents.notes[0]).toMatchObject({ tags: ["zoo"], sourceUrls: ["https://example.com/a"] });
    expect(read.contents.notes[1].problems).toEqual([expect.objectContaining({ kind: "frontmatter" })]);
    expect(read.contents.engine.documentCount).toBe(2);
  });

  it("names what is wrong with a file that is not a usable index", () => {
    expect(readCacheFile("{not json", FINGERPRINT)).toMatchObject({ ok: false, reason: { kind: "corrupt" } });
    expect(readCacheFile("null", FINGERPRINT)).toEqual({ ok: false, reason: { kind: "not_an_index" } });
    expect(readCacheFile("[1,2]", FINGERPRINT)).toEqual({ ok: false, reason: { kind: "not_an_index" } });
    expect(readCacheFile(changed((f) => (f.version = 2)), FINGERPRINT)).toEqual({ ok: false, reason: { kind: "format_changed", from: "2", to: INDEX_FORMAT_VERSION } });
    expect(words(readCacheFile(changed((f) => delete f.version), FINGERPRINT))).toBe(`cache version undefined ≠ ${INDEX_FORMAT_VERSION}`);
    expect(words(readCacheFile(changed((f) => (f.version = JSON.parse('{"toString":1}'))), FINGERPRINT))).toBe(`cache version {"toString":1} ≠ ${INDEX_FORMAT_VERSION}`);
    expect(readCacheFile(VALID, JSON.stringify({ stemming: false, excluded: [] }))).toEqual({ ok: false, reason: { kind: "settings_changed" } });
    expect(readCacheFile(changed((f) => (f.notes = {})), FINGERPRINT)).toEqual({ ok: false, reason: { kind: "incomplete" } });
    expect(readCacheFile(changed((f) => delete f.engine), FINGERPRINT)).toEqual({ ok: false, reason: { kind: "incomplete" } });
  });

  const wrongRows: [string, (f: Record<string, any>) => void][] = [
    ["a row that is not a list", (f) => (f.notes[0] = "Alpha.md")],
    ["a row missing its problems", (f) => f.notes[0].pop()],
    ["a number for a path", (f) => (f.notes[0][0] = 7)],
    ["a string for an mtime", (f) => (f.notes[0][1] = "yesterday")],
    ["a tag that is not text", (f) => (f.notes[0][5] = ["zoo", 3])],
    ["aliases that are not a list", (f) => (f.notes[0][4] = "Alpha")],
    ["a problem without a message", (f) => (f.notes[1][7] = [{ kind: "frontmatter" }])],
    ["a problem of an unknown kind", (f) => (f.notes[1][7] = [{ kind: "gremlins", message: "?" }])],
    ["a problem that is null", (f) => (f.notes[1][7] = [null])],
  ];

  it.each(wrongRows)("says the cache is corrupt for %s, naming the note", (_name, edit) => {
    expect(words(readCacheFile(changed(edit), FINGERPRINT))).toMatch(/^cache is corrupt \(note [12] of 2 has the wrong shape\)$/);
  });

  const wrongEngines: [string, (engine: Record<string, any>) => void, string][] = [
    ["a note without field lengths", (e) => delete e.fieldLength[Object.keys(e.fieldLength)[0]], "note lengths"],
    ["field lengths that are not numbers", (e) => (e.fieldLength[Object.keys(e.fieldLength)[0]] = ["x"]), "note lengths"],
    ["a note count that disagrees with the notes", (e) => (e.documentCount = 5), "note count"],
    ["a negative note count", (e) => (e.documentCount = -1), "counts"],
    ["a note id that is not a path", (e) => (e.documentIds[Object.keys(e.documentIds)[0]] = 4), "note table"],
    ["a next id that would reuse a note's id", (e) => (e.nextId = 0), "note table"],
    ["a missing field", (e) => delete e.fieldIds.title, "field list"],
    ["a field id out of range", (e) => (e.fieldIds.body = 99), "field list"],
    ["average lengths that are not a list", (e) => (e.averageFieldLength = {}), "field lengths"],
    ["a term index that is not a list", (e) => (e.index = {}), "term index"],
    ["a term entry of the wrong shape", (e) => (e.index[0] = [1, {}]), "term index"],
    ["a term entry without postings", (e) => (e.index[0] = ["aardvark", null]), "term index"],
    ["postings that are a list", (e) => (e.index[0][1] = { 0: [0, 0, null] }), "term index"],
  ];

  it.each(wrongEngines)("says the cache is corrupt for %s", (_name, edit, part) => {
    expect(words(readCacheFile(changed((f) => edit(f.engine)), FINGERPRINT))).toBe(`cache is corrupt (the search data's ${part} has the wrong shape)`);
  });

  it("never throws, whatever value replaces whatever part of a valid cache", () => {
    const parts = partsOf(JSON.parse(VALID));
    fc.assert(
      fc.property(fc.integer({ min: 0, max: parts.length - 1 }), valueOrNothing, (i, value) => {
        expect(() => readCacheFile(replaced(VALID, parts[i], value), FINGERPRINT)).not.toThrow();
      }),
      { numRuns: 300 },
    );
  });
});
