// `index_report.v1`: what `index --json` prints — how many notes, what the sync did and why it
// rebuilt (in words), where the cache is, the vault's language (and where it was learned), and the
// notes indexed with problems.
import * as z from "zod";
import { describeRebuildReason } from "../../index/rebuild-reason";
import type { IndexStatus, SyncReport } from "../../index/types";

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
  cache_file: z.string(),
  vault_language: z
    .strictObject({
      state: z.enum(["ready", "none", "off"]).describe("ready: learned or taken from the cache; none: the vault is too small to learn from; off: index.vaultLanguage is false."),
      learned_in: z.enum(["worker", "this thread"]).nullable().describe("Where it was learned by this run: a worker thread, or the CLI's own (no worker could be had); null when it was not learned by this run."),
    })
    .describe("The vault's own language, the search lane that finds notes saying the question in other words."),
  problems: z.array(z.strictObject({ path: z.string(), problem: z.strictObject({ kind: z.string(), message: z.string() }) })),
});
export type IndexReportJson = z.infer<typeof indexReportSchema>;

/** What the report says of the vault's language: on or off in the settings, and where it was learned. */
export interface LanguageReport {
  on: boolean;
  learnedIn: "worker" | "this thread" | null;
}

export function indexReportJson(vault: string, status: IndexStatus, sync: SyncReport, cacheFile: string, language: LanguageReport): IndexReportJson {
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
    vault_language: { state: !language.on ? "off" : status.vaultLanguage === "ready" ? "ready" : "none", learned_in: language.learnedIn },
    problems: status.problems.map((p) => ({ path: p.path, problem: { kind: p.problem.kind, message: p.problem.message } })),
  };
}
