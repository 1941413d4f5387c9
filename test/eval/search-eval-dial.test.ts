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
    expect(two.mrr).toBeGreaterThan(one.mrr);
    expect(two.ran_levels).toEqual({ 2: 3 });
    const four = await scoreDialLevel(dial, 4, CASES);
    expect(four.ran_levels).toEqual({ 3: 3 });
    expect(four.notices).toEqual([expect.objectContaining({ kind: "level_unavailable", count: 3 })]);
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
});

function runScript(script: string, args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script, ...args], { cwd: CLI_REPO_ROOT });
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
});
