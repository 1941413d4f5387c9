// `vault-research eval --file CASES.json`: runs hand-written research cases over a vault and
// checks each run against its expectations (schema and checks: core/eval-cases.ts). Evals are
// offline by construction: web requests are answered from a case's replay folder (else --replay),
// and a case without one has its web requests refused and reported — never sent. What a run sent
// is observed by a recording Http around the adapters, not read back from logs.
import { readJsonFile } from "./json-file";
import path from "node:path";
import { checkEvalCase, notePathsOf, parseEvalCases, providerHosts, type EvalCase, type EvalRequest } from "../eval/eval-cases";
import { runResearch } from "../research/run";
import { createChatModel, parseModelSpec, secretNameFor, type ModelConfig } from "../llm/model-spec";
import { HttpFailure, maySkip, monotonicReading, sleepCancelled, systemClock, type Clock, type Http, type Secrets } from "../ports";
import { maskSecretParams } from "../websearch/replay";
import { PageCache } from "../research/page-cache";
import type { PageRead } from "../research/stages/read-pages";
import { flag, has, intFlag, UsageError, type ParsedArgs } from "./args";
import { nodePageReader } from "./dom-parser";
import { envSecrets, envSecretValues, secretEnvNames } from "./env-secrets";
import { createFetchHttp } from "./fetch-http";
import { openVault, type CliIo, type OpenedVault } from "./open-vault";
import { loadReplayDirectory, ReplayDirectoryError, replayHttpFromDirectory } from "./replay-dir";
import { replayFromEnvironment } from "./web-access";
import { evalReportJson } from "./json/eval-report-json";
import { isKeyedSourceSecret } from "./provider-choice";
import { terminalJson } from "./terminal-text";
import { originOf } from "../text/urls";

export { EVAL_FLAGS } from "./command-flags";

/** One case's result, as `--json` prints it. */
export interface EvalCaseOutcome {
  id: string;
  question: string;
  passed: boolean;
  failures: string[];
  /** Absent when the run itself failed. */
  stop_reason?: string;
  verdict?: string;
  /** What page reading did in this case's run (absent when it chose no page). */
  pages?: EvalPageFigures;
  requests: { method: string; url: string; channel: EvalRequest["channel"]; outcome: EvalRequest["outcome"]; status?: number }[];
}

export interface EvalPageFigures {
  /** Pages fetched and read, pages taken from the page cache, pages not read. */
  read: number;
  cached: number;
  skipped: number;
  /** Passages kept, and their characters against the pages' budget. */
  passages: number;
  chars: number;
  budget_chars: number;
}

export interface EvalReport {
  file: string;
  vault: string;
  /** `--read-pages`, when given: every case reads this many pages. */
  read_pages?: number;
  cases: EvalCaseOutcome[];
  passed: number;
  failed: number;
}

/** What every case's run shares: the page cache, so a later case can reuse a page an earlier one read. */
interface EvalSession {
  readPages?: number;
  pageCache: PageCache;
}

interface PreparedCase {
  case: EvalCase;
  replayDir?: string;
  model: ModelConfig;
}

export async function evalCommand(args: ParsedArgs, io: CliIo): Promise<number> {
  if (args.positionals.length > 0) throw new UsageError(`eval takes no arguments besides options (got "${args.positionals.join(" ")}"); the questions live in the --file cases.`);
  const fileFlag = flag(args, "file");
  if (!fileFlag) throw new UsageError("--file CASES.json is required (a research cases file, e.g. evals/research/sample-vault.json).");
  const file = path.resolve(io.cwd, fileFlag);
  const { cases } = readCasesFile(file, fileFlag);
  const prepared = prepareCases(cases, file, fileFlag, defaultReplayDir(args, io));
  const readPages = intFlag(args, "read-pages", 0, 5);

  // The vault is opened only once the cases file and the flags are known to be good: a usage error costs no indexing.
  const opened = await openVault(args, io);
  await requireNotesExist(prepared, opened, fileFlag);

  const session: EvalSession = { pageCache: new PageCache(systemClock), ...(readPages !== undefined ? { readPages } : {}) };
  const report: EvalReport = { file: fileFlag, vault: flag(args, "vault") ?? opened.root, ...(readPages !== undefined ? { read_pages: readPages } : {}), cases: [], passed: 0, failed: 0 };
  for (const p of prepared) {
    const outcome = await runEvalCase(p, opened, io, session);
    report.cases.push(outcome);
    if (outcome.passed) report.passed++;
    else report.failed++;
  }
  io.out(has(args, "json") ? `${terminalJson(evalReportJson(report))}\n` : formatEvalReport(report));
  return report.failed > 0 ? 1 : 0;
}

function readCasesFile(file: string, shown: string): ReturnType<typeof parseEvalCases> & { ok: true } {
  const read = readJsonFile(file);
  if (!read.ok) throw new UsageError(`Cases file ${shown} ${read.why}.`);
  const parsed = parseEvalCases(read.value);
  if (!parsed.ok) throw new UsageError(`Cases file ${shown}: ${parsed.error.message}`);
  return parsed;
}

