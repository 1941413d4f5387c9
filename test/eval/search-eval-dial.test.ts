// Search quality per level of the dial, and the query log's replay with its deltas from level 1 —
// in-process against the stand-in embedding server, and `npm run eval:search`'s built script run
// as a user would (--level 2 --embed, and --replay-log over a log in the cache folder).
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { embeddedVault, standInEmbedder } from "../support/embedded-vault";
import { FileIndexCache } from "../../src/cli/file-index-cache";
import { FileQueryLogFile } from "../../src/cli/file-query-log";
import { replayDeltas, scoreDialLevel, type SearchCase } from "../../src/eval/search-eval";
import type { DialLevel, DialRequest, DialResponse } from "../../src/index/dial/dial-types";
import { replayLoggedQueries } from "../../src/index/dial/query-replay";
import { VaultSearch } from "../../src/index/dial/vault-search";
import { VectorStore } from "../../src/index/embeddings/vector-store";
import { QueryLog } from "../../src/index/query-log/query-log";
import { VaultIndex } from "../../src/index/vault-index";
import { type StandInServer } from "../llm/embeddings/stand-in-embedding-server";
import { BUILT_CLI, CLI_REPO_ROOT, ensureBuiltCli } from "../support/built-cli";
import { MemoryNoteStore } from "../support/memory-note-store";
import { MemoryQueryLogFile } from "../index/query-log/memory-query-log-file";

const NOTES: Record<string, string> = {
  "Fixing cars.md": "# Fixing cars\n\nNotes from the garage: brakes, oil and tyres.\n",
  "Dogs.md": "# Dogs\n\nA puppy wants two walks a day.\n",
  "Cats.md": "# Cats\n\nA kitten sleeps on the sofa.\n",
  "Soup.md": "# Soup\n\nLeek and potato soup.\n",
};
// Paraphrases the words miss and the stand-in's folded "synonyms" catch.
const CASES: SearchCase[] = [
  { question: "repairing an automobile", relevant: ["Fixing cars.md"], kind: "paraphrase" },
  { question: "canine", relevant: ["Dogs.md"], kind: "paraphrase" },
  { question: "leek soup", relevant: ["Soup.md"], kind: "keyword" },
];

let server: StandInServer;
let store: MemoryNoteStore;
let index: VaultIndex;
let vectors: VectorStore;
const embedder = () => standInEmbedder(server);

beforeAll(async () => {
  ({ server, store, index, vectors } = await embeddedVault(NOTES, 128));
});
afterAll(() => server.close());

