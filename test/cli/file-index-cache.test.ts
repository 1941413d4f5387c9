// The CLI's index cache on disk, as damage and other programs meet it: a part whose bytes changed
// after it was written (a flipped bit, a hand edit) is refused by its checksum rather than loaded as
// wrong postings; a file in the folder that is not a part never stops a save; and what a process
// killed mid-save left behind is taken away by the next one (a segment, once ten minutes old: a save
// still under way writes its segments before its manifest). (Round trips and the atomic write:
// test/cli/index-search-adapters.test.ts.)
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { serialize } from "node:v8";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { encodePart, FileIndexCache } from "../../src/cli/file-index-cache";
import { FsNoteStore } from "../../src/cli/fs-note-store";
import { describeRebuildReason } from "../../src/index/rebuild-reason";
import { VaultIndex } from "../../src/index/vault-index";
import { hasMkfifo, makeNamedPipe, releaseNamedPipes } from "./named-pipes";

// Counted, not changed: how often a save makes the folder and removes the legacy file.
vi.mock("node:fs/promises", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs/promises")>();
  return { ...actual, mkdir: vi.fn(actual.mkdir), rm: vi.fn(actual.rm) };
});

let tmp: string;
let vault: string;
let cacheDir: string;

beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-file-index-cache-"));
  vault = path.join(tmp, "vault");
  cacheDir = path.join(tmp, "cache");
  mkdirSync(vault);
  writeFileSync(path.join(vault, "Network.md"), "# Network\n\nThe network partition heals overnight.\n");
  writeFileSync(path.join(vault, "Garden.md"), "# Garden\n\nTomatoes and beans.\n");
  // Dated an hour back: a note read within a tick of its date is read again at the next sync
  // (index/read-too-soon.ts), which would change what a later save writes.
  const hourAgo = new Date(Date.now() - 3600 * 1000);
  for (const note of ["Network.md", "Garden.md"]) utimesSync(path.join(vault, note), hourAgo, hourAgo);
});

afterEach(() => {
  releaseNamedPipes();
  rmSync(tmp, { recursive: true, force: true });
});

async function savedIndex(): Promise<FileIndexCache> {
  const index = new VaultIndex();
  await index.sync(new FsNoteStore(vault), null);
  await index.save(new FileIndexCache(cacheDir, vault));
  return new FileIndexCache(cacheDir, vault);
}

function segmentFile(cache: FileIndexCache): string {
  const name = readdirSync(cache.folder).find((f) => f.startsWith("segment-"));
  return path.join(cache.folder, name!);
}

