// `vault-research research` in process, for what the child-process tests (research-cli.test.ts)
// would be slow to set up: a trace note that cannot be written, and what the run keeps then.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "../../src/cli/args";
import { researchCommand } from "../../src/cli/research-command";
import { COMMANDS, runCli } from "../../src/cli/run";
import { terminalOutput } from "../../src/cli/terminal-text";

const ROOT = path.resolve(__dirname, "../..");
const QUESTION = "why did we choose Automerge over Yjs";
let tmp: string;
let vault: string;

beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-research-command-"));
  vault = path.join(tmp, "vault");
  cpSync(path.join(ROOT, "examples/vault"), vault, { recursive: true });
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

async function research(extra: string[], question = QUESTION, env: Record<string, string> = {}) {
  let out = "";
  let err = "";
  const argv = ["research", question, "--vault", vault, "--cache-dir", path.join(tmp, "cache"), ...extra];
  const code = await runCli(argv, { out: (t) => (out += t), err: (t) => (err += t), env, cwd: tmp });
  return { code, out, err };
}

describe("a trace note asked for (--trace) that cannot be written", () => {
  beforeEach(() => {
    // The trace folder's place is taken by a file: the note cannot be created.
    mkdirSync(path.join(vault, "Research"), { recursive: true });
    writeFileSync(path.join(vault, "Research", "Traces"), "not a folder\n");
  });

  it("fails the run (exit 1) but keeps the trace in the cache folder, so its outside rows can still be promoted", async () => {
    const run = await research(["--trace", "--json"]);
    expect(run.code).toBe(1);
    expect(run.err).toContain("The trace note could not be written");
    const out = JSON.parse(run.out) as { trace_path: string | null; trace_file: string };
    expect(out.trace_path).toBeNull();
    expect(out.trace_file).toEqual(expect.stringContaining(path.join(tmp, "cache")));
    expect(existsSync(out.trace_file)).toBe(true);
    expect(readFileSync(out.trace_file, "utf8")).toContain("```json vault-research-trace");
  });

  it("says in text where the trace went instead", async () => {
    const run = await research(["--trace"]);
    expect(run.code).toBe(1);
    expect(run.out).toMatch(/\nTrace note: not written; the trace is kept outside the vault in .+\.md \(promote --trace takes it\)\n$/);
  });
});

describe("a question that is an API key", () => {
  const KEY = "BSAbx9Zq3W7pLr2Kt8Vn4Yc6Hm1Jd5Fs0";

  it.each([
    ["of no service the CLI holds", KEY, {}],
    ["the very key of the environment, pasted with its variable", `BRAVE_SEARCH_API_KEY=${KEY}`, { BRAVE_SEARCH_API_KEY: KEY }],
  ])("is refused as bad input (exit 2) before the vault is opened, %s: no trace note, no cache folder, no query log, and the key is not repeated", async (_, question, env) => {
    const before = readdirSync(vault, { recursive: true });
    const run = await research(["--trace"], question, env);
    expect(run.code).toBe(2);
    expect(run.err).toContain("looks like an API key");
    expect(`${run.out}${run.err}`).not.toContain(KEY.slice(0, 10));
    expect(readdirSync(vault, { recursive: true })).toEqual(before);
    expect(existsSync(path.join(tmp, "cache"))).toBe(false);
  });
});

