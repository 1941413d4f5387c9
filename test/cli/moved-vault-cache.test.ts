// A vault renamed or moved keeps its cache folder (index, vectors, query log, kept traces): it is
// taken over at the first run from the new path, when the old path is gone and the notes match.
// A cache whose vault is still at its path, or whose notes are another vault's, is never taken.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseArgs } from "../../src/cli/args";
import { vaultCacheFolder } from "../../src/cli/file-index-cache";
import { indexCommand } from "../../src/cli/index-command";
import { indexReportSchema } from "../../src/cli/json/index-report-json";
import { keptTraceFolder } from "../../src/cli/kept-trace";
import { adoptCacheOfMovedVault, cachesLeftBehind, estimatedLikeness, recordVaultOfCache, sampleOf } from "../../src/cli/moved-vault-cache";
import { bundledNodeWorkers } from "../../src/cli/node-workers";
import { COMMANDS } from "../../src/cli/run";
import { terminalOutput } from "../../src/cli/terminal-text";

let tmp: string;
let cacheDir: string;

beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-moved-vault-"));
  cacheDir = path.join(tmp, "cache");
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

function makeVault(name: string, notes: string[]): string {
  const root = path.join(tmp, name);
  mkdirSync(root, { recursive: true });
  for (const note of notes) writeFileSync(path.join(root, `${note}.md`), `# ${note}\n\nA note about ${note}.\n`);
  return root;
}

const NOTES = ["aardvarks", "badgers", "camels", "dolphins", "eagles", "ferrets", "geckos", "herons"];

async function indexVault(root: string): Promise<{ out: string; err: string }> {
  let out = "";
  let err = "";
  const io = terminalOutput({ out: (t: string) => (out += t), err: (t: string) => (err += t), env: {}, cwd: tmp }, []);
  const code = await indexCommand(parseArgs(["--vault", root, "--cache-dir", cacheDir], COMMANDS.index.flags), io, bundledNodeWorkers());
  expect(code).toBe(0);
  return { out, err };
}

/** Files of the vectors and the query log in a vault's cache folder, as `embed` and `search` leave them. */
function leaveVectorsAndLog(root: string): void {
  const folder = vaultCacheFolder(cacheDir, root);
  writeFileSync(path.join(folder, "vectors.bin"), "hours of embedding");
  writeFileSync(path.join(folder, "query-log.jsonl"), '{"q":"badgers"}\n');
}

describe("a vault renamed or moved", () => {
  it("keeps its cache: not indexed again, its vectors, query log and kept traces with it, and the user told", async () => {
    const before = makeVault("Research", NOTES);
    await indexVault(before);
    leaveVectorsAndLog(before);
    mkdirSync(keptTraceFolder(cacheDir, before), { recursive: true });
    writeFileSync(path.join(keptTraceFolder(cacheDir, before), "run-1.md"), "a kept trace");

    const after = path.join(tmp, "Research (renamed)");
    renameSync(before, after);
    writeFileSync(path.join(after, "badgers.md"), "# badgers\n\nA note about badgers, changed since.\n");
    const { out, err } = await indexVault(after);

    expect(out).toMatch(/updated from cache/);
    expect(out).toMatch(/added 0, changed 1, removed 0, unchanged 7/);
    expect(err).toContain(`this vault's cache was found under its old path ${before}, which no longer exists`);
    const folder = vaultCacheFolder(cacheDir, after);
    expect(readFileSync(path.join(folder, "vectors.bin"), "utf8")).toBe("hours of embedding");
    expect(readFileSync(path.join(folder, "query-log.jsonl"), "utf8")).toContain("badgers");
    expect(readFileSync(path.join(keptTraceFolder(cacheDir, after), "run-1.md"), "utf8")).toBe("a kept trace");
    expect(existsSync(vaultCacheFolder(cacheDir, before))).toBe(false);
    // The folder now says whose it is: the next run is an ordinary warm start, with nothing to say.
    expect(JSON.parse(readFileSync(path.join(folder, "vault.json"), "utf8"))).toMatchObject({ vault: after });
    expect((await indexVault(after)).err).toBe("");
  }, 60_000);

  it("never takes the cache of a vault that is still at its path (a copy is indexed on its own)", async () => {
    const original = makeVault("Research", NOTES);
    await indexVault(original);
    leaveVectorsAndLog(original);
    const copy = path.join(tmp, "Research copy");
    cpSync(original, copy, { recursive: true });

    const { out, err } = await indexVault(copy);
    expect(out).toMatch(/built from scratch \(no cache\)/);
    expect(err).toBe("");
    expect(readFileSync(path.join(vaultCacheFolder(cacheDir, original), "vectors.bin"), "utf8")).toBe("hours of embedding");
    expect(existsSync(path.join(vaultCacheFolder(cacheDir, copy), "vectors.bin"))).toBe(false);
  }, 60_000);

  it("never takes a gone vault's cache whose notes are another vault's, and names that cache as left behind", async () => {
    const gone = makeVault("Old", NOTES);
    await indexVault(gone);
    rmSync(gone, { recursive: true });
    const other = makeVault("Other", ["iguanas", "jackals", "koalas", "lemurs", "badgers"]);

    const { out, err } = await indexVault(other);
    expect(out).toMatch(/built from scratch \(no cache\)/);
    expect(err).toBe("");
    expect(out).toContain("1 cache folder of vaults no longer at their path");
    expect(out).toContain(`${vaultCacheFolder(cacheDir, gone)} (was ${gone})`);
    expect(existsSync(vaultCacheFolder(cacheDir, gone))).toBe(true);
  }, 60_000);

  it("lists those folders in index --json too, each with its vault and kept traces (the text listed them, the JSON had no field)", async () => {
    const gone = makeVault("Old", NOTES);
    await indexVault(gone);
    mkdirSync(keptTraceFolder(cacheDir, gone), { recursive: true });
    rmSync(gone, { recursive: true });
    const other = makeVault("Other", ["iguanas", "jackals", "koalas", "lemurs", "badgers"]);

    let out = "";
    const io = terminalOutput({ out: (t: string) => (out += t), err: () => undefined, env: {}, cwd: tmp }, []);
    expect(await indexCommand(parseArgs(["--vault", other, "--cache-dir", cacheDir, "--json"], COMMANDS.index.flags), io, bundledNodeWorkers())).toBe(0);
    const report = indexReportSchema.parse(JSON.parse(out));
    expect(report.cache_folders_left_behind).toEqual([{ folder: vaultCacheFolder(cacheDir, gone), vault: gone, kept_traces_folder: keptTraceFolder(cacheDir, gone) }]);
    const { out: text } = await indexVault(other);
    expect(text).toContain(`${vaultCacheFolder(cacheDir, gone)} (was ${gone}), its kept traces in ${keptTraceFolder(cacheDir, gone)}`);
  }, 60_000);
});

