// `vault-research research` in process, for what the child-process tests (research-cli.test.ts)
// would be slow to set up: a trace note that cannot be written, and what the run keeps then.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/run";

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
