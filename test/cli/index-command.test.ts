// `vault-research index` says where the vault's language was learned, and when it was not in a
// worker thread, why: one that never started is not one that started and then failed.
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { parseArgs } from "../../src/cli/args";
import { indexCommand } from "../../src/cli/index-command";
import { COMMANDS } from "../../src/cli/run";
import { FileIndexCache } from "../../src/cli/file-index-cache";
import { FsNoteStore } from "../../src/cli/fs-note-store";
import { bundledNodeWorkers, NodeWorkers, type ReportingWorkers } from "../../src/cli/node-workers";
import { terminalOutput } from "../../src/cli/terminal-text";
import { indexReportSchema } from "../../src/cli/json/index-report-json";
import { fakeClock, FAKE_NOW } from "../support/fake-clock";
import { laneVault } from "../support/lane-vault";
import { stringContaining } from "../support/typed-matchers";

let tmp: string;
let vault: string;

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-index-command-"));
  vault = path.join(tmp, "vault");
  for (const [file, text] of Object.entries(laneVault())) {
    mkdirSync(path.join(vault, path.dirname(file)), { recursive: true });
    writeFileSync(path.join(vault, file), text);
  }
});

afterAll(() => rmSync(tmp, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

/** The index command's line about the vault's language, indexed from scratch with `workers`. */
async function languageLine(workers: ReportingWorkers, cache: string): Promise<string> {
  let out = "";
  const io = terminalOutput({ out: (t: string) => (out += t), err: () => undefined, env: {}, cwd: tmp }, []);
  const code = await indexCommand(parseArgs(["--vault", vault, "--cache-dir", path.join(tmp, cache)], COMMANDS.index.flags), io, workers);
  expect(code).toBe(0);
  return out.split("\n").find((line) => line.includes("the vault's own language"))!.trim();
}

describe("the index command's words for where the vault's language was learned", () => {
  it("names the failure of a worker that started and then threw, not a worker that could not start", async () => {
    const line = await languageLine(new NodeWorkers("throw new Error('the worker ran out of room')"), "threw");
    expect(line).toBe("the vault's own language: learned in the CLI's own thread (its worker thread started but did not finish: the worker ran out of room)");
  }, 60_000);

  it("says no worker could be started, and why, when none could", async () => {
    const line = await languageLine(bundledNodeWorkers(), "unbundled");
    expect(line).toBe("the vault's own language: learned in the CLI's own thread (no worker could be started: this build carries no worker code)");
  }, 60_000);

  it("puts the same in --json, as worker_problem", async () => {
    let out = "";
    const io = terminalOutput({ out: (t: string) => (out += t), err: () => undefined, env: {}, cwd: tmp }, []);
    const args = parseArgs(["--vault", vault, "--cache-dir", path.join(tmp, "threw-json"), "--json"], COMMANDS.index.flags);
    expect(await indexCommand(args, io, new NodeWorkers("throw new Error('the worker ran out of room')"))).toBe(0);
    const report = JSON.parse(out) as { vault_language: { learned_in: string; worker_problem?: { kind: string; message: string } } };
    expect(report.vault_language).toMatchObject({ learned_in: "this thread", worker_problem: { kind: "failed", message: stringContaining("ran out of room") } });
  }, 60_000);
});

describe("the index command's counts", () => {
  it("says a note changed when a same-size edit in the second it was last indexed in was taken in (not 'changed 0')", async () => {
    const small = path.join(tmp, "ticks");
    mkdirSync(small, { recursive: true });
    const clock = fakeClock(FAKE_NOW + 500);
    // Dated as a disk with one-second dates dates it: both versions carry the same date.
    const write = (name: string, text: string, at: number) => {
      writeFileSync(path.join(small, name), text);
      utimesSync(path.join(small, name), at / 1000, at / 1000);
    };
    write("Old.md", "# Old\n\nWalruses, long ago.\n", FAKE_NOW - 3_600_000);
    write("Draft.md", "# Draft\n\nThe plan says alpha.\n", FAKE_NOW);
    const run = async () => {
      let out = "";
      const io = terminalOutput({ out: (t: string) => (out += t), err: () => undefined, env: {}, cwd: tmp, clock }, []);
      const args = parseArgs(["--vault", small, "--cache-dir", path.join(tmp, "ticks-cache"), "--json"], COMMANDS.index.flags);
      expect(await indexCommand(args, io, bundledNodeWorkers())).toBe(0);
      return (JSON.parse(out) as { sync: Record<string, unknown> }).sync;
    };
    expect(await run()).toMatchObject({ added: 2 });
    write("Draft.md", "# Draft\n\nThe plan says omega.\n", FAKE_NOW);
    clock.advance(60_000);
    expect(await run()).toMatchObject({ added: 0, updated: 1, removed: 0, unchanged: 1 });
  }, 60_000);

  it("reads a note proven by a re-read no more at later runs, and writes nothing when there is nothing to prove", async () => {
    const small = path.join(tmp, "proven");
    mkdirSync(small, { recursive: true });
    const clock = fakeClock(FAKE_NOW + 500);
    const write = (name: string, text: string, at: number) => {
      writeFileSync(path.join(small, name), text);
      utimesSync(path.join(small, name), at / 1000, at / 1000);
    };
    write("Old.md", "# Old\n\nWalruses, long ago.\n", FAKE_NOW - 3_600_000);
    // Read half a second after its date: date and size cannot vouch for it until a later read.
    write("Draft.md", "# Draft\n\nThe plan says alpha.\n", FAKE_NOW);
    // Spied on, not changed: which notes each run reads, and whether it writes the manifest.
    const reads = vi.spyOn(FsNoteStore.prototype, "read");
    const writes = vi.spyOn(FileIndexCache.prototype, "write");
    const run = async () => {
      reads.mockClear();
      writes.mockClear();
      const io = terminalOutput({ out: () => undefined, err: () => undefined, env: {}, cwd: tmp, clock }, []);
      const args = parseArgs(["--vault", small, "--cache-dir", path.join(tmp, "proven-cache")], COMMANDS.index.flags);
      expect(await indexCommand(args, io, bundledNodeWorkers())).toBe(0);
      clock.advance(60_000);
      return { reads: reads.mock.calls.map(([note]) => note).sort(), saved: writes.mock.calls.some(([part]) => part === "manifest") };
    };
    expect(await run()).toEqual({ reads: ["Draft.md", "Old.md"], saved: true });
    // Proven now, with no count changed: the cache must learn it, or every run reads it again.
    expect(await run()).toEqual({ reads: ["Draft.md"], saved: true });
    expect(await run()).toEqual({ reads: [], saved: false });
    expect(await run()).toEqual({ reads: [], saved: false });
  }, 60_000);
});

describe("an index that could not be saved", () => {
  /** `index` with the cache folder under a file, where no folder can be made. */
  async function blockedIndex(...more: string[]) {
    const blocker = path.join(tmp, "a-file");
    writeFileSync(blocker, "a file where the cache folder should be");
    let out = "";
    let err = "";
    const io = terminalOutput({ out: (t: string) => (out += t), err: (t: string) => (err += t), env: {}, cwd: tmp }, []);
    const args = parseArgs(["--vault", vault, "--cache-dir", path.join(blocker, "cache"), ...more], COMMANDS.index.flags);
    const code = await indexCommand(args, io, bundledNodeWorkers());
    return { code, out, err };
  }

  it("fails the command, says why, and names no cache file that is not there (it exited 0 and printed the manifest's path)", async () => {
    const { code, out, err } = await blockedIndex();
    expect(code).toBe(1);
    // The file in the way is named (it said "ENOTDIR: not a directory, mkdir '…/a-file/cache/index-…'").
    const blocker = path.join(tmp, "a-file");
    expect(err).toContain(`warning: the index cache could not be written (${blocker} is a file, not a folder); the next run will index the vault again.\n`);
    expect(out).toContain(`  cache: not saved (${blocker} is a file, not a folder)\n`);
    expect(out).not.toMatch(/cache: .*manifest\.v8/);
  }, 60_000);

  it("says so in --json as cache_not_saved, in the documented shape, and fails the command", async () => {
    const { code, out } = await blockedIndex("--json");
    expect(code).toBe(1);
    const report = JSON.parse(out) as Record<string, unknown>;
    expect(indexReportSchema.safeParse(report).success).toBe(true);
    expect(report.cache_not_saved).toBe(`${path.join(tmp, "a-file")} is a file, not a folder`);
  }, 60_000);

  it("adds no cache_not_saved when the index was saved", async () => {
    let out = "";
    const io = terminalOutput({ out: (t: string) => (out += t), err: () => undefined, env: {}, cwd: tmp }, []);
    const args = parseArgs(["--vault", vault, "--cache-dir", path.join(tmp, "saved"), "--json"], COMMANDS.index.flags);
    expect(await indexCommand(args, io, bundledNodeWorkers())).toBe(0);
    expect(JSON.parse(out)).not.toHaveProperty("cache_not_saved");
  }, 60_000);
});

describe("the vault's language the cache lacked", () => {
  it("is saved once learned, though no note changed: it was learned again at every run (seconds on a large vault)", async () => {
    const config = path.join(tmp, "language-off.json");
    writeFileSync(config, JSON.stringify({ index: { vaultLanguage: false } }));
    const run = async (...more: string[]) => {
      let out = "";
      const io = terminalOutput({ out: (t: string) => (out += t), err: () => undefined, env: {}, cwd: tmp }, []);
      const args = parseArgs(["--vault", vault, "--cache-dir", path.join(tmp, "language-later"), "--json", ...more], COMMANDS.index.flags);
      expect(await indexCommand(args, io, bundledNodeWorkers())).toBe(0);
      return (JSON.parse(out) as { vault_language: { state: string; learned_in: string | null } }).vault_language;
    };
    // Indexed with the language off, then switched on: the index loads, and the language is learned.
    expect(await run("--config", config)).toMatchObject({ state: "off" });
    expect(await run()).toMatchObject({ state: "ready", learned_in: "this thread" });
    expect(await run()).toMatchObject({ state: "ready", learned_in: null });
    // Taken from the cache with nothing new: nothing is written.
    const writes = vi.spyOn(FileIndexCache.prototype, "write");
    expect(await run()).toMatchObject({ state: "ready", learned_in: null });
    expect(writes).not.toHaveBeenCalled();
  }, 60_000);
});

describe("an update of the index that could not be saved", () => {
  it("says the cache stays as it was and only this run's changes are read again, not that the vault is indexed again", async () => {
    const small = path.join(tmp, "update-not-saved");
    mkdirSync(small, { recursive: true });
    const dated = (name: string, text: string) => {
      writeFileSync(path.join(small, name), text);
      utimesSync(path.join(small, name), new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));
    };
    dated("Old.md", "# Old\n\nWalruses, long ago.\n");
    const run = async () => {
      let out = "";
      let err = "";
      const io = terminalOutput({ out: (t: string) => (out += t), err: (t: string) => (err += t), env: {}, cwd: tmp }, []);
      const args = parseArgs(["--vault", small, "--cache-dir", path.join(tmp, "update-not-saved-cache")], COMMANDS.index.flags);
      return { code: await indexCommand(args, io, bundledNodeWorkers()), out, err };
    };
    expect((await run()).code).toBe(0);
    dated("New.md", "# New\n\nOtters, lately.\n");
    // The disk fills between the runs: the update's first part cannot be written.
    vi.spyOn(FileIndexCache.prototype, "write").mockRejectedValue(new Error("ENOSPC: no space left on device, write"));
    const failed = await run();
    expect(failed.code).toBe(1);
    expect(failed.err).toBe("warning: the index cache could not be written (ENOSPC: no space left on device, write); it stays as it was, and the next run will read this run's changes again.\n");
    vi.restoreAllMocks();
    const next = await run();
    expect(next.out).toContain("updated from cache");
    expect(next.out).toContain("added 1, changed 0, removed 0, unchanged 1");
  }, 60_000);
});

describe("the index command's counts", () => {
  // "Indexed 1 notes", and "1 note(s) with problems".
  it("says one note in the singular, and one note with a problem too", async () => {
    const one = path.join(tmp, "one-note");
    mkdirSync(one);
    writeFileSync(path.join(one, "Broken.md"), "---\ntitle: [unclosed\n---\n\nBody text.\n");
    let out = "";
    const io = terminalOutput({ out: (t: string) => (out += t), err: () => undefined, env: {}, cwd: tmp }, []);
    expect(await indexCommand(parseArgs(["--vault", one, "--cache-dir", path.join(tmp, "one-note-cache")], COMMANDS.index.flags), io)).toBe(0);
    expect(out).toMatch(/^Indexed 1 note in \d+ ms/);
    expect(out).toContain("  1 note with problems (indexed as text where possible):");
    expect(out).not.toMatch(/1 notes|note\(s\)/);
  }, 60_000);
});