function defaultReplayDir(args: ParsedArgs, io: CliIo): string | undefined {
  // The environment read as every command reads it: set but empty is refused, never the live web.
  const given = flag(args, "replay") ?? replayFromEnvironment(io.env);
  if (!given) return undefined;
  const dir = path.resolve(io.cwd, given);
  checkReplayDir(dir, "--replay");
  return dir;
}

/** Resolves each case's replay folder and model before anything runs, so mistakes are usage errors. */
function prepareCases(cases: EvalCase[], file: string, shown: string, fallbackReplay: string | undefined): PreparedCase[] {
  const checked = new Set<string>();
  return cases.map((c) => {
    let replayDir = fallbackReplay;
    if (c.replay) {
      replayDir = path.resolve(path.dirname(file), c.replay);
      if (!checked.has(replayDir)) checkReplayDir(replayDir, `Cases file ${shown}: case "${c.id}", field replay`);
      checked.add(replayDir);
    }
    const spec = c.model ? parseModelSpec(c.model) : { ok: true as const, config: { kind: "none" } as ModelConfig };
    if (!spec.ok) throw new UsageError(`Cases file ${shown}: case "${c.id}", field model: ${spec.error.message}`);
    return { case: c, model: spec.config, ...(replayDir ? { replayDir } : {}) };
  });
}

function checkReplayDir(dir: string, where: string): void {
  try {
    loadReplayDirectory(dir);
  } catch (error) {
    if (error instanceof ReplayDirectoryError) throw new UsageError(`${where}: ${error.message}`);
    throw error;
  }
}

async function requireNotesExist(prepared: PreparedCase[], opened: OpenedVault, shown: string): Promise<void> {
  for (const { case: c } of prepared) {
    for (const { field, path: note } of notePathsOf(c)) {
      if (!(await opened.store.exists(note))) throw new UsageError(`Cases file ${shown}: case "${c.id}", field ${field}: there is no note "${note}" in the vault ${opened.root}.`);
    }
  }
}

async function runEvalCase(p: PreparedCase, opened: OpenedVault, io: CliIo, session: EvalSession): Promise<EvalCaseOutcome> {
  const c = p.case;
  const requests: EvalRequest[] = [];
  const base = { id: c.id, question: c.question };
  const reportedRequests = () => requests.map((r) => ({ method: r.method, url: r.url, channel: r.channel, outcome: r.outcome, ...(r.status !== undefined ? { status: r.status } : {}) }));

  const modelKeyName = secretNameFor(p.model);
  const modelKey = modelKeyName ? await envSecrets(io.env).get(modelKeyName) : null;
  const created = createChatModel(p.model, { http: recordingHttp(createFetchHttp(), "model", requests), apiKey: modelKey, timeoutMs: opened.settings.model.timeoutMs });
  if (!created.ok) {
    const envName = modelKeyName ? secretEnvNames[modelKeyName] : "the model's key";
    return { ...base, passed: false, failures: [`the model could not be set up: ${created.error.message} Set ${envName}.`], requests: [] };
  }
  const web = p.replayDir ? recordingHttp(replayHttpFromDirectory(p.replayDir, io.env), "web", requests) : recordingHttp(null, "web", requests);

  let result;
  try {
    result = await runResearch(
      {
        question: c.question,
        mode: c.mode,
        ...(c.providers ? { providers: c.providers } : {}),
        ...(c.freshness ? { freshness: c.freshness } : {}),
        ...(c.count !== undefined ? { count: c.count } : {}),
        ...(session.readPages !== undefined ? { readPages: session.readPages } : {}),
        retrievalOnly: c.retrieval_only,
        writeTrace: false,
      },
      {
        index: opened.index,
        store: opened.store,
        http: web,
        secrets: replaySecrets(modelKeyName, modelKey),
        knownSecrets: envSecretValues(io.env),
        clock: replayClock(),
        settings: opened.settings,
        model: created.model,
        modelLevers: opened.settings.model.checkVaultEvidence,
        readPage: nodePageReader,
        pageCache: session.pageCache,
      },
    );
  } catch (error) {
    return { ...base, passed: false, failures: [`the run failed: ${error instanceof Error ? error.message : String(error)}`], requests: reportedRequests() };
  }
  const failures = checkEvalCase(
    c,
    {
      pack: result.pack,
      stop_reason: result.stop_reason,
      ...(result.answer ? { answer: result.answer } : {}),
      ...(result.citations ? { citations: result.citations } : {}),
      ...(result.verification ? { verification: result.verification } : {}),
      requests,
    },
    providerHosts(opened.settings),
  );
  const pages = result.page_reads ? { pages: pageFigures(result.page_reads) } : {};
  return { ...base, passed: failures.length === 0, failures, stop_reason: result.stop_reason, verdict: result.pack.judge.verdict, ...pages, requests: reportedRequests() };
}