describe("FileIndexCache and damage", () => {
  it("refuses a part with one bit flipped in a term, and the index is rebuilt and found by that word (it loaded 'netwnrk' before)", async () => {
    const cache = await savedIndex();
    const file = segmentFile(cache);
    const bytes = readFileSync(file);
    // The lowest bit of its 'o' makes "netwnrk": a possible term, so only a checksum can tell.
    const at = bytes.indexOf(Buffer.from("network"));
    expect(at).toBeGreaterThan(0);
    bytes[at + 4] ^= 0x01;
    writeFileSync(file, bytes);
    const index = new VaultIndex();
    const report = await index.sync(new FsNoteStore(vault), cache);
    expect(report.mode).toBe("rebuild");
    expect(describeRebuildReason(report.rebuildReason!)).toMatch(/segment-[0-9a-f]{16}-0 is corrupt \(its checksum does not match\)/);
    expect((await index.search("network", new FsNoteStore(vault))).map((r) => r.path)).toEqual(["Network.md"]);
  });

  it("refuses a part of an earlier version (no checksum) with words that say so, and the save after the rebuild reads back", async () => {
    const cache = await savedIndex();
    writeFileSync(cache.file, serialize({ format: "vault-research-index" }));
    const index = new VaultIndex();
    const report = await index.sync(new FsNoteStore(vault), cache);
    expect(report.mode).toBe("rebuild");
    expect(describeRebuildReason(report.rebuildReason!)).toMatch(/manifest was saved by an earlier version, without a checksum/);
    await index.save(cache);
    expect((await new VaultIndex().sync(new FsNoteStore(vault), cache)).mode).not.toBe("rebuild");
  });

  it.each([
    ["a file of zeros", (bytes: Buffer) => Buffer.alloc(bytes.length)],
    ["empty", () => Buffer.alloc(0)],
    ["cut short", (bytes: Buffer) => bytes.subarray(0, 20)],
    ["cut short after its checksum", (bytes: Buffer) => bytes.subarray(0, bytes.length - 10)],
  ])("refuses a part that is %s", async (_what, spoil) => {
    const cache = await savedIndex();
    const file = segmentFile(cache);
    writeFileSync(file, spoil(readFileSync(file)));
    const report = await new VaultIndex().sync(new FsNoteStore(vault), cache);
    expect(report.mode).toBe("rebuild");
    expect(describeRebuildReason(report.rebuildReason!)).toMatch(/cache could not be read \(the part segment-[0-9a-f]{16}-0 is corrupt \((its checksum does not match|it is not a part of this cache|it is cut short)\)/);
  });
});

describe("FileIndexCache and what is not a file in a part's place", () => {
  // A named pipe named as a part (a stray, or one put there by someone sharing the cache folder):
  // the read waited for a writer for ever, and so did every command of the vault.
  it.skipIf(!hasMkfifo)("refuses a named pipe as the manifest without waiting on it, rebuilds, and saves a manifest in its place (skipped where there is no mkfifo)", async () => {
    const cache = await savedIndex();
    rmSync(cache.file);
    makeNamedPipe(cache.file);
    const index = new VaultIndex();
    const report = await index.sync(new FsNoteStore(vault), cache);
    expect(report.mode).toBe("rebuild");
    expect(describeRebuildReason(report.rebuildReason!)).toBe("cache could not be read (the part manifest is not a file)");
    expect((await index.search("network", new FsNoteStore(vault))).map((r) => r.path)).toEqual(["Network.md"]);
    await index.save(cache);
    expect((await new VaultIndex().sync(new FsNoteStore(vault), cache)).mode).toBe("cache");
  });

  it("refuses a folder as a segment with the same words", async () => {
    const cache = await savedIndex();
    const file = segmentFile(cache);
    rmSync(file);
    mkdirSync(file);
    const report = await new VaultIndex().sync(new FsNoteStore(vault), cache);
    expect(describeRebuildReason(report.rebuildReason!)).toMatch(/^cache could not be read \(the part segment-[0-9a-f]{16}-0 is not a file\)$/);
  });
});

describe("FileIndexCache and other files in its folder", () => {
  // A sync tool's conflicted copy failed every save after the manifest ("… is not a name for a
  // part"), and the tidy-up that should follow never ran, so replaced segments piled up.
  it("lists only its parts, so a stray .v8 file in the folder neither fails a save nor is removed", async () => {
    const cache = await savedIndex();
    const first = path.basename(segmentFile(cache));
    const stray = path.join(cache.folder, "manifest (conflicted copy).v8");
    writeFileSync(stray, readFileSync(cache.file));
    expect(await cache.names()).not.toContain("manifest (conflicted copy)");
    // Left by a save killed before its manifest, an hour ago: the tidy-up takes it away at once.
    const killed = "segment-0011223344556677-0";
    await cache.write(killed, { left: "by a save killed before its manifest" });
    const anHourAgo = new Date(Date.now() - 60 * 60_000);
    utimesSync(path.join(cache.folder, `${killed}.v8`), anHourAgo, anHourAgo);
    writeFileSync(path.join(vault, "Garden.md"), "# Garden\n\nTomatoes, beans and squash.\n");
    const index = new VaultIndex();
    await index.sync(new FsNoteStore(vault), cache);
    await expect(index.save(cache)).resolves.toBeUndefined();
    // The tidy-up after the manifest ran: the leftover is gone; the segment the save replaced stays
    // ten minutes, for a process that read the manifest naming it.
    const listed = (await cache.read("manifest")) as { segments: { name: string }[] };
    const segments = listed.segments.map((s) => `${s.name}.v8`);
    expect(segments).not.toContain(first);
    expect(readdirSync(cache.folder).sort()).toEqual(["manifest (conflicted copy).v8", "manifest.v8", first, ...segments].sort());
  });
});

describe("FileIndexCache and a process killed mid-save", () => {
  // The MCP server's save took away, as unlisted, a segment `vault-research index` had just written
  // and not yet named in its manifest: the next start found the cache "incomplete" and rebuilt it.
  it("takes away another save's segment its manifest never named once the file is ten minutes old, and keeps one written just now", async () => {
    const cache = await savedIndex();
    const killed = "segment-0011223344556677-0";
    const saving = "segment-8899aabbccddeeff-0";
    await cache.write(killed, { left: "by a save killed before its manifest" });
    await cache.write(saving, { written: "by a save still under way" });
    const elevenMinutesAgo = new Date(Date.now() - 11 * 60_000);
    utimesSync(path.join(cache.folder, `${killed}.v8`), elevenMinutesAgo, elevenMinutesAgo);
    writeFileSync(path.join(vault, "Garden.md"), "# Garden\n\nTomatoes, beans and squash.\n");
    const index = new VaultIndex();
    await index.sync(new FsNoteStore(vault), cache);
    await index.save(cache);
    const names = await cache.names();
    expect(names).not.toContain(killed);
    expect(names).toContain(saving);
  });

  it("removes the temporary files a process that is gone left, and keeps those of one still running", async () => {
    const cache = new FileIndexCache(cacheDir, vault);
    mkdirSync(cache.folder, { recursive: true });
    // No process has a pid this high (Linux's limit is 2^22); this process's own is running.
    const gone = path.join(cache.folder, "segment-3-0.v8.99999999.tmp");
    const running = path.join(cache.folder, `segment-4-0.v8.${process.ppid}.tmp`);
    const notOurs = path.join(cache.folder, "notes.txt.99999999.tmp");
    const dayAgo = new Date(Date.now() - 24 * 3600 * 1000);
    for (const file of [gone, running, notOurs]) {
      writeFileSync(file, "half a part");
      utimesSync(file, dayAgo, dayAgo);
    }
    // Just written: it may be another container's process, writing still.
    const young = path.join(cache.folder, "segment-5-0.v8.99999998.tmp");
    writeFileSync(young, "half a part");
    await cache.write("manifest", { m: 1 });
    expect(readdirSync(cache.folder).sort()).toEqual(["manifest.v8", "notes.txt.99999999.tmp", `segment-4-0.v8.${process.ppid}.tmp`, "segment-5-0.v8.99999998.tmp"]);
  });
});

describe("FileIndexCache.clear", () => {
  // The vectors (hours of embedding calls) and the query log live in the same folder as the parts:
  // clearing the index took the folder, and them with it.
  it("takes the index's parts only: the vectors and the query log beside them stay", async () => {
    const cache = await savedIndex();
    const beside = { "vectors.bin": "hours of embeddings", "query-log.jsonl": '{"q":"recurring tasks"}\n', "query-log.1.jsonl": '{"q":"older"}\n' };
    for (const [name, text] of Object.entries(beside)) writeFileSync(path.join(cache.folder, name), text);
    await cache.clear();
    expect(await cache.names()).toEqual([]);
    for (const [name, text] of Object.entries(beside)) expect(readFileSync(path.join(cache.folder, name), "utf8")).toBe(text);
  });

  it("removes the folder when the index's parts were all it held, and clears a cache never saved", async () => {
    const cache = await savedIndex();
    await cache.clear();
    expect(readdirSync(cacheDir)).toEqual([]);
    await expect(new FileIndexCache(path.join(tmp, "never"), vault).clear()).resolves.toBeUndefined();
  });
});

describe("FileIndexCache writes", () => {
  it("makes its folder and removes the single file of earlier versions once, not at each part (626 calls in a 500-note save at 100,000 notes)", async () => {
    const cache = new FileIndexCache(cacheDir, vault);
    const legacy = `${cache.folder}.json`;
    mkdirSync(cacheDir);
    writeFileSync(legacy, "{}");
    vi.mocked(mkdir).mockClear();
    vi.mocked(rm).mockClear();
    for (let i = 0; i < 20; i++) await cache.write(`part-${i}`, { i });
    expect(vi.mocked(mkdir).mock.calls.map(([folder]) => folder)).toEqual([cache.folder]);
    expect(vi.mocked(rm).mock.calls.map(([file]) => file)).toEqual([legacy]);
    expect(existsSync(legacy)).toBe(false);
    for (let i = 0; i < 20; i++) expect(await cache.read(`part-${i}`)).toEqual({ i });
  });

  it("makes its folder again when it went after the first write (taken by hand, or by clear)", async () => {
    const cache = new FileIndexCache(cacheDir, vault);
    await cache.write("first", { n: 1 });
    rmSync(cache.folder, { recursive: true });
    await cache.write("second", { n: 2 });
    expect(await cache.read("second")).toEqual({ n: 2 });
    await cache.clear();
    expect(existsSync(cache.folder)).toBe(false);
    await cache.write("third", { n: 3 });
    expect(await cache.names()).toEqual(["third"]);
  });

  it("writes a part as its tag, the SHA-256 of v8's bytes for the value, then those bytes, for any value (two-byte strings too)", () => {
    const value = fc.oneof(fc.string({ unit: "binary" }), fc.string(), fc.integer(), fc.double(), fc.constant(new Int8Array([1, -2, 3])), fc.constant(new Float64Array([0.5, 2])));
    fc.assert(
      fc.property(fc.array(value, { maxLength: 12 }), fc.dictionary(fc.string(), value, { maxKeys: 5 }), (items, fields) => {
        for (const v of [items, fields, { items, fields }]) {
          const payload = serialize(v);
          const expected = Buffer.concat([Buffer.from("VRP1"), createHash("sha256").update(payload).digest(), payload]);
          expect(encodePart(v).equals(expected)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });
});
