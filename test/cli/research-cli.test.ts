// `vault-research research` end to end: the built CLI in a child process, over a temporary copy
// of the sample vault, with web search answered by the recorded brave-demo responses. Checks the
// --json shape of DESIGN.md, what left the machine (VAULT_RESEARCH_REPLAY_LOG), and usage errors.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { researchPackSchema } from "../../src/evidence/research-pack";
import { readResearchResult, readVaultSearch } from "../support/cli-json";
import type { ReplayLogEntry } from "../../src/websearch/replay";
import { ensureBuiltCli, newestMtime } from "../support/built-cli";

const ROOT = path.resolve(__dirname, "../..");
const CLI = path.join(ROOT, "dist/cli.cjs");
const SAMPLE_VAULT = path.join(ROOT, "examples/vault");
const DEMO_REPLAY = path.join(ROOT, "fixtures/replay/brave-demo");
const QUESTION = "What changed in the latest Automerge release?";
const PROVIDER_HOSTS = new Set(["api.search.brave.com", "api.exa.ai"]);

let tmp: string;
let vault: string;

beforeAll(() => {
  ensureBuiltCli();
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-research-cli-"));
  vault = path.join(tmp, "vault");
  cpSync(SAMPLE_VAULT, vault, { recursive: true });
});

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI with a clean environment: no API keys, caches and logs inside the temp folder. */
function cli(args: string[], env: Record<string, string> = {}): CliRun {
  const result = spawnSync(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", HOME: tmp, XDG_CACHE_HOME: path.join(tmp, "xdg-cache"), ...env },
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const cacheArgs = () => ["--vault", vault, "--cache-dir", path.join(tmp, "cache")];

function logLines(file: string): ReplayLogEntry[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as ReplayLogEntry);
}


describe("vault-research research --json", () => {
  it("on-weak over the brave-demo replay: exit 0, the DESIGN.md shape, requests only to provider hosts", () => {
    const log = path.join(tmp, "replay-on-weak.jsonl");
    const run = cli(["research", QUESTION, "--json", "--replay", DEMO_REPLAY, "--external-search", "on-weak", "--trace", ...cacheArgs()], { VAULT_RESEARCH_REPLAY_LOG: log });

    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    const out = readResearchResult(run.stdout);
    for (const key of ["pack", "answer", "citations", "verification", "stop_reason", "trace_path"]) expect(out, key).toHaveProperty(key);
    expect(() => researchPackSchema.parse(out.pack)).not.toThrow();
    expect(out.pack.question).toBe(QUESTION);
    expect(out.answer).toMatchObject({ kind: "extractive", verified: true });
    // (The schema holds warnings to a list.)
    expect(out.verification).toMatchObject({ passed: true, errors: [] });
    expect(out.citations!.length).toBeGreaterThan(0);
    expect(typeof out.stop_reason).toBe("string");
    // The trace object stays out of the JSON contract; the note is on disk.
    expect(out).not.toHaveProperty("trace");
    expect(out.trace_path).toMatch(/^Research\/Traces\/.+\.md$/);
    expect(existsSync(path.join(vault, out.trace_path!))).toBe(true);
    // The note says its web answers are recorded samples, as the text and the JSON do.
    expect(readFileSync(path.join(vault, out.trace_path!), "utf8")).toContain("Recorded sample responses, not a live search");

    expect(out.pack.external_evidence.length).toBeGreaterThan(0);
    for (const row of out.pack.external_evidence) expect(row.label).toBe("Outside vault · Brave · ephemeral");
    expect(out.pack.evidence.find((r) => r.note_path === "Reading/Automerge - Hello (getting started).md")?.also_found_by).toEqual(["brave"]);

    const lines = logLines(log);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(PROVIDER_HOSTS.has(new URL(line.url).host), line.url).toBe(true);
    expect(new Set(lines.map((l) => new URL(l.url).host))).toEqual(new Set(["api.search.brave.com"]));
  });

  it("never (the default): exit 0, no outside rows, and no request at all", () => {
    const log = path.join(tmp, "replay-never.jsonl");
    const run = cli(["research", QUESTION, "--json", "--replay", DEMO_REPLAY, "--no-trace", ...cacheArgs()], { VAULT_RESEARCH_REPLAY_LOG: log });

    expect(run.status).toBe(0);
    const out = readResearchResult(run.stdout);
    expect(out.pack.external_evidence).toEqual([]);
    expect(out.trace_path).toBeNull();
    expect(logLines(log)).toEqual([]);
  });

  it("the trace note it wrote is not found by a search afterwards", () => {
    const first = readResearchResult(cli(["research", QUESTION, "--json", "--trace", ...cacheArgs()]).stdout);
    expect(existsSync(path.join(vault, first.trace_path!))).toBe(true);

    const search = cli(["search", QUESTION, "--json", "--limit", "50", ...cacheArgs()]);
    expect(search.status).toBe(0);
    const paths = readVaultSearch(search.stdout).results.map((r) => r.path);
    expect(paths.length).toBeGreaterThan(0);
    expect(paths.filter((p) => p.startsWith("Research/"))).toEqual([]);
  });

  it("text output labels outside rows and counts both kinds", () => {
    const run = cli(["research", QUESTION, "--replay", DEMO_REPLAY, "--external-search", "on-weak", "--no-trace", ...cacheArgs()]);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^Note: web results below are recorded sample responses/);
    expect(run.stdout).toMatch(/^Vault evidence: \d+ rows$/m);
    expect(run.stdout).toMatch(/^Outside vault: \d+ rows from Brave$/m);
    expect(run.stdout).toContain("Outside vault · Brave · ephemeral");
    expect(run.stdout).toContain("also found by Brave");
  });
});

