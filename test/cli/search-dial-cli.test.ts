// The search dial through the CLI, in-process (runCli) against the stand-in embedding server on
// 127.0.0.1: `embed` builds the vectors incrementally in the cache folder, `search --level 2|3|4`
// fuses them with the words (RRF) and says which level ran, level 1 makes no request at all, a
// model change or a damaged vector file throws the vectors away with a clear message, and every
// search goes to the query log beside the index cache — never into the vault.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parseArgs } from "../../src/cli/args";
import { runCli, COMMANDS, type CliIo } from "../../src/cli/run";
import { searchCommand } from "../../src/cli/search-command";
import { terminalOutput } from "../../src/cli/terminal-text";
import type { Http } from "../../src/ports";
import { FINGERPRINT_TEXT } from "../../src/index/embeddings/vector-store";
import type { QueryLogSearch } from "../../src/index/query-log/query-log";
import { readEmbedReport, readIndexReport, readLevelComparison, readResearchResult, readVaultSearch } from "../support/cli-json";
import { startStandInServer, type StandInServer } from "../llm/embeddings/stand-in-embedding-server";

let server: StandInServer;
let tmp: string;
let vault: string;
let cache: string;

beforeAll(async () => {
  server = await startStandInServer({ dimensions: 64 });
});
afterAll(() => server.close());

beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-dial-cli-"));
  vault = path.join(tmp, "vault");
  cache = path.join(tmp, "cache");
  mkdirSync(vault);
  note("Car repair.md", "# Car repair\n\nReplacing the brake pads on a car takes an afternoon.\n\n## Engine\n\nThe engine oil goes every 10,000 km.\n");
  note("Dogs.md", "# Dogs\n\nA puppy needs a walk twice a day.\n");
  note("Cats.md", "# Cats\n\nA kitten sleeps most of the day.\n");
  note("Gardening.md", "# Gardening\n\nTomatoes want sun and water; the repair of the fence waits.\n");
  server.embedCalls.length = 0;
  server.chatCalls.length = 0;
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

function note(name: string, text: string): void {
  writeFileSync(path.join(vault, name), text);
}

interface Run {
  code: number;
  out: string;
  err: string;
}

async function cli(...argv: string[]): Promise<Run> {
  let out = "";
  let err = "";
  const io: CliIo = { out: (t) => (out += t), err: (t) => (err += t), env: {}, cwd: tmp };
  const code = await runCli([...argv, "--vault", vault, "--cache-dir", cache], io);
  return { code, out, err };
}

/** The query log's lines; every one these tests make is a search. */
const logLines = (text: string) => text.trim().split("\n").map((l) => JSON.parse(l) as QueryLogSearch);

const embedSpec = () => `ollama:nomic-embed-text@${server.base}`;

function vaultCacheFolder(): string {
  const folder = readdirSync(cache).find((f) => f.startsWith("index-") && !f.endsWith(".json"));
  if (!folder) throw new Error("no cache folder");
  return path.join(cache, folder);
}