describe("a run stopped with Ctrl-C", () => {
  let server: Server;
  let base: string;
  let modelAsked: Promise<void>;

  beforeEach(async () => {
    // A model server that takes the request and never answers: the run waits on it until it is stopped.
    let asked!: () => void;
    modelAsked = new Promise((resolve) => (asked = resolve));
    server = createServer((req) => {
      req.resume();
      asked();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  /** The command in process, stopped (its Ctrl-C hook) as soon as the model has the question. */
  async function stoppedAtTheModel(extra: string[], stderrIsTerminal = false) {
    const seen = { out: "", err: "" };
    const io = terminalOutput({ out: (t: string) => (seen.out += t), err: (t: string) => (seen.err += t), env: {}, cwd: tmp, stderrIsTerminal }, [], { out: false, err: false });
    const stop = new AbortController();
    void modelAsked.then(() => stop.abort());
    const args = parseArgs(["research", QUESTION, "--vault", vault, "--cache-dir", path.join(tmp, "cache"), "--model", `openai:stand-in@${base}`, ...extra].slice(1), COMMANDS.research.flags);
    const listening = process.listenerCount("SIGINT");
    const code = await researchCommand(args, io, { stop: stop.signal });
    // Its own Ctrl-C listener goes with the run: a script or test that runs it again in one process gathers none.
    expect(process.listenerCount("SIGINT")).toBe(listening);
    return { code, ...seen };
  }

  it("prints what it found as JSON, exits 130, keeps its trace outside the vault, and logs no search", async () => {
    const run = await stoppedAtTheModel(["--json", "--trace"]);
    expect(run.code).toBe(130);
    const out = JSON.parse(run.out) as { stop_reason: string; pack: { evidence: unknown[] }; trace_path: string | null; trace_file: string };
    expect(out.stop_reason).toBe("cancelled");
    expect(out.pack.evidence.length).toBeGreaterThan(0);
    // Stop means stop: no note in the vault, even with --trace; the trace is kept where promote finds it.
    expect(out.trace_path).toBeNull();
    expect(existsSync(path.join(vault, "Research", "Traces"))).toBe(false);
    expect(readFileSync(out.trace_file, "utf8")).toContain("> [!warning] Stopped before it finished");
    const logs = readdirSync(path.join(tmp, "cache"), { recursive: true }).map(String).filter((f) => f.includes("query-log"));
    const lines = logs.flatMap((f) => readFileSync(path.join(tmp, "cache", f), "utf8").split("\n").filter(Boolean));
    expect(lines).toEqual([]);
  });

  it("says in text where it stopped and where the trace is", async () => {
    const run = await stoppedAtTheModel([]);
    expect(run.code).toBe(130);
    expect(run.out).toContain("The run was cancelled during the synthesize stage.");
    expect(run.out).toMatch(/\nTrace: kept outside the vault in .+\.md/);
  });

  it("says in its progress lines that the stage was stopped, not that it failed", async () => {
    const run = await stoppedAtTheModel([], true);
    expect(run.code).toBe(130);
    expect(run.err).toContain("■ The run was cancelled during the synthesize stage.\n");
    expect(run.err).not.toContain("✗");
  });
});

describe("web flags given while web search is off", () => {
  it("says that --external-provider does nothing without --external-search (the text read as Brave having found nothing)", async () => {
    const run = await research(["--external-provider", "brave", "--external-count", "3"]);
    expect(run.code).toBe(0);
    expect(run.out).toContain("Outside vault: 0 rows");
    expect(run.err).toContain("note: web search is off for this run (--external-search never, the default), so --external-provider, --external-count do nothing");
  });

  it("says nothing when no such flag was given, or with --quiet", async () => {
    expect((await research([])).err).toBe("");
    expect((await research(["--external-provider", "brave", "--quiet"])).err).toBe("");
  });
});

describe("a web source with no key set", () => {
  afterEach(() => vi.restoreAllMocks());

  // The hint read the sources the run had recorded as asked; a source refused for want of a key is
  // recorded as sent no more (it sent nothing), and the hint went with it. It reads the run's failures.
  it("sends nothing, says so in its JSON and trace, and still hints at the variable to set", async () => {
    const fetched = vi.spyOn(globalThis, "fetch").mockRejectedValue(new Error("no request should leave"));
    const run = await research(["--external-search", "always", "--external-provider", "brave", "--json"], "why automerge");
    expect(run.code).toBe(0);
    expect(fetched).not.toHaveBeenCalled();
    const out = JSON.parse(run.out) as { providers_asked: string[]; trace_file: string; pack: { coverage: { recall_note: string } } };
    expect(out.providers_asked).toEqual([]);
    expect(out.pack.coverage.recall_note).toContain("Web search failed: Brave has no API key set.");
    const trace = readFileSync(out.trace_file, "utf8");
    expect(trace).toContain('"queries_sent": []');
    expect(trace).not.toContain("external_provider_request");
    expect(run.err).toContain("hint: Set BRAVE_SEARCH_API_KEY for the CLI.\n");
  });
});
