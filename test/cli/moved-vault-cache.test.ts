// A vault renamed or moved keeps its cache folder (index, vectors, query log, kept traces): it is
// taken over at the first run from the new path, when the old path is gone and the notes match.
// A cache whose vault is still at its path, or whose notes are another vault's, is never taken.
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { parseArgs } from "../../src/cli/args";
import { vaultCacheFolder } from "../../src/cli/file-index-cache";
import { indexCommand } from "../../src/cli/index-command";
import { indexReportSchema } from "../../src/cli/json/index-report-json";
import { keptTraceFolder } from "../../src/cli/kept-trace";
import { adoptCacheOfMovedVault, cachesLeftBehind, estimatedLikeness, recordVaultOfCache, sampleOf } from "../../src/cli/moved-vault-cache";
import { bundledNodeWorkers } from "../../src/cli/node-workers";
import { COMMANDS } from "../../src/cli/run";
import { terminalOutput } from "../../src/cli/terminal-text";
import { hasMkfifo, makeNamedPipe, releaseNamedPipes } from "./named-pipes";

/**
 * Folders this test says are on a FUSE filesystem (GNOME's gvfs): statfs answers so for them; and
 * paths whose lstat and stat fail with an error code (a share that does not answer: ENOTCONN, EIO…).
 */
const onFuse = vi.hoisted(() => new Set<string>());
const failing = vi.hoisted(() => new Map<string, string>());
vi.mock("node:fs/promises", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs/promises")>();
  const fail = (file: string) => Object.assign(new Error(`${failing.get(file)}: ${file}`), { code: failing.get(file) });
  const statfs = async (folder: string) => (onFuse.has(folder) ? { ...(await fs.statfs(folder)), type: 0x65735546 } : fs.statfs(folder));
  const lstat = async (file: string) => (failing.has(file) ? Promise.reject(fail(file)) : fs.lstat(file));
  const stat = async (file: string) => (failing.has(file) ? Promise.reject(fail(file)) : fs.stat(file));
  const mocked = { statfs, lstat, stat };
  return { ...fs, ...mocked, default: { ...fs, ...mocked } };
});

let tmp: string;
let cacheDir: string;

beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-moved-vault-"));
  cacheDir = path.join(tmp, "cache");
});
afterEach(() => {
  releaseNamedPipes();
  rmSync(tmp, { recursive: true, force: true });
});

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

  it("brings its kept traces to those it already had at the new path, overwriting none and following no link", async () => {
    const before = makeVault("Research", NOTES);
    await indexVault(before);
    const oldTraces = keptTraceFolder(cacheDir, before);
    mkdirSync(oldTraces, { recursive: true });
    writeFileSync(path.join(oldTraces, "20250101-120000-aaaaaa.md"), "kept before the move");
    writeFileSync(path.join(oldTraces, "20250102-120000-bbbbbb.md"), "the old path's copy");
    // A link in the old folder leads elsewhere: it is no trace of this vault's, and is not moved.
    const elsewhere = path.join(tmp, "elsewhere.md");
    writeFileSync(elsewhere, "someone else's file");
    symlinkSync(elsewhere, path.join(oldTraces, "20250103-120000-cccccc.md"));

    const after = path.join(tmp, "Research (moved)");
    renameSync(before, after);
    // The new path already has kept traces (its index folder since removed, or never saved).
    const newTraces = keptTraceFolder(cacheDir, after);
    mkdirSync(newTraces, { recursive: true });
    writeFileSync(path.join(newTraces, "20250201-120000-dddddd.md"), "kept at the new path");
    writeFileSync(path.join(newTraces, "20250102-120000-bbbbbb.md"), "the new path's copy");
    await indexVault(after);

    expect(readFileSync(path.join(newTraces, "20250101-120000-aaaaaa.md"), "utf8")).toBe("kept before the move");
    expect(readFileSync(path.join(newTraces, "20250201-120000-dddddd.md"), "utf8")).toBe("kept at the new path");
    // Two traces of one name: the one at the new path stays, the other stays where it was — none is lost.
    expect(readFileSync(path.join(newTraces, "20250102-120000-bbbbbb.md"), "utf8")).toBe("the new path's copy");
    expect(readFileSync(path.join(oldTraces, "20250102-120000-bbbbbb.md"), "utf8")).toBe("the old path's copy");
    expect(existsSync(path.join(newTraces, "20250103-120000-cccccc.md"))).toBe(false);
    expect(lstatSync(path.join(oldTraces, "20250103-120000-cccccc.md")).isSymbolicLink()).toBe(true);
    expect(readFileSync(elsewhere, "utf8")).toBe("someone else's file");
  }, 60_000);

  it("moves no trace into a kept-traces folder at the new path that is a link to elsewhere", async () => {
    const before = makeVault("Research", NOTES);
    await indexVault(before);
    const oldTraces = keptTraceFolder(cacheDir, before);
    mkdirSync(oldTraces, { recursive: true });
    writeFileSync(path.join(oldTraces, "20250101-120000-aaaaaa.md"), "kept before the move");
    const after = path.join(tmp, "Research (moved)");
    renameSync(before, after);
    const archive = path.join(tmp, "archive");
    mkdirSync(archive);
    symlinkSync(archive, keptTraceFolder(cacheDir, after));
    await indexVault(after);
    expect(readdirSync(archive)).toEqual([]);
    expect(readFileSync(path.join(oldTraces, "20250101-120000-aaaaaa.md"), "utf8")).toBe("kept before the move");
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
  /** The cache folder of `vault`, holding `notes`, recorded while the vault was there (then removed, unless `keep`). */
  async function recordedCache(vault: string, notes: string[], keep = false): Promise<string> {
    const folder = vaultCacheFolder(cacheDir, vault);
    mkdirSync(folder, { recursive: true });
    const made = !existsSync(vault);
    mkdirSync(vault, { recursive: true });
    await recordVaultOfCache(folder, vault, notes);
    if (made && !keep) rmSync(vault, { recursive: true });
    return folder;
  }

  it("takes neither of two gone vaults' caches that this vault is equally like (they cannot be told apart)", async () => {
    const notes = NOTES.map((n) => `${n}.md`);
    await recordedCache(path.join(tmp, "gone-1"), notes);
    await recordedCache(path.join(tmp, "gone-2"), notes);
    const root = path.join(tmp, "here");
    expect(await adoptCacheOfMovedVault(cacheDir, root, async () => notes)).toBeNull();
    expect(await cachesLeftBehind(cacheDir)).toHaveLength(2);
  });

  it("takes the one most like it, and lists the vault's notes only when there is a cache to take", async () => {
    const notes = NOTES.map((n) => `${n}.md`);
    const lessLike = await recordedCache(path.join(tmp, "gone-1"), notes.slice(0, 5));
    const mostLike = await recordedCache(path.join(tmp, "gone-2"), notes);
    const root = path.join(tmp, "here");
    mkdirSync(root);
    expect(await adoptCacheOfMovedVault(cacheDir, root, async () => notes)).toBe(path.join(tmp, "gone-2"));
    expect(existsSync(mostLike)).toBe(false);
    expect(existsSync(lessLike)).toBe(true);
    // Taken over, it is this vault's at once: no other vault can take it again.
    expect((await cachesLeftBehind(cacheDir)).map((c) => c.vault)).toEqual([path.join(tmp, "gone-1")]);

    let listed = false;
    const fresh = path.join(tmp, "fresh");
    rmSync(lessLike, { recursive: true });
    expect(
      await adoptCacheOfMovedVault(cacheDir, fresh, async () => {
        listed = true;
        return notes;
      }),
    ).toBeNull();
    expect(listed).toBe(false);
  });

  it("counts a vault as gone only when nothing is at its path and the folder that held it is still there", async () => {
    const gone = path.join(tmp, "Vaults", "gone");
    await recordedCache(gone, ["a.md"]);
    await recordedCache(path.join(tmp, "Vaults", "here"), ["a.md"], true);
    expect((await cachesLeftBehind(cacheDir)).map((c) => c.vault)).toEqual([gone]);
    // The folder that held it gone too (a path through a file included): out of reach, not known gone.
    rmSync(path.join(tmp, "Vaults"), { recursive: true });
    writeFileSync(path.join(tmp, "Vaults"), "");
    expect(await cachesLeftBehind(cacheDir)).toEqual([]);
  });

  it("never takes the cache of a vault on a drive that is unmounted, or a share that is offline (out of reach, not gone)", async () => {
    const notes = NOTES.map((n) => `${n}.md`);
    /** Each way a vault is out of reach, undone afterwards: the folder its cache was recorded for. */
    const outOfReach: (() => Promise<string>)[] = [
      // macOS, a desktop's automounter, a share: the drive's folder goes with it (/Volumes/Drive/Vault).
      async () => {
        const folder = await recordedCache(path.join(tmp, "Volumes", "Drive", "Vault"), notes, true);
        rmSync(path.join(tmp, "Volumes", "Drive"), { recursive: true });
        return folder;
      },
      // fstab's mount point stays behind, empty, on the disk below (/mnt/usb/Vault): the record names the drive's device.
      async () => {
        const mountPoint = path.join(tmp, "mnt", "usb");
        const folder = await recordedCache(path.join(mountPoint, "Vault"), notes);
        const record = JSON.parse(readFileSync(path.join(folder, "vault.json"), "utf8")) as { device: number };
        writeFileSync(path.join(folder, "vault.json"), JSON.stringify({ ...record, device: statSync(mountPoint).dev + 1 }));
        return folder;
      },
    ];
    for (const [i, makeOutOfReach] of outOfReach.entries()) {
      const folder = await makeOutOfReach();
      // A copy of that vault, opened for the first time, makes a cache of its own.
      const copy = path.join(tmp, `Vault copy ${i}`);
      mkdirSync(copy);
      expect(await adoptCacheOfMovedVault(cacheDir, copy, async () => notes), folder).toBeNull();
      expect(await cachesLeftBehind(cacheDir), folder).toEqual([]);
      expect(existsSync(folder)).toBe(true);
      rmSync(folder, { recursive: true });
    }
  });

  it("never takes the cache of a vault at the root of a gvfs share that is offline (the share is just not listed on the one FUSE mount)", async () => {
    const notes = NOTES.map((n) => `${n}.md`);
    const gvfs = path.join(tmp, "run", "user", "1000", "gvfs");
    const share = path.join(gvfs, "smb-share:server=nas,share=notes");
    // Recorded while the share was online: the share's folder is on gvfs's device, as gvfs itself is.
    const folder = await recordedCache(share, notes);
    onFuse.add(gvfs);
    try {
      const copy = path.join(tmp, "Vault copy");
      mkdirSync(copy);
      expect(await cachesLeftBehind(cacheDir)).toEqual([]);
      expect(await adoptCacheOfMovedVault(cacheDir, copy, async () => notes)).toBeNull();
      expect(existsSync(folder)).toBe(true);
    } finally {
      onFuse.delete(gvfs);
    }
    // The same folder on a local disk: the vault is gone, and its cache is listed as left behind.
    expect((await cachesLeftBehind(cacheDir)).map((c) => c.vault)).toEqual([share]);
  });

  it("counts a vault as out of reach, not gone, when its path or the folder that held it does not answer (ENOTCONN, EIO, EHOSTDOWN)", async () => {
    const notes = NOTES.map((n) => `${n}.md`);
    const vault = path.join(tmp, "share", "Vault");
    await recordedCache(vault, notes);
    expect((await cachesLeftBehind(cacheDir)).map((c) => c.vault)).toEqual([vault]);
    for (const [file, code] of [[vault, "ENOTCONN"], [vault, "EIO"], [path.dirname(vault), "EHOSTDOWN"]]) {
      failing.set(file, code);
      try {
        expect(await cachesLeftBehind(cacheDir), code).toEqual([]);
        expect(await adoptCacheOfMovedVault(cacheDir, path.join(tmp, "copy"), async () => notes), code).toBeNull();
      } finally {
        failing.delete(file);
      }
    }
  });

  it("leaves alone a folder whose record names another vault than the one it is named after (taken over, its record not yet written)", async () => {
    const notes = NOTES.map((n) => `${n}.md`);
    const before = path.join(tmp, "before");
    const after = path.join(tmp, "after");
    const folder = await recordedCache(before, notes);
    // A run from `after` renamed the folder, and was stopped before it wrote the record: it is `after`'s now.
    renameSync(folder, vaultCacheFolder(cacheDir, after));
    mkdirSync(after);
    expect(await cachesLeftBehind(cacheDir)).toEqual([]);
    expect(await adoptCacheOfMovedVault(cacheDir, path.join(tmp, "a third"), async () => notes)).toBeNull();
    expect(existsSync(vaultCacheFolder(cacheDir, after))).toBe(true);
  });

  it("reads no record larger than any it writes (a damaged vault.json is not read whole at every run)", async () => {
    const notes = NOTES.map((n) => `${n}.md`);
    const folder = await recordedCache(path.join(tmp, "gone"), notes);
    const record = readFileSync(path.join(folder, "vault.json"), "utf8");
    writeFileSync(path.join(folder, "vault.json"), `${record}${" ".repeat(1024 * 1024)}`);
    expect(await cachesLeftBehind(cacheDir)).toEqual([]);
    expect(await adoptCacheOfMovedVault(cacheDir, path.join(tmp, "here"), async () => notes)).toBeNull();
    writeFileSync(path.join(folder, "vault.json"), record);
    expect(await cachesLeftBehind(cacheDir)).toHaveLength(1);
  });

  // Every run that looked for a moved vault's cache (a vault's first), and every `index`, which lists
  // the caches left behind, waited on the pipe for ever; so did every run of the vault it sat in.
  it.skipIf(!hasMkfifo)("is not held by a named pipe in the place of vault.json, another vault's or its own (skipped where there is no mkfifo)", async () => {
    const notes = NOTES.map((n) => `${n}.md`);
    const folder = await recordedCache(path.join(tmp, "gone"), notes);
    rmSync(path.join(folder, "vault.json"));
    makeNamedPipe(path.join(folder, "vault.json"));
    expect(await cachesLeftBehind(cacheDir)).toEqual([]);
    expect(await adoptCacheOfMovedVault(cacheDir, path.join(tmp, "here"), async () => notes)).toBeNull();
    // Its own: the record is written in the pipe's place.
    const vault = path.join(tmp, "vault");
    mkdirSync(vault);
    const own = vaultCacheFolder(cacheDir, vault);
    mkdirSync(own);
    makeNamedPipe(path.join(own, "vault.json"));
    await recordVaultOfCache(own, vault, notes);
    expect(JSON.parse(readFileSync(path.join(own, "vault.json"), "utf8"))).toMatchObject({ vault, sample: sampleOf(notes) });
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