describe("vault-research embed", () => {
  it("says what leaves the device before the first call, embeds every note, then only what changed", async () => {
    const first = await cli("embed", "--embed", embedSpec(), "--json");
    expect(first.code, first.err).toBe(0);
    expect(first.err).toContain(`Embedding sends the text of every note`);
    expect(first.err).toContain("That address is this computer.");
    const report = readEmbedReport(first.out);
    expect(report).toMatchObject({ schema: "embed_report.v1", model: "ollama:nomic-embed-text", dimensions: 64, state: "done", notes_in_vault: 4, notes_embedded: 4, notes_unchanged: 0 });
    expect(report.vector_file.startsWith(cache)).toBe(true);
    expect(existsSync(report.vector_file)).toBe(true);
    expect(readdirSync(vault).sort()).toEqual(["Car repair.md", "Cats.md", "Dogs.md", "Gardening.md"]);

    const sent = server.embeddedTexts().length;
    const second = await cli("embed", "--embed", embedSpec());
    expect(second.code).toBe(0);
    expect(second.out).toContain("Embedded 0 notes; 4 already up to date.");
    // Only the model's fingerprint is asked for, to be sure the vectors are still its own.
    expect(server.embeddedTexts().slice(sent)).toEqual([FINGERPRINT_TEXT]);

    note("Dogs.md", "# Dogs\n\nA puppy needs a walk twice a day, and a bath once a month.\n");
    const later = new Date(Date.now() + 5_000);
    utimesSync(path.join(vault, "Dogs.md"), later, later);
    const third = readEmbedReport((await cli("embed", "--embed", embedSpec(), "--json")).out);
    expect(third).toMatchObject({ notes_embedded: 1, notes_unchanged: 3 });
    expect(server.embeddedTexts().filter((t) => t.includes("bath")).length).toBeGreaterThan(0);
  });

  it("throws the vectors away with a clear message when the model changes", async () => {
    await cli("embed", "--embed", embedSpec());
    const other = await cli("embed", "--embed", `ollama:all-minilm@${server.base}`, "--json");
    expect(other.code).toBe(0);
    expect(other.err).toContain("The stored vectors were made by ollama:nomic-embed-text; the embedding model is now ollama:all-minilm, so all 4 embedded notes will be embedded again.");
    expect(readEmbedReport(other.out)).toMatchObject({ model: "ollama:all-minilm", notes_embedded: 4, resets: [{ kind: "model_changed" }] });
  });

  it("the vectors and the query log outlive an index rebuild in the same folder", async () => {
    await cli("embed", "--embed", embedSpec());
    await cli("search", "repair");
    writeFileSync(path.join(tmp, "config.json"), JSON.stringify({ index: { stemming: false } }));
    const rebuilt = readIndexReport((await cli("index", "--config", "config.json", "--json")).out);
    expect(rebuilt.sync.mode).toBe("rebuild");
    expect(readdirSync(vaultCacheFolder())).toEqual(expect.arrayContaining(["vectors.bin", "query-log.jsonl"]));
    expect((await cli("embed", "--embed", embedSpec())).out).toContain("Embedded 0 notes; 4 already up to date.");
  });

  it("a damaged vector file is an empty store and a reason, never a crash", async () => {
    await cli("embed", "--embed", embedSpec());
    writeFileSync(path.join(vaultCacheFolder(), "vectors.bin"), "not vectors at all");
    const search = await cli("search", "automobile", "--level", "2", "--embed", embedSpec());
    expect(search.code).toBe(0);
    expect(search.out).toContain("The stored vectors were damaged (not a vector file)");
    expect(search.out).toContain("Searched at level 1 (lexical); level 2 (hybrid) was asked.");
    const json = readVaultSearch((await cli("search", "automobile", "--level", "2", "--embed", embedSpec(), "--json")).out);
    expect(json.notices[0].kind).toBe("vectors_reset");
    expect(json.notices[0].message).toContain("damaged");
    const again = await cli("embed", "--embed", embedSpec(), "--json");
    expect(again.err).toContain("The stored vectors were damaged (not a vector file); every note will be embedded again.");
    expect(readEmbedReport(again.out)).toMatchObject({ notes_embedded: 4 });
  });

  // Search told the user to embed ("Run vault-research embed.", "Embed the vault first."), and embed
  // then refused to send anything over vectors it could not read; compare said only "no vectors yet".
  it("vectors that cannot be read: search and compare say so, and do not send the user to embed, which refuses", async () => {
    await cli("embed", "--embed", embedSpec());
    const root = path.join(vaultCacheFolder(), "vectors.bin");
    rmSync(root);
    mkdirSync(root);
    const search = await cli("search", "automobile", "--level", "2", "--embed", embedSpec());
    expect(search.out).toContain("Searched at level 1 (lexical); level 2 (hybrid) was asked.");
    expect(search.out).toContain("The stored vectors could not be read (");
    expect(search.out).not.toMatch(/Run vault-research embed|Embed the vault first/);
    const json = readVaultSearch((await cli("search", "automobile", "--level", "2", "--embed", embedSpec(), "--json")).out);
    expect(json.notices.map((n) => n.kind)).toEqual(["vectors_reset"]);
    const compare = await cli("compare", "automobile", "--embed", embedSpec());
    expect(compare.out).toContain("L2 hybrid: did not run; level 1 (lexical) ran instead");
    expect(compare.out).toContain("The stored vectors could not be read (");
    expect(compare.out).not.toMatch(/Run vault-research embed|Embed the vault first|no vectors from this embedding model/);
    const compared = readLevelComparison((await cli("compare", "automobile", "--embed", embedSpec(), "--json")).out);
    expect(compared.levels.map((l) => l.notices.map((n) => n.kind))).toEqual([[], ["vectors_reset"], ["vectors_reset"], ["vectors_reset"]]);
    expect((await cli("embed", "--embed", embedSpec())).err).toContain("Nothing was sent");
  });

  it("compare says what loading the vectors found, as search does: damaged vectors are not 'none yet'", async () => {
    await cli("embed", "--embed", embedSpec());
    writeFileSync(path.join(vaultCacheFolder(), "vectors.bin"), "not vectors at all");
    const compare = await cli("compare", "automobile", "--embed", embedSpec());
    expect(compare.out).toContain("The stored vectors were damaged (not a vector file); every note will be embedded again. Run vault-research embed.");
    const compared = readLevelComparison((await cli("compare", "automobile", "--embed", embedSpec(), "--json")).out);
    expect(compared.levels[1].notices[0]).toEqual({ kind: "vectors_reset", message: expect.stringContaining("damaged") as string });
  });

  it("a server that fails is a failed run with its words, exit 1", async () => {
    server.script.embedFailure = { status: 404, body: { error: 'model "nomic-embed-text" not found, try pulling it first' } };
    try {
      const run = await cli("embed", "--embed", embedSpec(), "--json");
      expect(run.code).toBe(1);
      expect(readEmbedReport(run.out)).toMatchObject({ state: "failed", error: { kind: "model_missing" } });
    } finally {
      delete server.script.embedFailure;
    }
  });

  it("refuses --embed none and a malformed spec as usage errors", async () => {
    expect((await cli("embed")).err).toContain("embed needs an embedding model");
    const bad = await cli("embed", "--embed", "word2vec:x");
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('Unknown embedding kind "word2vec"');
  });
});

