// A request the recordings miss names their folder as the notes do (replay-dir.ts's
// `replayFolderShown`: as typed when relative, by its last part when absolute), on every surface the
// miss reaches: the research text and JSON, the trace note, websearch's text and JSON, promote's text
// and JSON and the promoted note itself. The CLI resolves `--replay` against its working folder, and
// the miss once named the result: `/home/you/…` in a note that sync carries, and in everything printed.
// The notes themselves name the folder so too (`replayed_from`, `page_replayed_from` and their
// sentences): an absolute `--replay` (or `VAULT_RESEARCH_REPLAY=$HOME/…`, or `~/x` the shell expanded)
// once went into the trace note, the kept trace and every note promoted from them whole. What goes
// into the vault never holds an absolute path of this machine; the terminal and `--json` are the
// user's own screen, and keep the folder as it was given, as replay-notice.ts's line always has.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/run";
import { replayNoticeLine } from "../../src/cli/replay-notice";

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
/** The folder as typed, since it was typed relative: the notes name it so too. */
const MISS = "No recorded response in recordings/free-sources-demo for GET";

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
    expect(traces[0]).toContain("\nreplayed_from: recordings/free-sources-demo\n");
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

describe("an absolute replay folder is named by its last part in everything that goes into the vault", () => {
  let root: string;
  /** `/home/you/recordings/combined` on a made-up home: the search's answers and the pages behind them. */
  let combined: string;
  let vault: string;
  let cache: string;
  const LATEST = "What changed in the latest Automerge release?";
  /** The rows of that run whose page the recordings hold, and whose they do not. */
  const RELEASE_NOTES = "https://automerge.org/blog/automerge-3/";
  const HN = "https://news.ycombinator.com/item?id=40000001";
  const MISSED = "No recorded response in combined for GET";

  beforeAll(() => {
    root = mkdtempSync(path.join(os.tmpdir(), "vr-replay-absolute-"));
    combined = path.join(root, "home/you/recordings/combined");
    mkdirSync(combined, { recursive: true });
    for (const demo of ["brave-demo", "brave-demo-pages"]) cpSync(path.join(ROOT, "fixtures/replay", demo), combined, { recursive: true });
    vault = path.join(root, "vault");
    cpSync(path.join(ROOT, "examples/vault"), vault, { recursive: true });
    cache = path.join(root, "cache");
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  /** Run from the vault: of all the paths given, only the replay folder's is under the made-up home. */
  async function cliAt(argv: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
    let out = "";
    let err = "";
    const code = await runCli([...argv, "--cache-dir", cache], { out: (t) => (out += t), err: (t) => (err += t), env, cwd: vault });
    return { code, out, err };
  }
  const madeUpHome = () => path.join(root, "home");
  const notesIn = (folder: string) => readdirSync(path.join(vault, folder)).map((name) => readFileSync(path.join(vault, folder, name), "utf8"));

  it("in the trace note, its properties and its sentences; the terminal keeps the folder as given", async () => {
    const run = await cliAt(["research", LATEST, "--vault", vault, "--external-search", "always", "--external-provider", "brave", "--replay", combined, "--trace"]);
    expect(run.code).toBe(0);
    expect(run.out.split("\n")[0]).toBe(replayNoticeLine(combined));
    const [trace] = notesIn("Research/Traces");
    expect(trace).toContain("\nsample: true\nreplayed_from: combined\n");
    expect(trace).toContain("replayed from recordings in combined");
    expect(trace).not.toContain(madeUpHome());
  });

  it("in the kept trace, and in notes promoted from it, whose page text and misses name it alike", async () => {
    // VAULT_RESEARCH_REPLAY=$HOME/…: the same folder, given by the environment.
    const research = await cliAt(["research", LATEST, "--vault", vault, "--external-search", "always", "--external-provider", "brave", "--json"], { VAULT_RESEARCH_REPLAY: combined });
    expect(research.code).toBe(0);
    const { pack, trace_file, replay } = JSON.parse(research.out) as { pack: { external_evidence: { source_key: string; url: string }[] }; trace_file: string; replay: { dir: string } };
    expect(replay.dir).toBe(combined); // the user's own screen
    const kept = readFileSync(trace_file, "utf8");
    expect(kept).toContain("\nreplayed_from: combined\n");
    expect(kept).not.toContain(madeUpHome());

    const keyOf = (url: string) => pack.external_evidence.find((row) => row.url === url)!.source_key;
    for (const url of [RELEASE_NOTES, HN]) {
      const promoted = await cliAt(["promote", "--vault", vault, "--trace", trace_file, "--source-key", keyOf(url), "--replay", combined, "--json"]);
      expect(promoted.code).toBe(0);
    }
    const sources = notesIn("Research/Sources");
    expect(sources).toHaveLength(2);
    // Found by their `source`, which the note writes canonical (no trailing slash).
    const bySource = (url: string) => sources.find((note) => note.includes(`\nsource: ${url.replace(/\/$/, "")}\n`))!;
    const [page, excerpt] = [bySource(RELEASE_NOTES), bySource(HN)];
    expect(page).toContain("\nsample: true\nreplayed_from: combined\npage_replayed_from: combined\n");
    expect(page).toContain("read from recordings in combined");
    expect(excerpt).toContain(`${MISSED} https://news.ycombinator.com/item `); // origin and path: what replay matches
    for (const note of sources) expect(note).not.toContain(madeUpHome());
  });
});
