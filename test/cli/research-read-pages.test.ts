// `--read-pages N` on the CLI: the text output says under each outside row what page reading made
// of it, `--json` carries `page_reads`, stderr streams a line per page, and `eval` takes the flag.
// In-process, over the sample vault, with the recorded page-reading search answer and pages.
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/run";
import { fakeClock } from "../support/fake-clock";
import { anyNumber } from "../support/typed-matchers";

const ROOT = path.resolve(__dirname, "../..");
const REPLAY = path.join(ROOT, "evals/research/replay/page-reading");
const QUESTION = "How long does Quillsync keep tombstones before compacting them?";

let tmp: string;
let vault: string;

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-read-pages-"));
  vault = path.join(tmp, "vault");
  cpSync(path.join(ROOT, "examples/vault"), vault, { recursive: true });
});

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function cli(...argv: string[]) {
  let out = "";
  let err = "";
  const [command, ...rest] = argv;
  // stderr stands in for a terminal, where progress lines are printed.
  const io = { out: (t: string) => (out += t), err: (t: string) => (err += t), env: { NO_COLOR: "1" }, cwd: ROOT, clock: fakeClock(), stderrIsTerminal: true };
  const code = await runCli([command, ...rest, "--vault", vault, "--cache-dir", path.join(tmp, "cache")], io);
  return { code, out, err };
}

const research = (...extra: string[]) => cli("research", QUESTION, "--external-search", "on-weak", "--external-provider", "brave-web", "--replay", REPLAY, "--no-trace", ...extra);

describe("research --read-pages", () => {
  it("reads three pages by default and says so under each row, with its passages and why a page was not read", async () => {
    const { code, out, err } = await research();
    expect(code).toBe(0);
    // Each passage shown opens with the sample mark its page carries (the replay's pages are ours).
    expect(out).toMatch(/page read · \d passages\n {7}§ Compaction \(\d+–\d+\): \(Sample page written for the Vault Research demo\.\) Every edit/);
    expect(out).toContain("§ Tombstones and deleted text");
    expect(out).toContain("page not read: The page has almost no text of its own (0 words)");
    expect(out).toContain("Quillsync keeps each tombstone for 14 days.");
    expect(err).toContain("… Reading 3 outside pages");
    expect(err).toContain("- Did not read community.quillsync.example:");
    expect(err).toMatch(/2 pages read, \d+ passages kept; 1 not read/);
  });

  it("--read-pages 0 reads none, and the snippets alone do not answer", async () => {
    const { code, out, err } = await research("--read-pages", "0");
    expect(code).toBe(0);
    expect(out).not.toContain("page read");
    expect(out).not.toContain("14 days");
    expect(err).toContain("- Page reading is off");
  });

  it("--json carries page_reads and the fetched passages in the pack", async () => {
    const { out } = await research("--json", "--read-pages", "1");
    const json = JSON.parse(out) as { page_reads: { status: string; passages_kept: number }[]; pack: { external_evidence: { content_sections: { fetched?: boolean; start?: number }[] }[] } };
    expect(json.page_reads).toHaveLength(1);
    expect(json.page_reads[0]).toMatchObject({ status: "read", passages_kept: anyNumber() });
    const fetched = json.pack.external_evidence.flatMap((r) => r.content_sections).filter((s) => s.fetched);
    expect(fetched.length).toBe(json.page_reads[0].passages_kept);
    expect(fetched.every((s) => typeof s.start === "number")).toBe(true);
  });

  it("refuses a count outside 0–5 as a usage error", async () => {
    const { code, err } = await research("--read-pages", "6");
    expect(code).toBe(2);
    expect(err).toContain("--read-pages must be between 0 and 5 (got 6)");
  });
});

describe("eval --read-pages", () => {
  const file = path.join(ROOT, "evals/research/page-reading.json");

  it("passes the page-reading cases with pages read, a cache hit on the follow-up, and fails them with 0", async () => {
    const read = await cli("eval", "--file", file);
    expect(read.code).toBe(0);
    expect(read.out).toMatch(/PASS follow-up-reads-the-cached-page — .* pages 0 read, 2 cached/);
    expect(read.out).toMatch(/Pages: 2 read, 2 from the page cache, 2 not read; \d+ passages kept/);
    const off = await cli("eval", "--file", file, "--read-pages", "0");
    expect(off.code).toBe(1);
    expect(off.out).toContain("Outside pages read per run: 0 (--read-pages).");
    expect(off.out).toContain('answer_includes: the answer does not say "tombstone for 14 days"');
  });

  it("reports page figures in --json", async () => {
    const { out } = await cli("eval", "--file", file, "--json");
    const report = JSON.parse(out) as { cases: { pages?: { read: number; cached: number; passages: number } }[] };
    expect(report.cases[0].pages).toMatchObject({ read: 2, cached: 0 });
    expect(report.cases[1].pages).toMatchObject({ read: 0, cached: 2 });
  });
});
