// `index_report.v1`: what `index --json` prints — how many notes, what the sync did and why it
// rebuilt (in words), where the cache is, and the notes indexed with problems.
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
  problems: z.array(z.strictObject({ path: z.string(), problem: z.strictObject({ kind: z.string(), message: z.string() }) })),
});
export type IndexReportJson = z.infer<typeof indexReportSchema>;

export function indexReportJson(vault: string, status: IndexStatus, sync: SyncReport, cacheFile: string): IndexReportJson {
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
    problems: status.problems.map((p) => ({ path: p.path, problem: { kind: p.problem.kind, message: p.problem.message } })),
  };
}