describe("search quality per level of the dial", () => {
  it("level 2 finds the paraphrases level 1 misses, and each level says where it ran", async () => {
    const dial = new VaultSearch({ index, notes: store, vectors, embedder: embedder() });
    const one = await scoreDialLevel(dial, 1, CASES);
    const two = await scoreDialLevel(dial, 2, CASES);
    expect(one.recall_at_5).toBeLessThan(1);
    expect(two.recall_at_5).toBe(1);
    expect(two.mrr).toBeGreaterThan(one.mrr ?? Infinity);
    expect(two.ran_levels).toEqual({ 2: 3 });
    const four = await scoreDialLevel(dial, 4, CASES);
    expect(four.ran_levels).toEqual({ 3: 3 });
    expect(four.notices).toEqual([expect.objectContaining({ kind: "level_unavailable", count: 3 })]);
  });

  it("a level that fell back for every question is reported as not run, not scored with the lower level's results", async () => {
    const dial = new VaultSearch({ index, notes: store, vectors, embedder: embedder() });
    const three = await scoreDialLevel(dial, 3, CASES);
    const four = await scoreDialLevel(dial, 4, CASES);
    expect(three.mrr).toBeGreaterThan(0);
    expect(four).toMatchObject({ level: 4, cases: 0, not_run: 3, mrr: null, recall_at_5: null, misses: [] });
  });

  it("a level that fell back for some questions is scored on the others only, and says how many it left out", async () => {
    // Level 4 runs for the question about soup and falls back to level 3 (its results misses here) for the rest.
    const four = await scoreDialLevel(scriptedDial((query) => (query.includes("soup") ? 4 : 3), { "leek soup": ["Soup.md"] }), 4, CASES);
    expect(four).toMatchObject({ cases: 1, not_run: 2, mrr: 1, recall_at_5: 1, ran_levels: { 3: 2, 4: 1 } });
  });

  it("replays the logged queries at every level: figures of the opened notes and deltas from level 1", async () => {
    const log = new QueryLog({ file: new MemoryQueryLogFile() });
    const id = await log.recordSearch({ query: "repairing an automobile", level: 1, ranLevel: 1, filters: { folders: [], tags: [] }, results: [], latencyMs: 1, surface: "cli" });
    await log.recordClick(id!, "Fixing cars.md", 4);
    // A note opened then and renamed since: set aside, and counted where the figures are read.
    await log.recordClick(id!, "Renamed since.md", 2);
    const replay = await replayLoggedQueries(new VaultSearch({ index, notes: store, vectors, embedder: embedder() }), (await log.read()).lines);
    const deltas = replayDeltas(replay);
    expect(deltas).toMatchObject({ queries: 1, scored: 1, opened_gone: 1 });
    expect(deltas.levels[0]).toMatchObject({ level: 1, mrr_delta: 0 });
    expect(deltas.levels[1].mrr).toBe(1);
    expect(deltas.levels[1].mrr_delta).toBeGreaterThan(0);
  });

  it("replay: a level that fell back for every query is reported as not run, not given the lower level's figures", async () => {
    const log = new QueryLog({ file: new MemoryQueryLogFile() });
    const id = await log.recordSearch({ query: "repairing an automobile", level: 1, ranLevel: 1, filters: { folders: [], tags: [] }, results: [], latencyMs: 1, surface: "cli" });
    await log.recordClick(id!, "Fixing cars.md", 4);
    // No rerank model: level 4 runs level 3's search.
    const replay = await replayLoggedQueries(new VaultSearch({ index, notes: store, vectors, embedder: embedder() }), (await log.read()).lines);
    const deltas = replayDeltas(replay);
    expect(deltas.levels[3]).toEqual({ level: 4, ran: 0, ran_lower: 1, mrr: null, recall_at_5: null, mrr_delta: null, recall_at_5_delta: null });
    expect(deltas.levels[2]).toMatchObject({ level: 3, ran: 1, mrr: 1 });
  });

  it("replay: a level that fell back for some queries is scored on the others, against level 1 on those same queries", async () => {
    const log = new QueryLog({ file: new MemoryQueryLogFile() });
    for (const [query, opened] of [["leek soup", "Soup.md"], ["canine", "Dogs.md"]]) {
      const id = await log.recordSearch({ query, level: 1, ranLevel: 1, filters: { folders: [], tags: [] }, results: [], latencyMs: 1, surface: "cli" });
      await log.recordClick(id!, opened, 1);
    }
    // Level 1 finds the soup second and misses the dog; level 4 runs only for the soup, where it is first.
    const results: Record<DialLevel, Record<string, string[]>> = {
      1: { "leek soup": ["Cats.md", "Soup.md"], canine: [] },
      2: { "leek soup": ["Soup.md"], canine: ["Dogs.md"] },
      3: { "leek soup": ["Soup.md"], canine: ["Dogs.md"] },
      4: { "leek soup": ["Soup.md"], canine: ["Dogs.md"] },
    };
    const dial = { async search(request: DialRequest) {
      const one = scriptedDial((query) => (query === "leek soup" ? 4 : 3), results[request.level]);
      return one.search(request);
    } };
    const deltas = replayDeltas(await replayLoggedQueries(dial, (await log.read()).lines));
    expect(deltas.levels[3]).toEqual({ level: 4, ran: 1, ran_lower: 1, mrr: 1, recall_at_5: 1, mrr_delta: 0.5, recall_at_5_delta: 0 });
    expect(deltas.levels[0]).toMatchObject({ level: 1, ran: 2, mrr: 0.25, recall_at_5: 0.5 });
  });
});

/** A dial that gives fixed results per query at the levels that run; at level 4 it runs `ranLevel(query)`, and a fallback gives nothing. */
function scriptedDial(ranLevel: (query: string) => DialLevel, results: Record<string, string[]>): { search(request: DialRequest): Promise<DialResponse> } {
  return {
    async search(request) {
      const ran = request.level === 4 ? ranLevel(request.query) : request.level;
      const keys = ran === request.level ? results[request.query] : [];
      return {
        query: request.query,
        level: request.level,
        ranLevel: ran,
        results: (keys ?? []).map((key) => ({ key, path: key, title: key, tags: [], score: 1, section: null, lexical: null, explanation: { lanes: [] } })),
        notices: [],
        latencyMs: 0,
        logId: null,
      };
    },
  };
}