describe("where the trace goes", () => {
  it("without --trace nothing is written into the vault: the trace is kept in the cache folder", () => {
    const before = newestMtime(vault);
    const run = cli(["research", QUESTION, "--json", ...cacheArgs()]);
    expect(run.status).toBe(0);
    const out = readResearchResult(run.stdout);
    expect(out.trace_path).toBeNull();
    expect(out.trace_file!.startsWith(path.join(tmp, "cache"))).toBe(true);
    expect(readFileSync(out.trace_file!, "utf8")).toContain("```json vault-research-trace");
    expect(newestMtime(vault)).toBe(before);
  });

  it("a config that sets notes.writeTraceNotes writes the note; --no-trace keeps nothing anywhere", () => {
    const config = path.join(tmp, "trace-notes-on.json");
    writeFileSync(config, JSON.stringify({ notes: { writeTraceNotes: true } }));
    const written = readResearchResult(cli(["research", QUESTION, "--json", "--config", config, ...cacheArgs()]).stdout);
    expect(written.trace_path).toMatch(/^Research\/Traces\/.+\.md$/);
    const none = readResearchResult(cli(["research", QUESTION, "--json", "--config", config, "--no-trace", ...cacheArgs()]).stdout);
    expect([none.trace_path, none.trace_file]).toEqual([null, null]);
  });

  it("refuses --trace with --no-trace", () => {
    const run = cli(["research", QUESTION, "--trace", "--no-trace", ...cacheArgs()]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("--trace and --no-trace cannot both be given.");
  });
});

describe("the question from standard input", () => {
  it("reads a piped question when none is written, and - the same", () => {
    for (const args of [["research", "--json", "--no-trace", ...cacheArgs()], ["research", "-", "--json", "--no-trace", ...cacheArgs()]]) {
      const run = spawnSync(process.execPath, [CLI, ...args], { cwd: ROOT, encoding: "utf8", input: `${QUESTION}\n`, env: { PATH: process.env.PATH ?? "", HOME: tmp } });
      expect(run.status, run.stderr).toBe(0);
      expect(readResearchResult(run.stdout).pack.question).toBe(QUESTION);
    }
  });
});

describe("vault-research research usage errors exit 2", () => {
  const cases: [string, () => string[]][] = [
    ["an unknown flag", () => ["research", QUESTION, "--frobnicate", ...cacheArgs()]],
    ["a bad --external-search value", () => ["research", QUESTION, "--external-search", "sometimes", ...cacheArgs()]],
    ["a vault folder that does not exist", () => ["research", QUESTION, "--vault", path.join(tmp, "no-such-vault"), "--cache-dir", path.join(tmp, "cache")]],
    ["no --vault at all", () => ["research", QUESTION]],
    ["an empty vault folder", () => {
      const empty = path.join(tmp, "empty-vault");
      mkdirSync(empty, { recursive: true });
      return ["research", QUESTION, "--vault", empty, "--cache-dir", path.join(tmp, "cache")];
    }],
    ["no question", () => ["research", ...cacheArgs()]],
    ["an unknown provider", () => ["research", QUESTION, "--external-provider", "google", ...cacheArgs()]],
  ];
  for (const [name, args] of cases) {
    it(name, () => {
      const run = cli(args());
      expect(run.status).toBe(2);
      expect(run.stdout).toBe("");
      expect(run.stderr).toMatch(/^vault-research research: .+\n/);
      expect(run.stderr).toContain("vault-research --help");
    });
  }
});