describe("which cache a vault takes over", () => {
  /** A cache folder recorded as `vault`'s, holding `notes`. */
  async function recordedCache(id: string, vault: string, notes: string[]): Promise<string> {
    const folder = path.join(cacheDir, `index-${id}`);
    mkdirSync(folder, { recursive: true });
    await recordVaultOfCache(folder, vault, notes);
    return folder;
  }

  it("takes neither of two gone vaults' caches that this vault is equally like (they cannot be told apart)", async () => {
    const notes = NOTES.map((n) => `${n}.md`);
    await recordedCache("aaaa", path.join(tmp, "gone-1"), notes);
    await recordedCache("bbbb", path.join(tmp, "gone-2"), notes);
    const root = path.join(tmp, "here");
    expect(await adoptCacheOfMovedVault(cacheDir, root, async () => notes)).toBeNull();
    expect(await cachesLeftBehind(cacheDir)).toHaveLength(2);
  });

  it("takes the one most like it, and lists the vault's notes only when there is a cache to take", async () => {
    const notes = NOTES.map((n) => `${n}.md`);
    await recordedCache("aaaa", path.join(tmp, "gone-1"), notes.slice(0, 5));
    await recordedCache("bbbb", path.join(tmp, "gone-2"), notes);
    const root = path.join(tmp, "here");
    mkdirSync(root);
    expect(await adoptCacheOfMovedVault(cacheDir, root, async () => notes)).toBe(path.join(tmp, "gone-2"));
    expect(existsSync(path.join(cacheDir, "index-bbbb"))).toBe(false);
    expect(existsSync(path.join(cacheDir, "index-aaaa"))).toBe(true);
    // Taken over, it is this vault's at once: no other vault can take it again.
    expect((await cachesLeftBehind(cacheDir)).map((c) => c.vault)).toEqual([path.join(tmp, "gone-1")]);

    let listed = false;
    const fresh = path.join(tmp, "fresh");
    rmSync(path.join(cacheDir, "index-aaaa"), { recursive: true });
    expect(
      await adoptCacheOfMovedVault(cacheDir, fresh, async () => {
        listed = true;
        return notes;
      }),
    ).toBeNull();
    expect(listed).toBe(false);
  });

  it("counts a vault as gone only when nothing is at its path", async () => {
    const file = path.join(tmp, "a-file");
    writeFileSync(file, "");
    await recordedCache("aaaa", path.join(file, "vault"), ["a.md"]);
    // Through a file: not there, so gone.
    expect(await cachesLeftBehind(cacheDir)).toHaveLength(1);
    await recordedCache("bbbb", tmp, ["a.md"]);
    expect((await cachesLeftBehind(cacheDir)).map((c) => c.vault)).toEqual([path.join(file, "vault")]);
  });

  it("estimates how alike two vaults' notes are from their samples", () => {
    const vault = Array.from({ length: 2_000 }, (_, i) => `notes/${i}.md`);
    const grown = [...vault.slice(200), ...Array.from({ length: 200 }, (_, i) => `new/${i}.md`)];
    const other = Array.from({ length: 2_000 }, (_, i) => `elsewhere/${i}.md`);
    expect(sampleOf(vault)).toHaveLength(64);
    expect(sampleOf([...vault].reverse())).toEqual(sampleOf(vault));
    expect(estimatedLikeness(sampleOf(vault), sampleOf(vault))).toBe(1);
    expect(estimatedLikeness(sampleOf(vault), sampleOf(grown))).toBeGreaterThan(0.6);
    expect(estimatedLikeness(sampleOf(vault), sampleOf(other))).toBe(0);
  });
});
