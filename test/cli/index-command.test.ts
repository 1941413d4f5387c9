// `vault-research index` says where the vault's language was learned, and when it was not in a
// worker thread, why: one that never started is not one that started and then failed.
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseArgs } from "../../src/cli/args";
import { indexCommand } from "../../src/cli/index-command";
import { COMMANDS } from "../../src/cli/run";
import { bundledNodeWorkers, NodeWorkers, type ReportingWorkers } from "../../src/cli/node-workers";
import { terminalOutput } from "../../src/cli/terminal-text";
import { fakeClock, FAKE_NOW } from "../support/fake-clock";
import { laneVault } from "../support/lane-vault";

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
    expect(report.vault_language).toMatchObject({ learned_in: "this thread", worker_problem: { kind: "failed", message: expect.stringContaining("ran out of room") } });
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
});
