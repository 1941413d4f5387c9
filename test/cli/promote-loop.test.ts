// The whole loop through the built command, as a user would run it in a shell: research with the
// web allowed → promote one outside-vault result from the trace note → research again. The page
// has become vault evidence: a `src:` row under Research/Sources/, no longer an outside row, and
// the trace note says `· promoted`. Web answers and pages come from recorded exchanges.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outsideVaultLabel } from "../../src/evidence/labels";
import { canonicalizeUrl } from "../../src/websearch/canonical-url";
import { ensureBuiltCli, newestMtime } from "../support/built-cli";
import { readPromoteResult } from "../support/cli-json";

const ROOT = path.resolve(__dirname, "../..");
const CLI = path.join(ROOT, "dist/cli.cjs");
const SAMPLE_VAULT = path.join(ROOT, "examples/vault");
const BRAVE_DEMO = path.join(ROOT, "fixtures/replay/brave-demo");
const DEMO_PAGES = path.join(ROOT, "fixtures/replay/brave-demo-pages");
const QUESTION = "What changed in the latest Automerge release?";
const PAGE_URL = "https://automerge.org/blog/automerge-3/";

let tmp: string;
let vault: string;

beforeAll(() => {
  ensureBuiltCli();
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-loop-"));
  vault = path.join(tmp, "vault");
  cpSync(SAMPLE_VAULT, vault, { recursive: true });
}, 120_000);

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function run(args: string[], log?: string) {
  const env: Record<string, string | undefined> = { ...process.env, VAULT_RESEARCH_CACHE_DIR: path.join(tmp, "cache") };
  delete env.BRAVE_SEARCH_API_KEY;
  delete env.VAULT_RESEARCH_REPLAY;
  if (log) env.VAULT_RESEARCH_REPLAY_LOG = log;
  else delete env.VAULT_RESEARCH_REPLAY_LOG;
  const result = spawnSync(process.execPath, [CLI, ...args], { cwd: tmp, env, encoding: "utf8", timeout: 60_000 });
  expect(result.status, `${args[0]} failed: ${result.stderr}`).toBe(0);
  return result;
}

interface ResearchJson {
  pack: {
    evidence: { source_key: string; note_path: string; also_found_by?: string[] }[];
    external_evidence: { source_key: string; url: string; retrieval: { lanes: { store?: string }[] } }[];
  };
  trace_path?: string | null;
}

function research(): ResearchJson {
  const out = run(["research", QUESTION, "--vault", vault, "--external-search", "on-weak", "--replay", BRAVE_DEMO, "--trace", "--json"]);
  return JSON.parse(out.stdout) as ResearchJson;
}

const sameUrl = (a: string, b: string) => canonicalizeUrl(a) === canonicalizeUrl(b);

describe("research → promote → research, through the built command", () => {
  it("turns an outside-vault result into vault evidence that the next run finds as a note", () => {
    const first = research();
    expect(first.trace_path, "the first run should write a trace note").toBeTruthy();
    const tracePath = first.trace_path!;
    const outside = first.pack.external_evidence.find((r) => sameUrl(r.url, PAGE_URL));
    expect(outside, `the first run should have ${PAGE_URL} as an outside row`).toBeDefined();
    expect(first.pack.evidence.some((r) => r.note_path.startsWith("Research/Sources/"))).toBe(false);

    const log = path.join(tmp, "promote-requests.jsonl");
    const promoted = run(["promote", "--vault", vault, "--trace", tracePath, "--source-key", outside!.source_key, "--replay", DEMO_PAGES, "--json"], log);
    const result = readPromoteResult(promoted.stdout);
    expect(result).toMatchObject({ status: "created", extract_status: "extracted", trace_updated: true });
    expect(result.note_path).toMatch(/^Research\/Sources\/.+\.md$/);
    expect(existsSync(path.join(vault, result.note_path!))).toBe(true);
    // Promotion fetched the page and nothing else.
    const requested = readFileSync(log, "utf8").trim().split("\n").map((line) => (JSON.parse(line) as { url: string }).url);
    expect(requested.map((u) => new URL(u).origin)).toEqual(["https://automerge.org"]);

    const traceNote = readFileSync(path.join(vault, tracePath), "utf8");
    const labelLine = traceNote.split("\n").find((line) => line.includes(`\`${outside!.source_key}\``));
    expect(labelLine).toContain(outsideVaultLabel("brave", "promoted"));
    expect(labelLine).toContain(`[[${result.note_path!.replace(/\.md$/, "")}|`);

    const second = research();
    const asNote = second.pack.evidence.find((r) => r.note_path === result.note_path);
    expect(asNote, `the second run should have ${result.note_path} as vault evidence`).toBeDefined();
    expect(asNote!.source_key).toMatch(/^src:[0-9a-f]{10}$/);
    expect(second.pack.external_evidence.filter((r) => sameUrl(r.url, PAGE_URL))).toEqual([]);
    // The other web results are still outside rows, still ephemeral.
    expect(second.pack.external_evidence.length).toBeGreaterThan(0);
    for (const row of second.pack.external_evidence) expect(row.retrieval.lanes[0]?.store).toBe("ephemeral");
  });
});

describe("research without --trace → promote from the kept trace", () => {
  it("promotes a row of the trace kept in the cache folder, by file or by run id, and records it there", () => {
    const kept = path.join(tmp, "kept-vault");
    cpSync(SAMPLE_VAULT, kept, { recursive: true });
    const first = JSON.parse(run(["research", QUESTION, "--vault", kept, "--external-search", "on-weak", "--replay", BRAVE_DEMO, "--json"]).stdout) as ResearchJson & { trace_file: string | null };
    expect(first.trace_path).toBeNull();
    expect(first.trace_file).toBeTruthy();
    const outside = first.pack.external_evidence.find((r) => sameUrl(r.url, PAGE_URL))!;

    const runId = path.basename(first.trace_file!, ".md");
    const promoted = readPromoteResult(run(["promote", "--vault", kept, "--trace", runId, "--source-key", outside.source_key, "--replay", DEMO_PAGES, "--json"]).stdout);
    expect(promoted).toMatchObject({ schema: "promote_result.v1", status: "created", trace_source: "kept_trace", trace: first.trace_file, trace_updated: true });
    expect(existsSync(path.join(kept, promoted.note_path!))).toBe(true);
    expect(readFileSync(first.trace_file!, "utf8")).toContain(outsideVaultLabel("brave", "promoted"));

    const again = readPromoteResult(run(["promote", "--vault", kept, "--trace", first.trace_file!, "--source-key", outside.source_key, "--replay", DEMO_PAGES, "--json"]).stdout);
    expect(again).toMatchObject({ status: "already_in_vault", note_path: promoted.note_path });
  });
});
