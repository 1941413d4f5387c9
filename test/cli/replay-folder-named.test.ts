// A request the recordings miss names their folder by its last part, on every surface the miss
// reaches: the research text and JSON, the trace note, websearch's text and JSON, promote's text and
// JSON and the promoted note itself. The CLI resolves `--replay` against its working folder, and the
// miss once named the result: `/home/you/…` in a note that sync carries, and in everything printed.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/run";

const ROOT = path.resolve(__dirname, "../..");
const QUESTION = "What are sequence CRDTs?";
/** A Hacker News story whose page the free sources' recordings do not hold. */
const ASK_HN = "https://news.ycombinator.com/item?id=90000302";

let home: string;
let work: string;
/** Where the user runs the CLI: the recordings are `recordings/free-sources-demo` under it. */
let cwd: string;
let vault: string;

beforeAll(() => {
  home = mkdtempSync(path.join(os.tmpdir(), "vr-replay-home-"));
  cwd = path.join(home, "you");
  mkdirSync(path.join(cwd, "recordings"), { recursive: true });
  cpSync(path.join(ROOT, "fixtures/replay/free-sources-demo"), path.join(cwd, "recordings/free-sources-demo"), { recursive: true });
  // The vault and cache elsewhere: only the replay folder's path is under `home`.
  work = mkdtempSync(path.join(os.tmpdir(), "vr-replay-vault-"));
  vault = path.join(work, "vault");
  cpSync(path.join(ROOT, "examples/vault"), vault, { recursive: true });
});
afterAll(() => {
  rmSync(home, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

/** `websearch` keeps nothing, so it takes no cache folder. */
async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const cache = argv[0] === "websearch" ? [] : ["--cache-dir", path.join(work, "cache")];
  const code = await runCli([...argv, "--replay", "recordings/free-sources-demo", ...cache], {
    out: (t) => (out += t),
    err: (t) => (err += t),
    env: {},
    cwd,
  });
  return { code, out, err };
}

const notesUnder = (folder: string) => readdirSync(path.join(vault, folder)).map((name) => readFileSync(path.join(vault, folder, name), "utf8"));
const MISS = "No recorded response in free-sources-demo for GET";

describe("a replay miss names the folder, never where it is on this machine", () => {
  it("in research's text and JSON, and in the trace note", async () => {
    const research = ["research", QUESTION, "--vault", vault, "--external-search", "always", "--external-provider", "brave", "--external-provider", "hackernews"];
    const text = await cli(...research, "--trace");
    const json = await cli(...research, "--json");
    for (const output of [text, json]) {
      expect(output.code).toBe(0);
      expect(output.out).toContain(`${MISS} https://api.search.brave.com/`);
      expect(output.out + output.err).not.toContain(home);
    }
    const traces = notesUnder("Research/Traces");
    expect(traces).toHaveLength(1);
    expect(traces[0]).toContain(MISS);
    expect(traces[0]).not.toContain(home);
  });

  it("in websearch's text and JSON", async () => {
    for (const json of [[], ["--json"]]) {
      const output = await cli("websearch", QUESTION, "--external-provider", "brave", ...json);
      expect(output.code).toBe(1); // no source answered
      expect(output.out).toContain(`${MISS} https://api.search.brave.com/`);
      expect(output.out + output.err).not.toContain(home);
    }
  });

  it("in promote's text and JSON, and in the note it saved", async () => {
    const research = await cli("research", QUESTION, "--vault", vault, "--external-search", "always", "--external-provider", "hackernews", "--json");
    // No --trace: the run's trace is kept in the cache folder, and promote reads it from there.
    const { pack, trace_file } = JSON.parse(research.out) as { pack: { external_evidence: { source_key: string; url: string }[] }; trace_file: string };
    expect(readFileSync(trace_file, "utf8")).not.toContain(home);
    const stories = pack.external_evidence.filter((row) => row.url !== ASK_HN);
    const askHn = pack.external_evidence.find((row) => row.url === ASK_HN)!;
    const promote = (key: string, ...json: string[]) => cli("promote", "--vault", vault, "--trace", trace_file, "--source-key", key, ...json);
    const text = await promote(askHn.source_key);
    const json = await promote(stories[0].source_key, "--json");
    for (const output of [text, json]) {
      expect(output.err).toBe("");
      expect(output.code).toBe(0);
      expect(output.out).toContain(MISS);
      expect(output.out + output.err).not.toContain(home);
    }
    const sources = notesUnder("Research/Sources");
    expect(sources).toHaveLength(2);
    for (const note of sources) {
      expect(note).toContain(MISS);
      expect(note).not.toContain(home);
    }
  });
});
