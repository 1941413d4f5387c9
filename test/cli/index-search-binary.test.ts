// The built command as a user runs it: `npm run build`, then `node dist/cli.cjs` in a child
// process — exit codes and stdout/stderr as a shell script sees them.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuiltCli } from "../support/built-cli";
import { readIndexReport, readVaultSearch } from "../support/cli-json";

const ROOT = path.resolve(__dirname, "../..");
const CLI = path.join(ROOT, "dist/cli.cjs");
const SAMPLE_VAULT = path.join(ROOT, "examples/vault");

let tmp: string;

beforeAll(() => {
  ensureBuiltCli();
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-bin-"));
}, 120_000);

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function run(...args: string[]) {
  const env = { ...process.env, VAULT_RESEARCH_CACHE_DIR: path.join(tmp, "cache") };
  return spawnSync(process.execPath, [CLI, ...args], { cwd: tmp, env, encoding: "utf8", timeout: 60_000 });
}

describe("the built vault-research command", () => {
  it("indexes, then searches the sample vault from the cache and prints JSON", () => {
    const indexed = run("index", "--vault", SAMPLE_VAULT, "--json");
    expect(indexed.status, indexed.stderr).toBe(0);
    expect(readIndexReport(indexed.stdout).sync.mode).toBe("rebuild");

    const searched = run("search", "relay server offline peers", "--vault", SAMPLE_VAULT, "--json");
    expect(searched.status, searched.stderr).toBe(0);
    expect(searched.stderr).toBe("");
    // (The schema holds the title to text and the score to a number.)
    const { results } = readVaultSearch(searched.stdout);
    expect(results[0].path).toBe("Projects/Sync relay server.md");
  });

  it("exits 2 with a message on stderr for a misspelt flag", () => {
    const bad = run("search", "x", "--vault", SAMPLE_VAULT, "--jsn");
    expect(bad.status).toBe(2);
    expect(bad.stdout).toBe("");
    expect(bad.stderr).toContain("Unknown option --jsn. Did you mean --json?");
  });
});

describe("the built command's output read by a reader that stops early", () => {
  it("ends without a stack when the pipe closes (`| head -c 1`)", async () => {
    const { spawn } = await import("node:child_process");
    const { mkdirSync, writeFileSync } = await import("node:fs");
    // More output than a pipe holds (64 kB), so the command is still writing when the reader leaves.
    const vault = path.join(tmp, "many-notes");
    mkdirSync(vault);
    for (let i = 0; i < 200; i++) writeFileSync(path.join(vault, `Note ${i}.md`), `# Note ${i}\n\n${"The tide turns the mill wheel every evening. ".repeat(20)}\n`);
    const child = spawn(process.execPath, [CLI, "search", "tide", "--vault", vault, "--limit", "200", "--json"], {
      cwd: tmp,
      env: { ...process.env, VAULT_RESEARCH_CACHE_DIR: path.join(tmp, "cache-pipe") },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.once("data", () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
    expect(stderr).not.toMatch(/EPIPE|Unhandled|at .*\.js/);
    expect(code).toBe(0);
  }, 60_000);
});
