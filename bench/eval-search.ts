// `npm run eval:search`: retrieval quality of vault search against our labelled question sets.
// recall@5 = share of questions with a relevant note in the top 5; MRR = mean of 1/rank of the
// first relevant note (0 when none in the top 10). Prints JSON; --misses lists the failures.
//
// The search dial: `--level 1|2|3|4|all` scores those levels of the dial instead (2–3 need
// `--embed SPEC`, 4 also `--model SPEC`); each set's vault is embedded first, incrementally, with
// its vectors kept in `--cache-dir DIR` (default: the CLI's cache folder), and each level says
// which level really ran. A question a level could not run (no vectors, a rerank that failed) ran a
// lower level's search: it is left out of that level's figures and counted (`not_run`; the replay's
// `ran`), and a level that ran for none has null figures. `--requests-per-second N` lifts the client's cap of 4 (a local server). `--replay-log [--vault DIR]` re-runs the queries of the vault's query log
// (the CLI's cache folder) at every level: MRR and recall@5 of the notes the user opened, and each
// level's delta from level 1 over the same queries. Every key of the environment is scrubbed from the
// queries the dial sends and from all it prints, as the CLI does (the log knew only the keys set when
// it was written). No real embedding model ran while this was written: the figures are
// for a user with Ollama (or another server) to measure on their own vault.
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { envSecrets } from "../src/cli/env-secrets";
import { createFetchHttp } from "../src/cli/fetch-http";
import { defaultCacheDir, FileIndexCache } from "../src/cli/file-index-cache";
import { FileQueryLogFile } from "../src/cli/file-query-log";
import { FileVectorCache, loadVectors } from "../src/cli/file-vector-cache";
import { FsNoteStore } from "../src/cli/fs-note-store";
import { replayDeltas, scoreDialLevel, scoreSearchCases, searchCaseProblem, type SearchCase } from "../src/eval/search-eval";
import { DIAL_LEVELS, type DialLevel } from "../src/index/dial/dial-types";
import { replayLoggedQueries } from "../src/index/dial/query-replay";
import { VaultSearch } from "../src/index/dial/vault-search";
import { EmbeddingJob } from "../src/index/embeddings/embedding-job";
import { embeddingProgressWords } from "../src/index/embeddings/progress-words";
import { vectorResetWords } from "../src/index/embeddings/vector-reset";
import { QueryLog } from "../src/index/query-log/query-log";
import { VaultIndex } from "../src/index/vault-index";
import { createEmbeddingModel, embeddingDisclosure, embedSecretNameFor, parseEmbedSpec } from "../src/llm/embeddings/embed-spec";
import { createChatModel, parseModelSpec, secretNameFor } from "../src/llm/model-spec";
import { argValue, keysScrubbed, runEvalSets, wantsMisses } from "./eval-sets";

const root = path.resolve(__dirname, "..");

function fail(message: string): never {
  process.stderr.write(keysScrubbed.text(`eval:search: ${message}\n`));
  process.exit(2);
}

function levelsAsked(): DialLevel[] | null {
  const raw = argValue("level");
  if (raw === undefined) return null;
  if (raw === "all") return [...DIAL_LEVELS];
  if (!/^[1-4]$/.test(raw)) fail(`--level must be 1, 2, 3, 4 or all (got "${raw}").`);
  return [Number(raw) as DialLevel];
}

