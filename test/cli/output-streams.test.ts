// A reader that leaves early, or an output that cannot be written, never changes what the run did:
// the command ends as it would have and the exit code is the run's (a lost stdout: 1).
import { spawn } from "node:child_process";
import { EventEmitter } from "node:events";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { processOutput } from "../../src/cli/output-streams";
import { ensureBuiltCli } from "../support/built-cli";

class StandInStream extends EventEmitter {
  written = "";
  write(text: string): boolean {
    this.written += text;
    return true;
  }
  fail(code: string): void {
    this.emit("error", Object.assign(new Error(code), { code }));
  }
}

function standIn(stdoutIsChannel = false) {
  const stdout = new StandInStream();
  const stderr = new StandInStream();
  const ended: number[] = [];
  const codes: number[] = [];
  const output = processOutput(stdout, stderr, { stdoutIsChannel, endNow: (code) => ended.push(code), setExitCode: (code) => codes.push(code) });
  return { stdout, stderr, ended, codes, output };
}

describe("the process's output when its reader leaves", () => {
  it("keeps the run's exit code when stdout's reader left before the run ended (stopped 130, failed 1, completed 0)", () => {
    for (const code of [130, 1, 0]) {
      const { stdout, ended, codes, output } = standIn();
      stdout.fail("EPIPE");
      output.out("the rest of the answer\n");
      output.commandEnded(code);
      expect(ended).toEqual([]);
      expect(codes.at(-1)).toBe(code);
      expect(stdout.written).toBe("");
    }
  });

  it("goes on when stderr's reader left at a warning, and prints the results still", () => {
    const { stdout, stderr, ended, codes, output } = standIn();
    output.err("warning: a setting this version does not know\n");
    stderr.fail("EPIPE");
    output.err("another warning\n");
    output.out("the answer\n");
    output.commandEnded(1);
    expect(ended).toEqual([]);
    expect(codes).toEqual([1]);
    expect(stdout.written).toBe("the answer\n");
    expect(stderr.written).toBe("warning: a setting this version does not know\n");
  });

  it("exits 1 when the output could not be written (a full disk), even when the error comes after the command returned", () => {
    const { stdout, stderr, ended, codes, output } = standIn();
    output.out("the answer\n");
    output.commandEnded(0);
    stdout.fail("ENOSPC");
    expect(ended).toEqual([]);
    expect(codes).toEqual([0, 1]);
    expect(stderr.written).toContain("could not write the output (ENOSPC)");
  });

  it("ends the MCP server at once when its client, the reader of stdout, is gone", () => {
    const { stdout, ended } = standIn(true);
    stdout.fail("EPIPE");
    expect(ended).toEqual([0]);
  });
});

describe("the built command with its stderr's reader gone", () => {
  let tmp: string;
  let cli: string;
  beforeAll(() => {
    cli = ensureBuiltCli();
    tmp = mkdtempSync(path.join(os.tmpdir(), "vr-output-"));
  }, 120_000);
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it("runs to its end and exits 1 for a run that fails, keeping its trace (it exited 0 at the first warning, having run nothing)", async () => {
    const vault = path.join(tmp, "vault");
    mkdirSync(path.join(vault, "Research"), { recursive: true });
    writeFileSync(path.join(vault, "Relay.md"), "# Relay\n\nThe sync relay server forwards changes between offline peers.\n");
    // The trace folder is a file: the trace note asked for cannot be written, so the run fails (exit 1).
    writeFileSync(path.join(vault, "Research", "Traces"), "");
    // A key this version does not know: a warning on stderr before the run starts.
    const config = path.join(tmp, "config.json");
    writeFileSync(config, JSON.stringify({ aSettingFromANewerVersion: 1 }));
    const cacheDir = path.join(tmp, "cache");
    const child = spawn(process.execPath, [cli, "research", "sync relay", "--vault", vault, "--trace", "--config", config, "--cache-dir", cacheDir], { cwd: tmp, stdio: ["ignore", "pipe", "pipe"] });
    child.stderr.destroy();
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
    expect(code).toBe(1);
    expect(stdout).toContain("Question: sync relay");
    expect(readdirSync(path.join(cacheDir, "traces"))).toHaveLength(1);
  }, 60_000);
});
