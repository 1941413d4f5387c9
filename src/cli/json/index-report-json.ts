// `index_report.v1`: what `index --json` prints — how many notes, what the sync did and why it
// rebuilt (in words), where the cache is (and why the index could not be saved there, when it could
// not), the cache folders of vaults gone from their path (as the text lists them), the vault's
// language (where it was learned, and when not in a worker thread, what kept it from one), and the
// notes indexed with problems.
import * as z from "zod";
import { describeRebuildReason } from "../../index/rebuild-reason";
import type { IndexStatus, SyncReport } from "../../index/types";
import type { CacheLeftBehind } from "../moved-vault-cache";
import type { WorkerOutcome } from "../node-workers";
import { languageServes } from "../../index/index-status-text";

/** Why the language was learned on the CLI's own thread: no worker started, the one started failed, or its answer was of no use. */
const workerProblemSchema = z
  .strictObject({
    kind: z.enum(["not_started", "failed", "answer_unusable"]).describe("not_started: no worker thread could be started; failed: one started and did not finish; answer_unusable: it answered, but not with anything the CLI could use."),
    message: z.string().describe("What went wrong: the worker's own error message where there was one."),
  })
  .describe("Present only when learned_in is \"this thread\" because of a worker thread (added after the first release of v1: absent in older output).");

export const indexReportSchema = z.strictObject({
  schema: z.literal("index_report.v1"),
  vault: z.string().describe("The vault folder, absolute."),
  notes: z.number().int().nonnegative(),
  sync: z.strictObject({
    mode: z.enum(["cache", "rebuild"]).describe("cache: a saved index was loaded and brought up to date; rebuild: built from scratch."),
    rebuild_reason: z.string().nullable().describe("Why it rebuilt, in words; null when it did not."),
    added: z.number().int().nonnegative(),
    updated: z.number().int().nonnegative(),
    removed: z.number().int().nonnegative(),
    unchanged: z.number().int().nonnegative(),
    ms: z.number().nonnegative(),
  }),
  cache_file: z.string().describe("The saved index's manifest: there once the index was saved (not when cache_not_saved says why it could not be)."),
  cache_not_saved: z
    .string()
    .optional()
    .describe(
      "Present only when the index could not be saved in the cache folder, saying why (a read-only disk, a full one, a file where a folder should be): cache_file is then not the index just built, and the command exits 1. Added after the first release of v1: absent in older output.",
    ),
  cache_folders_left_behind: z
    .array(
      z.strictObject({
        folder: z.string().describe("The cache folder, absolute: its index, vectors and query log."),
        vault: z.string().describe("The path of the vault it was made for, where there is nothing now."),
        kept_traces_folder: z.string().nullable().describe("That vault's kept traces, to remove with the folder; null when it has none."),
      }),
    )
    .describe(
      "Cache folders (under the same cache directory) of vaults no longer at their path: a vault moved takes its own back at its next run, so these are of vaults deleted or not opened since; nothing removes them but the user. Added after the first release of v1: absent in older output.",
    ),
  vault_language: z
    .strictObject({
      state: z.enum(["ready", "none", "off"]).describe("ready: learned or taken from the cache; none: the vault is too small to learn from; off: index.vaultLanguage is false."),
      learned_in: z
        .enum(["worker", "this thread"])
        .nullable()
        .describe("Where it was learned by this run: a worker thread, or the CLI's own (when no worker thread could be started, the one started failed or gave no usable answer — worker_problem says which — or none was offered); null when it was not learned by this run."),
      worker_problem: workerProblemSchema.optional(),
    })
    .describe("The vault's own language, the search lane that finds notes saying the question in other words."),
  problems: z.array(z.strictObject({ path: z.string(), problem: z.strictObject({ kind: z.string(), message: z.string() }) })),
});
export type IndexReportJson = z.infer<typeof indexReportSchema>;

/** What the report says of the vault's language: on or off in the settings, where it was learned, and what became of the worker thread asked to. */
export interface LanguageReport {
  on: boolean;
  learnedIn: "worker" | "this thread" | null;
  /** The last worker job's outcome (`ReportingWorkers.lastOutcome()`); null or absent when none was tried. */
  worker?: WorkerOutcome | null;
}

type WorkerProblem = z.infer<typeof workerProblemSchema>;

/** Why the language was not learned in a worker, when a worker was tried: only for a language learned on this thread. */
function workerProblem(language: LanguageReport): WorkerProblem | null {
  const worker = language.worker;
  if (language.learnedIn !== "this thread" || !worker) return null;
  if (worker.kind === "answered") return { kind: "answer_unusable", message: "The worker thread's answer could not be used." };
  return { kind: worker.kind, message: worker.reason };
}

/** `cacheNotSaved`: why the index could not be saved in `cacheFile`'s folder, or null when it was (or had nothing new to save). */
export function indexReportJson(
  vault: string,
  status: IndexStatus,
  sync: SyncReport,
  cacheFile: string,
  language: LanguageReport,
  leftBehind: readonly CacheLeftBehind[],
  cacheNotSaved: string | null = null,
): IndexReportJson {
  return {
    schema: "index_report.v1",
    vault,
    notes: status.notes,
    sync: {
      mode: sync.mode,
      rebuild_reason: sync.rebuildReason ? describeRebuildReason(sync.rebuildReason) : null,
      added: sync.added,
      updated: sync.updated,
      removed: sync.removed,
      unchanged: sync.unchanged,
      ms: sync.ms,
    },
    cache_file: cacheFile,
    ...(cacheNotSaved === null ? {} : { cache_not_saved: cacheNotSaved }),
    cache_folders_left_behind: leftBehind.map((c) => ({ folder: c.folder, vault: c.vault, kept_traces_folder: c.keptTraces })),
    vault_language: languageJson(language, status),
    problems: status.problems.map((p) => ({ path: p.path, problem: { kind: p.problem.kind, message: p.problem.message } })),
  };
}

function languageJson(language: LanguageReport, status: IndexStatus): IndexReportJson["vault_language"] {
  const state = !language.on ? "off" : languageServes(status) ? "ready" : "none";
  const problem = workerProblem(language);
  return problem ? { state, learned_in: language.learnedIn, worker_problem: problem } : { state, learned_in: language.learnedIn };
}
