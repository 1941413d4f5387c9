// Ctrl-C between a temporary file's write and its rename: nothing is left behind, in the vault or
// the cache folder, and the process still ends as interrupted. The built binary is stopped at that
// very moment by a preloaded script that sends SIGINT once the chosen file is written.
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { holdTemporaryFile, inTurn, releaseTemporaryFile, removeTemporaryFilesOnSignal, replaceFileWhole, type SignalledProcess } from "../../src/cli/temporary-files";
import { ensureBuiltCli } from "../support/built-cli";

const ROOT = path.resolve(__dirname, "../..");
const PRELOAD = path.join(__dirname, "fixtures/interrupt-after-write.cjs");
const QUESTION = "What changed in the latest Automerge release?";

let cli: string;
let tmp: string;

beforeAll(() => {
  cli = ensureBuiltCli();
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-interrupt-"));
}, 120_000);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Every file under `dir`, hidden ones included, as paths relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
}

const leftovers = (dir: string) => filesUnder(dir).filter((f) => /\.tmp$|vault-research-lock/.test(f));

function freshVault(name: string): { vault: string; cache: string } {
  const vault = path.join(tmp, name, "vault");
  cpSync(path.join(ROOT, "examples/vault"), vault, { recursive: true });
  return { vault, cache: path.join(tmp, name, "cache") };
}

/** The built command, interrupted once a file matching `at` is written (none when `at` is absent). */
function run(args: string[], at?: RegExp) {
  const env: Record<string, string> = { PATH: process.env.PATH ?? "" };
  if (at) env.VR_INTERRUPT_AFTER_WRITE = at.source;
  return spawnSync(process.execPath, ["--require", PRELOAD, cli, ...args], { cwd: tmp, env, encoding: "utf8", timeout: 60_000 });
}

describe("Ctrl-C while a file is on its way into place", () => {
  it("leaves no part of the index in the cache folder, and the next run indexes as usual", () => {
    const { vault, cache } = freshVault("index");
    const stopped = run(["index", "--vault", vault, "--cache-dir", cache], /\.v8\.\d+\.tmp$/);
    expect(stopped.signal, stopped.stderr).toBe("SIGINT");
    expect(leftovers(cache)).toEqual([]);
    const again = run(["index", "--vault", vault, "--cache-dir", cache, "--json"]);
    expect(again.status, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ schema: "index_report.v1", notes: 35 });
  });

  it("leaves no hidden temporary file in the vault when a trace note was being written", () => {
    const { vault, cache } = freshVault("trace-note");
    const before = filesUnder(vault);
    const stopped = run(["research", QUESTION, "--vault", vault, "--cache-dir", cache, "--retrieval-only", "--trace"], /[\\/]\.vault-research-\d+-[0-9a-f]+\.tmp$/);
    expect(stopped.signal, stopped.stderr).toBe("SIGINT");
    expect(filesUnder(vault)).toEqual(before);
  });

  it("leaves no temporary file beside the kept traces", () => {
    const { vault, cache } = freshVault("kept-trace");
    const stopped = run(["research", QUESTION, "--vault", vault, "--cache-dir", cache, "--retrieval-only"], /[\\/]traces[\\/].*\.md\.\d+\.[0-9a-f]+\.tmp$/);
    expect(stopped.signal, stopped.stderr).toBe("SIGINT");
    expect(leftovers(cache)).toEqual([]);
  });

  it("leaves no lock or temporary file beside a trace note being rewritten by promote", () => {
    const { vault, cache } = freshVault("promote");
    const researched = run(["research", QUESTION, "--vault", vault, "--cache-dir", cache, "--external-search", "always", "--replay", path.join(ROOT, "fixtures/replay/brave-demo"), "--read-pages", "0", "--trace", "--json"]);
    expect(researched.status, researched.stderr).toBe(0);
    const { trace_path: trace, pack } = JSON.parse(researched.stdout) as { trace_path: string; pack: { external_evidence: { source_key: string; url: string }[] } };
    const row = pack.external_evidence.find((r) => r.url.startsWith("https://automerge.org/"))!;
    const promote = ["promote", "--vault", vault, "--cache-dir", cache, "--trace", trace, "--source-key", row.source_key, "--replay", path.join(ROOT, "fixtures/replay/brave-demo-pages"), "--json"];
    // The rewrite of the trace note: its temporary file is written while the note's lock is held.
    const stopped = run(promote, /Traces[\\/]\.vault-research-\d+-[0-9a-f]+\.tmp$/);
    expect(stopped.signal, stopped.stderr).toBe("SIGINT");
    expect(leftovers(vault)).toEqual([]);
  });
});