describe("search through the dial", () => {
  it("level 2 finds a paraphrase by its vector, fused with the words in RRF order, and says so", async () => {
    await cli("embed", "--embed", embedSpec());
    const run = await cli("search", "fixing an automobile", "--level", "2", "--embed", embedSpec(), "--json");
    expect(run.code, run.err).toBe(0);
    const json = readVaultSearch(run.out);
    expect(json).toMatchObject({ schema: "vault_search.v1", level: 2, ran_level: 2, notices: [] });
    expect(json.results[0].path).toBe("Car repair.md");
    // RRF: each score is the sum of its lanes' 1 / (60 + rank), and the results are in that order.
    for (const r of json.results) {
      const sum = r.dial!.lanes.reduce((s, l) => s + l.contribution, 0);
      expect(r.score).toBeCloseTo(sum, 10);
      for (const l of r.dial!.lanes) expect(l.contribution).toBeCloseTo(1 / (60 + l.rank), 10);
    }
    const scores = json.results.map((r: { score: number }) => r.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(json.results[0].dial!.lanes.map((l) => l.lane)).toContain("note_vector");

    const text = await cli("search", "fixing an automobile", "--level", "2", "--embed", embedSpec());
    expect(text.out).toMatch(/^1\. Car repair — Car repair\.md \(fused score 0\.\d{4}\)/m);
    expect(text.out).toContain("note vector #1");
  });

  it("level 3 names the section that matched", async () => {
    await cli("embed", "--embed", embedSpec());
    const json = readVaultSearch((await cli("search", "when does the engine oil go", "--level", "3", "--embed", embedSpec(), "--json")).out);
    expect(json.ran_level).toBe(3);
    const car = json.results.find((r) => r.path === "Car repair.md")!;
    expect(car.dial!.section, JSON.stringify(car.dial!.section)).toMatchObject({ from: "section_vector", unit: "section", heading_path: ["Car repair", "Engine"] });
    expect(car.dial!.section!.snippet).toContain("engine oil");
  });

  it("level 4 reorders level 3's top results with the chat model, and says which model moved what", async () => {
    await cli("embed", "--embed", embedSpec());
    const json = readVaultSearch((await cli("search", "repair", "--level", "4", "--embed", embedSpec(), "--model", `openai:stand-in@${server.base}/v1`, "--json")).out);
    expect(server.chatCalls.length).toBe(1);
    expect(json.ran_level).toBe(4);
    expect(json.results[0].dial!.rerank).toMatchObject({ after: 1 });
    expect(json.results[0].dial!.rerank!.model).toContain("stand-in");
  });

  it("level 4 without a chat model runs level 3 and says why", async () => {
    await cli("embed", "--embed", embedSpec());
    const run = await cli("search", "repair", "--level", "4", "--embed", embedSpec());
    expect(run.out).toContain("Searched at level 3 (multi-field); level 4 (rerank) was asked.");
    expect(run.out).toContain("No chat model is set");
  });

  // The plugin's data.json as --config: the dial remembered at level 4, the research model Anthropic's,
  // its key in Obsidian's secret storage. Every search and compare stopped with a usage error.
  it("a config whose chat model cannot be made (no key) leaves search and compare at level 3, saying why; --model given stays an error", async () => {
    await cli("embed", "--embed", embedSpec());
    const config = path.join(tmp, "config.json");
    writeFileSync(config, JSON.stringify({ model: { kind: "anthropic", model: "claude-sonnet-4-5" }, search: { searchLevel: 4, embedding: { kind: "ollama", model: "nomic-embed-text", baseUrl: server.base } } }));
    const search = await cli("search", "repair", "--config", config);
    expect(search.code, search.err).toBe(0);
    expect(search.out).toContain("Searched at level 3 (multi-field); level 4 (rerank) was asked.");
    expect(search.out).toContain("Anthropic models need an API key, and none is set. Set ANTHROPIC_API_KEY");
    expect(search.out).not.toContain("No chat model is set");
    const json = readVaultSearch((await cli("search", "repair", "--config", config, "--json")).out);
    expect(json).toMatchObject({ level: 4, ran_level: 3, notices: [{ kind: "level_unavailable", message: expect.stringContaining("ANTHROPIC_API_KEY") as string }] });
    const compare = readLevelComparison((await cli("compare", "repair", "--config", config, "--json")).out);
    expect(compare.levels.map((l) => l.ran_level)).toEqual([1, 2, 3, 3]);
    expect(compare.levels[3].notices[0].message).toContain("ANTHROPIC_API_KEY");
    expect(server.chatCalls).toHaveLength(0);
    const asked = await cli("search", "repair", "--config", config, "--model", "anthropic:claude-sonnet-4-5");
    expect(asked.code).toBe(2);
    expect(asked.err).toContain("Set ANTHROPIC_API_KEY.");
  });

  it("level 2 before the vault was embedded runs level 1 and says to embed first", async () => {
    const json = readVaultSearch((await cli("search", "repair", "--level", "2", "--embed", embedSpec(), "--json")).out);
    expect(json).toMatchObject({ level: 2, ran_level: 1, notices: [{ kind: "level_unavailable" }] });
    expect(json.notices[0].message).toContain("Embed the vault first");
  });

  it("level 1 makes no request at all, even with an embedding model and a chat model named", async () => {
    await cli("embed", "--embed", embedSpec());
    const calls = server.embedCalls.length;
    const run = await cli("search", "repair", "--level", "1", "--embed", embedSpec(), "--model", `openai:stand-in@${server.base}/v1`);
    expect(run.code).toBe(0);
    expect(server.embedCalls.length).toBe(calls);
    expect(server.chatCalls.length).toBe(0);

    // And in-process with an Http that records every request: none.
    const requests: string[] = [];
    const recording: Http = { request: async (req) => (requests.push(req.url), { status: 500, headers: {}, text: "" }) };
    const io = terminalOutput({ out: () => undefined, err: () => undefined, env: {}, cwd: tmp }, [], { out: false, err: false });
    const args = parseArgs(["repair", "--level", "1", "--embed", embedSpec(), "--vault", vault, "--cache-dir", cache], COMMANDS.search.flags);
    expect(await searchCommand(args, io, recording)).toBe(0);
    expect(requests).toEqual([]);
  });

  it("refuses a bad --level with words that say what each level needs", async () => {
    const run = await cli("search", "repair", "--level", "5");
    expect(run.code).toBe(2);
    expect(run.err).toContain('--level must be 1, 2, 3 or 4 (got "5")');
  });

  it("logs every search in the cache folder, never in the vault; the config's search.queryLog: false turns it off", async () => {
    await cli("search", "repair", "--level", "3");
    await cli("search", "kitten");
    const lines = logLines(readFileSync(path.join(vaultCacheFolder(), "query-log.jsonl"), "utf8"));
    expect(lines.map((l) => [l.query, l.level, l.ran_level, l.surface])).toEqual([
      ["repair", 3, 1, "cli"],
      ["kitten", 1, 1, "cli"],
    ]);
    expect(lines[0].results).toContain("Car repair.md");
    expect(readdirSync(vault).filter((f) => !f.endsWith(".md"))).toEqual([]);

    writeFileSync(path.join(tmp, "config.json"), JSON.stringify({ search: { queryLog: false } }));
    await cli("search", "dogs", "--config", "config.json");
    expect(readFileSync(path.join(vaultCacheFolder(), "query-log.jsonl"), "utf8")).not.toContain("dogs");
  });
});

describe("research through the dial", () => {
  it("--level 3 brings the vector lanes into the pack, says which level ran, and logs the question", async () => {
    await cli("embed", "--embed", embedSpec());
    const run = await cli("research", "repair automobile", "--level", "3", "--embed", embedSpec(), "--retrieval-only", "--json", "--no-trace");
    expect(run.code, run.err).toBe(0);
    const json = readResearchResult(run.out);
    expect(json.pack.coverage.recall_note).toMatch(/at level 3 \(multi-field\)/);
    expect(json.search_level).toEqual({ level: 3, ran_level: 3, notices: [] });
    const car = json.pack.evidence.find((r) => r.note_path === "Car repair.md")!;
    expect(car.retrieval.lanes.map((l) => l.name)).toContain("section_vector");
    const log = logLines(readFileSync(path.join(vaultCacheFolder(), "query-log.jsonl"), "utf8"));
    expect(log.at(-1)).toMatchObject({ surface: "research", query: "repair automobile", level: 3, ran_level: 3 });
    expect(log.at(-1)!.results).toContain("Car repair.md");
    const text = await cli("research", "repair automobile", "--level", "4", "--embed", embedSpec(), "--retrieval-only", "--no-trace");
    expect(text.out).toContain("Vault searched at level 3 (multi-field); level 4 (rerank) was asked.\nnote: No chat model is set");
  });

  // Research said "no vectors from this embedding model yet… Embed the vault first." and never named
  // the load problem; embed then refused to send anything over the vectors in the way.
  it("vectors that cannot be read: research says so, as search does, in text and --json, and sends no one to embed", async () => {
    await cli("embed", "--embed", embedSpec());
    const root = path.join(vaultCacheFolder(), "vectors.bin");
    rmSync(root);
    mkdirSync(root);
    const text = await cli("research", "repair automobile", "--level", "2", "--embed", embedSpec(), "--retrieval-only", "--no-trace");
    expect(text.out).toContain("Vault searched at level 1 (lexical); level 2 (hybrid) was asked.\nnote: The stored vectors could not be read (");
    expect(text.out).not.toMatch(/Run vault-research embed|Embed the vault first/);
    const json = readResearchResult((await cli("research", "repair automobile", "--level", "2", "--embed", embedSpec(), "--retrieval-only", "--json", "--no-trace")).out);
    expect(json.search_level?.notices.map((n) => n.kind)).toEqual(["vectors_reset"]);
    expect(json.search_level?.notices[0].message).toContain("The stored vectors could not be read (");
  });

  // The CLI's lines were right, but the pack's recall note and the stage's detail (so the trace note)
  // still held the dial's own words: "no vectors from this embedding model yet… Embed the vault first."
  it("vectors that cannot be read: the pack's recall note and the trace note say so too, and send no one to embed", async () => {
    await cli("embed", "--embed", embedSpec());
    const root = path.join(vaultCacheFolder(), "vectors.bin");
    rmSync(root);
    mkdirSync(root);
    const run = await cli("research", "repair automobile", "--level", "2", "--embed", embedSpec(), "--retrieval-only", "--json", "--trace");
    expect(run.code, run.err).toBe(0);
    const json = readResearchResult(run.out);
    expect(json.pack.coverage.recall_note).toContain("level 2 was asked: The stored vectors could not be read (");
    expect(json.pack.coverage.recall_note).not.toMatch(/no vectors from this embedding model|Embed the vault first|Run vault-research embed/);
    const trace = readFileSync(path.join(vault, json.trace_path!), "utf8");
    expect(trace).toContain("level 2 was asked: The stored vectors could not be read (");
    expect(trace).not.toMatch(/no vectors from this embedding model|Embed the vault first|Run vault-research embed/);
    // The note goes into the vault: the file is named within the vault's cache folder, never by its place on this machine.
    expect(trace).toContain("the vault's cache folder");
    expect(trace).not.toContain(cache);
    expect(json.pack.coverage.recall_note).not.toContain(cache);
  });

  it("--level 1 (the default) leaves the pack as the index alone makes it and still logs the question", async () => {
    const run = await cli("research", "brake pads", "--retrieval-only", "--json", "--no-trace");
    const json = readResearchResult(run.out);
    expect(json.pack.coverage.recall_note).toMatch(/^Searched 4 notes; \d+ matched\./);
    expect(json).not.toHaveProperty("search_level");
    const log = readFileSync(path.join(vaultCacheFolder(), "query-log.jsonl"), "utf8");
    expect(log).toContain('"surface":"research"');
    expect(server.embedCalls.length).toBe(0);
  });

  it("refuses a bad --level or --embed before the vault is indexed", async () => {
    expect((await cli("research", "x", "--level", "two")).err).toContain('--level must be 1, 2, 3 or 4 (got "two")');
    expect((await cli("research", "x", "--embed", "ollama@ftp://x")).code).toBe(2);
    expect(existsSync(cache)).toBe(false);
  });
});

describe("vault-research compare", () => {
  it("runs the four levels side by side: which level ran, and each note's move", async () => {
    await cli("embed", "--embed", embedSpec());
    const run = await cli("compare", "fixing an automobile", "--embed", embedSpec(), "--json");
    expect(run.code, run.err).toBe(0);
    const json = readLevelComparison(run.out);
    expect(json.schema).toBe("level_comparison.v1");
    expect(json.levels.map((l: { level: number; ran_level: number }) => [l.level, l.ran_level])).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
      [4, 3],
    ]);
    const car = json.rows.find((r) => r.path === "Car repair.md")!;
    expect(car.ranks[1]).toBe(1);
    expect(car.moves[1].kind).toMatch(/new|up|same/);
    for (const row of json.rows) expect(row.ranks).toHaveLength(4);

    const text = await cli("compare", "fixing an automobile", "--embed", embedSpec());
    expect(text.out).toContain("L4 rerank: did not run; level 3 (multi-field) ran instead");
    expect(text.out).toMatch(/Car repair — Car repair\.md/);
  });
});
