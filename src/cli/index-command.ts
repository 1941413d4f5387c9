// `vault-research index`: brings the vault's index up to date and says what that took — or prints
// one `index_report.v1` object. On a terminal the indexing itself shows a live line. An index that
// could not be saved in the cache folder fails the command (exit 1): saving it is all it is for.
import { describeRebuildReason } from "../index/rebuild-reason";
import { has, UsageError, type ParsedArgs } from "./args";
import type { CommandIo } from "./cli-io";
import { indexReportJson, type LanguageReport } from "./json/index-report-json";
import { cachesLeftBehind, type CacheLeftBehind } from "./moved-vault-cache";
import type { ReportingWorkers, WorkerOutcome } from "./node-workers";
import { openVault } from "./open-vault";
import { terminalJson, visibleName } from "./terminal-text";
import { languageServes } from "../index/index-status-text";

/** `workers`: where the vault's language is learned (tests bring their own). */
export async function indexCommand(args: ParsedArgs, io: CommandIo, workers?: ReportingWorkers): Promise<number> {
  if (args.positionals.length > 0) throw new UsageError(`index takes no arguments besides options (got "${args.positionals.join(" ")}").`);
  const opened = await openVault(args, io, undefined, workers);
  const status = opened.index.status();
  const language = { on: opened.settings.index.vaultLanguage, learnedIn: opened.index.languageLearnedIn(), worker: opened.workers.lastOutcome() };
  const leftBehind = await cachesLeftBehind(opened.cacheDir);
  // Saving the index is this command's one job: a run that could not (said on stderr already) failed.
  const exitCode = opened.cacheNotSaved === null ? 0 : 1;
  if (has(args, "json")) {
    io.out(`${terminalJson(indexReportJson(opened.root, status, opened.sync, opened.cache.file, language, leftBehind, opened.cacheNotSaved))}\n`);
    return exitCode;
  }
  const s = opened.sync;
  const how = s.mode === "cache" ? "updated from cache" : `built from scratch (${describeRebuildReason(s.rebuildReason)})`;
  io.out(`Indexed ${status.notes} ${status.notes === 1 ? "note" : "notes"} in ${s.ms} ms — ${how}.\n`);
  io.out(`  added ${s.added}, changed ${s.updated}, removed ${s.removed}, unchanged ${s.unchanged}\n`);
  io.out(`${cacheLine(opened.cache.file, opened.cacheNotSaved)}\n`);
  io.out(`  the vault's own language: ${languageLine(language, languageServes(status), opened.workers.lastOutcome())}\n`);
  if (status.problems.length > 0) {
    io.out(`  ${status.problems.length} ${status.problems.length === 1 ? "note" : "notes"} with problems (indexed as text where possible):\n`);
    for (const p of status.problems.slice(0, 20)) io.out(`    ${visibleName(p.path)}: ${p.problem.message}\n`);
    if (status.problems.length > 20) io.out(`    … and ${status.problems.length - 20} more (see --json)\n`);
  }
  for (const line of leftBehindLines(leftBehind)) io.out(`${line}\n`);
  return exitCode;
}

/** Where the index was saved; when it could not be, why (its cost was said with the warning), and no file named as though it held it. */
function cacheLine(file: string, notSaved: string | null): string {
  return notSaved === null ? `  cache: ${file}` : `  cache: not saved (${visibleName(notSaved)})`;
}

/**
 * The cache folders of vaults no longer at their path, each with the path it was made for: a vault
 * moved is followed by its cache at its first run, so these are of vaults deleted (or moved and not
 * opened since). Nothing else would ever remove them.
 */
function leftBehindLines(left: CacheLeftBehind[]): string[] {
  if (left.length === 0) return [];
  const shown = left.slice(0, 10).map((c) => `    ${visibleName(c.folder)} (was ${visibleName(c.vault)})${c.keptTraces ? `, its kept traces in ${visibleName(c.keptTraces)}` : ""}`);
  const more = left.length > shown.length ? [`    … and ${left.length - shown.length} more`] : [];
  const count = left.length === 1 ? "1 cache folder" : `${left.length} cache folders`;
  return [`  ${count} of vaults no longer at their path (a moved vault takes its own at its next run; remove a folder once its vault is gone for good):`, ...shown, ...more];
}

function languageLine(language: LanguageReport, ready: boolean, worker: WorkerOutcome | null): string {
  if (!language.on) return "off (index.vaultLanguage is false)";
  if (!ready) return "none (too few notes to learn from)";
  if (language.learnedIn === "worker") return "learned in a worker thread";
  if (language.learnedIn === "this thread") return `learned in the CLI's own thread${whyNotInWorker(worker)}`;
  return "taken from the cache";
}

/** Why the worker thread did not learn it: one that never started is not one that started and failed. */
function whyNotInWorker(worker: WorkerOutcome | null): string {
  if (worker === null) return "";
  if (worker.kind === "not_started") return ` (no worker could be started: ${worker.reason})`;
  if (worker.kind === "failed") return ` (its worker thread started but did not finish: ${worker.reason})`;
  return " (the worker thread's answer could not be used)";
}