function pageFigures(reads: PageRead[]): EvalPageFigures {
  const count = (status: PageRead["status"]) => reads.filter((r) => r.status === status).length;
  const sum = (pick: (r: PageRead) => number) => reads.reduce((n, r) => n + pick(r), 0);
  return { read: count("read"), cached: count("cached"), skipped: count("skipped"), passages: sum((r) => r.passages_kept), chars: sum((r) => r.chars), budget_chars: sum((r) => r.budget_chars) };
}

/**
 * Records every request that passes through. `inner` null is the offline web of a case with no
 * replay folder: the request is refused (and recorded as such) instead of reaching the network.
 */
function recordingHttp(inner: Http | null, channel: EvalRequest["channel"], log: EvalRequest[]): Http {
  return {
    async request(req) {
      const entry: EvalRequest = { method: req.method, url: maskSecretParams(req.url), channel, outcome: "answered" };
      log.push(entry);
      if (!inner) {
        entry.outcome = "refused_offline";
        throw new HttpFailure("network", `Eval runs offline and this case has no replay folder; the request to ${originOf(req.url)} was not sent.`);
      }
      try {
        const response = await inner.request(req);
        entry.status = response.status;
        return response;
      } catch (error) {
        entry.outcome = error instanceof HttpFailure && error.kind === "replay_miss" ? "replay_miss" : "failed";
        throw error;
      }
    },
  };
}

/**
 * Web providers get a placeholder key: eval never reaches a live provider, so a real key is never
 * needed and never read. (Providers still insist on having one before they build a request.) The
 * model's key, which the case's model does use, is handed on so the run scrubs it from its trace.
 */
function replaySecrets(modelKeyName: ModelKeyName | null, modelKey: string | null): Secrets {
  return {
    get: async (name) => (isKeyedSourceSecret(name) ? "eval-replay-no-key" : name === modelKeyName ? modelKey : null),
  };
}

type ModelKeyName = NonNullable<ReturnType<typeof secretNameFor>>;

/**
 * Recorded answers carry no rate limit, so waiting out Brave's one-call-a-second pacing or a
 * recorded retry-after would only slow the eval down. Sleeps return at once but move this clock
 * forward, both its wall time and its monotonic reading (what durations are measured on), so the
 * rate governor and deadlines still see the time pass, and a wall clock set meanwhile moves no
 * budget. Exported for its test.
 */
export function replayClock(): Clock {
  let skipped = 0;
  return {
    now: () => Date.now() + skipped,
    monotonicNow: () => monotonicReading(systemClock) + skipped,
    sleep: async (ms, signal, kind) => {
      // A deadline races work (see Clock.sleep): it must really wait. A pacing sleep is skipped,
      // unless its signal has already aborted it.
      if (!maySkip(signal, kind)) return systemClock.sleep(ms, signal, kind);
      if (signal?.aborted) throw sleepCancelled(signal);
      skipped += Math.max(0, ms);
    },
  };
}

/** The text report: one line per case, its failures under it, then `N passed, M failed`. */
export function formatEvalReport(report: EvalReport): string {
  const lines: string[] = [`Research eval: ${report.file} over ${report.vault} (${report.cases.length} case${report.cases.length === 1 ? "" : "s"})`];
  lines.push("Web answers come only from replay folders of recorded sample exchanges; nothing went to the live web.");
  if (report.read_pages !== undefined) lines.push(`Outside pages read per run: ${report.read_pages} (--read-pages).`);
  lines.push("");
  for (const c of report.cases) {
    const web = c.requests.length === 1 ? "1 request" : `${c.requests.length} requests`;
    const pages = c.pages ? ` · pages ${c.pages.read} read, ${c.pages.cached} cached, ${c.pages.skipped} not read, ${c.pages.passages} passages (${c.pages.chars}/${c.pages.budget_chars} chars)` : "";
    const how = c.stop_reason ? `${c.verdict} · stop ${c.stop_reason} · ${web}${pages}` : `run failed · ${web}`;
    lines.push(`${c.passed ? "PASS" : "FAIL"} ${c.id} — ${how}`);
    for (const f of c.failures) lines.push(`     - ${f}`);
  }
  const pages = report.cases.map((c) => c.pages).filter((p): p is EvalPageFigures => p !== undefined);
  if (pages.length > 0) {
    const sum = (pick: (p: EvalPageFigures) => number) => pages.reduce((n, p) => n + pick(p), 0);
    lines.push("", `Pages: ${sum((p) => p.read)} read, ${sum((p) => p.cached)} from the page cache, ${sum((p) => p.skipped)} not read; ${sum((p) => p.passages)} passages kept (${sum((p) => p.chars)} of ${sum((p) => p.budget_chars)} characters of budget)`);
  }
  lines.push("", `${report.passed} passed, ${report.failed} failed`);
  return `${lines.join("\n")}\n`;
}