/** The dial over one vault: its vectors brought up to date first (incrementally, kept in the cache folder). */
async function dialFor(index: VaultIndex, store: FsNoteStore, vault: string): Promise<VaultSearch> {
  const embedSpec = parseEmbedSpec(argValue("embed") ?? "none");
  if (!embedSpec.ok) fail(embedSpec.error.message);
  const modelSpec = parseModelSpec(argValue("model") ?? "none");
  if (!modelSpec.ok) fail(modelSpec.error.message);
  const http = createFetchHttp();
  // The client's cap (4 requests a second by default) spaces the queries too: a local server can take more.
  const requestsPerSecond = Number(argValue("requests-per-second") ?? 4);
  if (!(requestsPerSecond > 0)) fail("--requests-per-second must be a number above 0.");
  // Each server gets its own kind's key, as the CLI's dial does: never the OpenAI key to Ollama, nor to Anthropic.
  const secrets = envSecrets(process.env);
  const embedSecret = embedSecretNameFor(embedSpec.config);
  const chatSecret = secretNameFor(modelSpec.config);
  const embedder = createEmbeddingModel(embedSpec.config, { http, apiKey: embedSecret ? await secrets.get(embedSecret) : null, requestsPerSecond });
  const chat = createChatModel(modelSpec.config, { http, apiKey: chatSecret ? await secrets.get(chatSecret) : null });
  if (!chat.ok) fail(chat.error.message);
  // A key in a question or a logged query is gone before the embedding server or the rerank model reads it.
  const scrubber = () => keysScrubbed;
  if (!embedder) return new VaultSearch({ index, notes: store, rerankModel: chat.model, scrubber });
  const folder = new FileIndexCache(path.resolve(argValue("cache-dir") ?? defaultCacheDir()), vault).folder;
  const cache = new FileVectorCache(folder);
  const loaded = await loadVectors(cache, embedder.name);
  if (loaded.reset) process.stderr.write(`${vectorResetWords(loaded.reset)}\n`);
  process.stderr.write(`${embeddingDisclosure(embedSpec.config)}\n`);
  const job = new EmbeddingJob({ store: loaded.store, embedder, notes: store, cache });
  job.onProgress((p) => p.state === "running" && p.notesDone % 100 === 0 && process.stderr.write(`${embeddingProgressWords(p)}\n`));
  const done = await job.run(index.paths().map((p) => ({ path: p, mtime: index.note(p)!.mtime, size: index.note(p)!.size })));
  process.stderr.write(`${path.relative(root, vault) || vault}: ${embeddingProgressWords(done)}\n`);
  return new VaultSearch({ index, notes: store, vectors: loaded.store, embedder, rerankModel: chat.model, scrubber });
}

/** --replay-log: the logged queries of one vault at every level, and the deltas from level 1. */
async function replayLog(): Promise<void> {
  const vault = path.resolve(argValue("vault") ?? path.join(root, "examples/vault"));
  if (!existsSync(vault) || !statSync(vault).isDirectory()) fail(`--vault ${vault} is not a folder.`);
  const store = new FsNoteStore(vault);
  const index = new VaultIndex();
  await index.sync(store, null);
  const folder = new FileIndexCache(path.resolve(argValue("cache-dir") ?? defaultCacheDir()), vault).folder;
  const { lines, skipped } = await new QueryLog({ file: new FileQueryLogFile(folder) }).read();
  // A dial without a log: the replay must not log itself.
  const replay = await replayLoggedQueries(await dialFor(index, store, vault), lines);
  const out = { vault, log: folder, lines: lines.length, skipped_lines: skipped, ...replayDeltas(replay), ...(wantsMisses ? { replayed: replay.replayed } : {}) };
  // The log scrubbed only the keys it knew when each line was written.
  process.stdout.write(`${JSON.stringify(keysScrubbed.value(out), null, 2)}\n`);
}

const levels = levelsAsked();
if (process.argv.includes("--replay-log")) {
  replayLog().catch((error: unknown) => {
    process.stderr.write(keysScrubbed.text(`eval:search failed: ${error instanceof Error ? error.message : String(error)}\n`));
    process.exitCode = 1;
  });
} else if (levels === null) {
  void runEvalSets<SearchCase>("search", async (index, store, cases) => {
    const report = await scoreSearchCases(index, store, cases);
    return wantsMisses ? { ...report } : { ...report, misses: report.misses.length };
  }, searchCaseProblem);
} else {
  void runEvalSets<SearchCase>("search", async (index, store, cases, vault) => {
    const dial = await dialFor(index, store, vault);
    const out: Record<string, unknown> = {};
    for (const level of levels) {
      const report = await scoreDialLevel(dial, level, cases);
      const { gave: _gave, ...printed } = report;
      out[`level_${level}`] = wantsMisses ? printed : { ...printed, misses: report.misses.length };
    }
    return out;
  }, searchCaseProblem);
}
