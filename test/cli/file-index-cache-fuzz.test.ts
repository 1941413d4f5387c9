// The CLI's index cache damaged on disk, a hundred ways chosen by fixed seeds (the same cases at every
// run): a part cut short anywhere, bytes of it changed, emptied, taken away, or replaced by the part
// of another save of the vault (a crash between two saves, a sync tool's older copy). Every case is
// a load or a rebuild with a reason in words, never a throw, and then searches find exactly what a
// clean build finds, score for score; what the next save writes loads again.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FileIndexCache } from "../../src/cli/file-index-cache";
import { FsNoteStore } from "../../src/cli/fs-note-store";
import { parseQuery } from "../../src/index/query";
import { describeRebuildReason } from "../../src/index/rebuild-reason";
import { VaultIndex } from "../../src/index/vault-index";
import { seededRandom } from "../../src/index/vault-language/top-eigenvectors";

const SEEDS = Array.from({ length: 100 }, (_, i) => i + 1);
const QUERIES = ["harbour", "garden log", "entry 7", "orchard workshop", "librar", "#topic/kitchen"];
const topics = ["garden", "kitchen", "harbour", "orchard", "workshop", "library"];

let tmp: string;
let vault: string;
/** The good cache's files, and those of another save of the same vault (fewer notes, other segment names). */
let good: Map<string, Buffer>;
let other: Map<string, Buffer>;
let clean: [string, number][][];

function writeNote(i: number): void {
  const file = path.join(vault, `n${i}.md`);
  writeFileSync(file, `---\ntags: [topic/${topics[i % topics.length]}]\n---\n# Note ${i} on the ${topics[i % topics.length]}\n\nThe ${topics[(i * 5) % topics.length]} log, entry ${i}.\n`);
  // Dated an hour back: a note read within a tick of its date would be read again (read-too-soon.ts).
  const hourAgo = new Date(Date.now() - 3600 * 1000);
  utimesSync(file, hourAgo, hourAgo);
}

function ranked(index: VaultIndex): [string, number][][] {
  return QUERIES.map((q) => index.rank(parseQuery(q), 10).map((hit): [string, number] => [hit.path, hit.score]));
}

/** The folder's files in an order of their own, not of the tokens in their names (random at each run): the manifest, then segments by their first note. */
function filesOf(folder: string): Map<string, Buffer> {
  const place = (name: string) => (name.startsWith("segment-") ? Number(/-([0-9]+)\.v8$/.exec(name)![1]) : -1);
  const names = readdirSync(folder).sort((a, b) => place(a) - place(b) || (a < b ? -1 : 1));
  return new Map(names.map((name) => [name, readFileSync(path.join(folder, name))]));
}

function putBack(folder: string, files: Map<string, Buffer>): void {
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  for (const [name, bytes] of files) writeFileSync(path.join(folder, name), bytes);
}

/** Saves of the vault into `cacheDir`: one of the first notes, then one after more came and one went (two segments, a note left). */
async function savedTwice(cacheDir: string, first: number, more: number): Promise<void> {
  for (let i = 0; i < first; i++) writeNote(i);
  const index = new VaultIndex();
  await index.sync(new FsNoteStore(vault), null);
  await index.save(new FileIndexCache(cacheDir, vault));
  const store = new FsNoteStore(vault);
  for (let i = first; i < first + more; i++) {
    writeNote(i);
    await index.updateFile(store, `n${i}.md`);
  }
  rmSync(path.join(vault, "n3.md"));
  index.removeFile("n3.md");
  await index.save(new FileIndexCache(cacheDir, vault));
}

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-index-cache-fuzz-"));
  vault = path.join(tmp, "vault");
  mkdirSync(vault);
  const otherDir = path.join(tmp, "other");
  await savedTwice(otherDir, 12, 4);
  other = filesOf(new FileIndexCache(otherDir, vault).folder);
  rmSync(vault, { recursive: true });
  mkdirSync(vault);
  await savedTwice(path.join(tmp, "cache"), 20, 10);
  good = filesOf(new FileIndexCache(path.join(tmp, "cache"), vault).folder);
  const built = new VaultIndex();
  await built.sync(new FsNoteStore(vault), null);
  clean = ranked(built);
});

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

type Damage = { what: string; bytes: Buffer | null };

/** One damage to one part, chosen by `random`: new bytes for the part, or null to take it away. */
function damageOf(bytes: Buffer, kind: string, random: () => number): Damage {
  const at = Math.floor(random() * bytes.length);
  switch (Math.floor(random() * 6)) {
    case 0:
      return { what: `cut at ${at} of ${bytes.length}`, bytes: bytes.subarray(0, at) };
    case 1:
    case 2: {
      const spoilt = Buffer.from(bytes);
      const flips = 1 + Math.floor(random() * 4);
      for (let f = 0; f < flips; f++) spoilt[Math.floor(random() * spoilt.length)] ^= 1 + Math.floor(random() * 255);
      return { what: `${flips} byte(s) changed`, bytes: spoilt };
    }
    case 3:
      return { what: "emptied", bytes: Buffer.alloc(0) };
    case 4:
      return { what: "taken away", bytes: null };
    default: {
      // The other save's part of the same kind: its manifest, or a segment under this one's name.
      const theirs = [...other].filter(([name]) => name.startsWith(kind));
      return { what: "another save's", bytes: theirs[Math.floor(random() * theirs.length)][1] };
    }
  }
}

describe("an index cache damaged on disk, by fixed seeds", () => {
  it("has the parts the cases damage: a manifest naming two segments, one with a note that left", async () => {
    expect([...good.keys()].filter((name) => name.startsWith("segment-"))).toHaveLength(2);
    expect(good.has("manifest.v8")).toBe(true);
    const report = await new VaultIndex().sync(new FsNoteStore(vault), new FileIndexCache(path.join(tmp, "cache"), vault));
    expect(report).toMatchObject({ mode: "cache", unchanged: 29 });
  });

  it.each(SEEDS)("seed %i: loads or rebuilds with a reason, then finds what a clean build finds", async (seed) => {
    const random = seededRandom(seed);
    const cacheDir = path.join(tmp, "cache");
    const folder = new FileIndexCache(cacheDir, vault).folder;
    putBack(folder, good);
    const parts = [...good.keys()].filter((name) => name.endsWith(".v8"));
    const part = parts[Math.floor(random() * parts.length)];
    const damage = damageOf(good.get(part)!, part.startsWith("manifest") ? "manifest" : "segment-", random);
    if (damage.bytes === null) unlinkSync(path.join(folder, part));
    else writeFileSync(path.join(folder, part), damage.bytes);

    const index = new VaultIndex();
    const report = await index.sync(new FsNoteStore(vault), new FileIndexCache(cacheDir, vault));
    const why = `${part} ${damage.what}: ${report.mode} ${report.rebuildReason ? describeRebuildReason(report.rebuildReason) : ""}`;
    if (report.mode === "rebuild") {
      expect(describeRebuildReason(report.rebuildReason), why).toMatch(/^(no cache|cache is incomplete|cache is inconsistent|cache could not be read \(the part [a-z0-9-]+ (is corrupt \(.+\)|was saved by an earlier version, without a checksum)\))$/);
    }
    expect(ranked(index), why).toEqual(clean);

    await index.save(new FileIndexCache(cacheDir, vault));
    const again = new VaultIndex();
    const next = await again.sync(new FsNoteStore(vault), new FileIndexCache(cacheDir, vault));
    expect(next.mode, why).toBe("cache");
    expect(ranked(again), why).toEqual(clean);
  });
});