/** A process stand-in: its listeners, and the signals it raised at itself. */
function standInProcess(): SignalledProcess & { raised: string[]; send(signal: "SIGINT" | "SIGTERM"): void; listeners: Map<string, (() => void)[]> } {
  const listeners = new Map<string, (() => void)[]>();
  const raised: string[] = [];
  return {
    pid: 4242,
    raised,
    listeners,
    on: (signal, listener) => listeners.set(signal, [...(listeners.get(signal) ?? []), listener]),
    removeListener: (signal, listener) => listeners.set(signal, (listeners.get(signal) ?? []).filter((l) => l !== listener)),
    listenerCount: (signal) => listeners.get(signal)?.length ?? 0,
    kill: (_pid, signal) => raised.push(signal),
    send: (signal) => [...(listeners.get(signal) ?? [])].forEach((l) => l()),
  };
}

describe("removeTemporaryFilesOnSignal", () => {
  it("removes what is held, keeps a lock another process took over and what was released, then raises the signal again", () => {
    const dir = mkdtempSync(path.join(tmp, "held-"));
    const [temp, lock, done] = ["a.tmp", ".a.md.vault-research-lock", "b.tmp"].map((f) => path.join(dir, f));
    writeFileSync(temp, "half");
    writeFileSync(lock, "someone-else");
    writeFileSync(done, "renamed meanwhile");
    holdTemporaryFile(temp);
    holdTemporaryFile(lock, "mine");
    holdTemporaryFile(done);
    releaseTemporaryFile(done);
    const proc = standInProcess();
    removeTemporaryFilesOnSignal(proc);
    proc.send("SIGTERM");
    expect(readdirSync(dir).sort()).toEqual([".a.md.vault-research-lock", "b.tmp"]);
    expect(proc.raised).toEqual(["SIGTERM"]);
    expect(proc.listenerCount("SIGTERM")).toBe(0);
  });

  it("leaves a Ctrl-C to a command that stops gently on its own, and acts on the second", () => {
    const dir = mkdtempSync(path.join(tmp, "gentle-"));
    const temp = path.join(dir, "vectors.bin.1.tmp");
    writeFileSync(temp, "…");
    holdTemporaryFile(temp);
    const proc = standInProcess();
    removeTemporaryFilesOnSignal(proc);
    let stops = 0;
    const gentle = () => {
      stops++;
      proc.removeListener("SIGINT", gentle);
    };
    proc.on("SIGINT", gentle);
    proc.send("SIGINT");
    expect([stops, proc.raised, readdirSync(dir)]).toEqual([1, [], ["vectors.bin.1.tmp"]]);
    proc.send("SIGINT");
    expect([stops, proc.raised, readdirSync(dir)]).toEqual([1, ["SIGINT"], []]);
  });
});

describe("replaceFileWhole", () => {
  // Both wrote the one temporary name at once: the file put in place held bytes of each, and the
  // other write failed its rename.
  it("writes one file twice at once whole each time: the later write wins, neither fails", async () => {
    const dir = mkdtempSync(path.join(tmp, "twice-"));
    const file = path.join(dir, "part.v8");
    const first = Buffer.alloc(4 << 20, 0x61);
    const second = Buffer.alloc(1 << 20, 0x62);
    await Promise.all([replaceFileWhole(file, first), replaceFileWhole(file, second)]);
    expect(readFileSync(file).equals(second)).toBe(true);
    expect(readdirSync(dir)).toEqual(["part.v8"]);
  });
});

describe("inTurn", () => {
  it("starts each work of a key when the one before settled, and a failed one holds up none after it", async () => {
    const steps: string[] = [];
    let finishFirst!: () => void;
    const first = inTurn("key", async () => {
      steps.push("first starts");
      await new Promise<void>((resolve) => (finishFirst = resolve));
      throw new Error("first failed");
    });
    const second = inTurn("key", async () => {
      steps.push("second starts");
      return 2;
    });
    const other = inTurn("other key", async () => {
      steps.push("other starts");
      return 3;
    });
    expect(await other).toBe(3);
    expect(steps).toEqual(["first starts", "other starts"]);
    finishFirst();
    await expect(first).rejects.toThrow("first failed");
    expect(await second).toBe(2);
    expect(steps).toEqual(["first starts", "other starts", "second starts"]);
  });
});
