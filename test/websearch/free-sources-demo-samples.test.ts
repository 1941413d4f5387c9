// The free-sources demo's answers (fixtures/replay/free-sources-demo) are sample responses we wrote
// in each service's real format. Every text of theirs a reader sees opens with its sample mark, as
// the Brave demo's do: websearch cuts a long excerpt to one line, so a mark at the end was lost with
// it, and a text with no mark at all was quoted by the demo's brief as if it were a live finding.
// Each check goes through the real parsers (Wikipedia's and Stack Exchange's HTML stripped, Hacker
// News' story text read by blocks), so a mark the parsing drops fails here too.
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/run";
import { replayNoticeLine } from "../../src/cli/replay-notice";
import { websearchCommand, type WebsearchOptions } from "../../src/cli/websearch-command";
import { readWebsearch } from "../support/cli-json";
import { fakeClock, repoRoot } from "./helpers";
import { fixtureSettings } from "./providers/source-harness";

const FREE_DEMO = path.join(repoRoot, "fixtures/replay/free-sources-demo");
const DEMO_QUESTION = "What are sequence CRDTs, which papers and libraries implement them, and what do developers think of them?";
const FREE_SOURCES = ["wikipedia", "hackernews", "arxiv", "github", "stackexchange"] as const;
/** The mark a sample text opens with; its middle word names what it marks (excerpt, description, post…). */
const OPENING_MARK = /^\(Sample [a-z]+ written for the Vault Research demo\.\)/;
const ANY_MARK = /\(Sample [a-z]+ written for the Vault Research demo\.\)/;

function capture() {
  const io = { stdout: "", stderr: "", out: (s: string) => void (io.stdout += s), err: (s: string) => void (io.stderr += s), env: {}, clock: fakeClock() };
  return io;
}

const options = (json: boolean): WebsearchOptions => ({
  query: DEMO_QUESTION,
  providers: [...FREE_SOURCES],
  freshness: "any",
  count: 5,
  settings: fixtureSettings(),
  json,
  replayDir: FREE_DEMO,
});

describe("the free-sources demo's sample texts", () => {
  it("every result carries text, and every text opens with the sample mark", async () => {
    const io = capture();
    expect(await websearchCommand(options(true), io)).toBe(0);
    const { results } = readWebsearch(io.stdout);
    expect(results.map((r) => r.provider).sort()).toEqual(["arxiv", "arxiv", "github", "github", "hackernews", "hackernews", "hackernews", "stackexchange", "wikipedia", "wikipedia", "wikipedia"]);
    // A row with no text (a Hacker News link) showed made-up points under a real title, unmarked.
    // GitHub's topics are tags the parser lists ("Topics: crdt, collaboration"), not text of ours; a
    // topic cannot hold a mark in GitHub's format, and its row's description carries one.
    const texts = (r: (typeof results)[number]) => r.content_sections.filter((s) => !(r.provider === "github" && s.text.startsWith("Topics: ")));
    const unmarked = results.flatMap((r) =>
      texts(r).length === 0 ? [`${r.title}: no text`] : texts(r).filter((s) => !OPENING_MARK.test(s.text)).map((s) => `${r.title} (${s.role}): ${s.text}`),
    );
    expect(unmarked).toEqual([]);
  });

  it("websearch says the answers are recorded samples, and its one-line excerpt of every result still shows the mark", async () => {
    const io = capture();
    expect(await websearchCommand(options(false), io)).toBe(0);
    // A result block: "N. title", its URL, its label line, then the excerpt.
    expect(io.stdout.split("\n")[0]).toBe(replayNoticeLine(FREE_DEMO));
    const blocks = io.stdout.split("\n\n").filter((b) => /^\d+\. /.test(b));
    expect(blocks).toHaveLength(11);
    const unmarked = blocks.filter((b) => !OPENING_MARK.test((b.split("\n")[3] ?? "").trim()));
    expect(unmarked).toEqual([]);
  });
});

describe("the demo's second question, answered from the free-sources samples", () => {
  let tmp: string;
  let vault: string;

  beforeAll(() => {
    tmp = mkdtempSync(path.join(os.tmpdir(), "vr-free-samples-"));
    vault = path.join(tmp, "vault");
    cpSync(path.join(repoRoot, "examples/vault"), vault, { recursive: true });
  });

  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it("quotes no outside sentence without its sample mark", async () => {
    let out = "";
    const io = { out: (t: string) => void (out += t), err: () => undefined, env: { NO_COLOR: "1" }, cwd: repoRoot, clock: fakeClock() };
    const flags = FREE_SOURCES.flatMap((p) => ["--external-provider", p]);
    const code = await runCli(["research", DEMO_QUESTION, "--vault", vault, "--cache-dir", path.join(tmp, "cache"), "--no-trace", "--external-search", "on-weak", ...flags, "--replay", FREE_DEMO], io);
    expect(code).toBe(0);
    const lines = out.split("\n");
    // The research command says of a replay what websearch says, word for word.
    expect(lines[0]).toBe(replayNoticeLine(FREE_DEMO));
    const start = lines.indexOf("Outside vault (web results for this run, not your notes):");
    expect(start).toBeGreaterThan(0);
    const end = lines.indexOf("", start);
    const quotes = lines.slice(start + 1, end);
    expect(quotes.length).toBeGreaterThanOrEqual(3);
    expect(quotes.filter((q) => !ANY_MARK.test(q))).toEqual([]);
  });
});