function runScript(script: string, args: string[], env: Record<string, string> = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script, ...args], { cwd: CLI_REPO_ROOT, env: { ...process.env, ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill(), 60_000);
    child.on("close", (status) => (clearTimeout(timer), resolve({ status, stdout, stderr })));
  });
}

describe("npm run eval:search (the built script)", () => {
  it("--replay-log re-runs the vault's logged queries at every level, with --embed", async () => {
    ensureBuiltCli();
    const tmp = mkdtempSync(path.join(os.tmpdir(), "vr-eval-search-"));
    try {
      const vault = path.join(tmp, "vault");
      mkdirSync(vault);
      for (const [name, text] of Object.entries(NOTES)) writeFileSync(path.join(vault, name), text);
      const cacheDir = path.join(tmp, "cache");
      const log = new QueryLog({ file: new FileQueryLogFile(new FileIndexCache(cacheDir, vault).folder) });
      const id = await log.recordSearch({ query: "canine", level: 1, ranLevel: 1, filters: { folders: [], tags: [] }, results: [], latencyMs: 1, surface: "cli" });
      await log.recordClick(id!, "Dogs.md", 3);
      const script = path.join(path.dirname(BUILT_CLI), "eval-search.cjs");
      // Not spawnSync: the stand-in server answers from this process's event loop.
      const run = await runScript(script, ["--replay-log", "--vault", vault, "--cache-dir", cacheDir, "--embed", `ollama:nomic-embed-text@${server.base}`]);
      expect(run.status, run.stderr).toBe(0);
      expect(run.stderr).toContain("Embedding sends the text of every note");
      const out = JSON.parse(run.stdout) as ReturnType<typeof replayDeltas> & { lines: number };
      expect(out.lines).toBe(2);
      expect(out.levels.map((l) => l.level)).toEqual([1, 2, 3, 4]);
      expect(out.levels[1].mrr).toBe(1);
      expect(out.levels[3].ran_lower).toBe(1);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }, 120_000);

  it("--replay-log scrubs every key it knows from what it sends and prints: a key typed into a query logged before the key was set", async () => {
    ensureBuiltCli();
    const tmp = mkdtempSync(path.join(os.tmpdir(), "vr-eval-search-"));
    const key = "sk-replay-0123456789abcdef";
    const anthropicKey = "sk-ant-replay-9876543210";
    const embedsBefore = server.embedCalls.length;
    const chatsBefore = server.chatCalls.length;
    try {
      const vault = path.join(tmp, "vault");
      mkdirSync(vault);
      for (const [name, text] of Object.entries(NOTES)) writeFileSync(path.join(vault, name), text);
      const cacheDir = path.join(tmp, "cache");
      // Written with no scrubber: the key was not set when the query was logged.
      const log = new QueryLog({ file: new FileQueryLogFile(new FileIndexCache(cacheDir, vault).folder) });
      const id = await log.recordSearch({ query: `canine ${key} ${anthropicKey}`, level: 1, ranLevel: 1, filters: { folders: [], tags: [] }, results: [], latencyMs: 1, surface: "cli" });
      await log.recordClick(id!, "Dogs.md", 3);
      const script = path.join(path.dirname(BUILT_CLI), "eval-search.cjs");
      const run = await runScript(script, ["--replay-log", "--misses", "--vault", vault, "--cache-dir", cacheDir, "--embed", `ollama:nomic-embed-text@${server.base}`, "--model", `openai:stand-in@${server.base}/v1`], {
        OPENAI_API_KEY: key,
        ANTHROPIC_API_KEY: anthropicKey,
      });
      expect(run.status, run.stderr).toBe(0);
      const embeds = server.embedCalls.slice(embedsBefore);
      const chats = server.chatCalls.slice(chatsBefore);
      expect(embeds.length).toBeGreaterThan(0);
      expect(chats.length).toBeGreaterThan(0);
      const sent = JSON.stringify([embeds.map((c) => c.input), chats.map((c) => c.body)]);
      expect(sent).toContain("canine");
      for (const secret of [key, anthropicKey]) {
        expect(sent).not.toContain(secret);
        expect(run.stdout + run.stderr).not.toContain(secret);
      }
      // The OpenAI key is the OpenAI-compatible chat model's, never the Ollama server's.
      expect(embeds.every((c) => c.authorization === undefined)).toBe(true);
      expect((JSON.parse(run.stdout) as { replayed: { query: string }[] }).replayed[0].query).toContain("[redacted]");
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }, 120_000);
});
