// `vault-research research "<question>"`: one research run over a folder of markdown, printed as
// text a person reads (answer, then labelled evidence, then where the trace is) or as one
// `research_result.v1` object. The trace goes into the vault only when asked (--trace, or the
// config's notes.writeTraceNotes); otherwise it is kept in the cache folder (kept-trace.ts).
// Ctrl-C stops the run gently (exit 130): what it found is printed, its trace kept in the cache folder.
import path from "node:path";
import { warningsToShow, type Citation, type OutsideVaultRow } from "../evidence/research-pack";
import { alsoFoundByLabel, outsideVaultCounter, providerDisplayName, savedPageLabel, vaultEvidenceCounter } from "../evidence/labels";
import { webOutcomeOfTrace, webOutcomeSaysMore, webOutcomeSentence } from "../notes/web-outcome";
import { runResearch } from "../research/run";
import type { DialLevel, DialNotice } from "../index/dial/dial-types";
import type { ProgressEvent, ResearchDial, ResearchResult } from "../research/types";
import { researchLogEntry } from "../research/research-log-entry";
import { createChatModel, modelConfigFromSettings, parseModelSpec, secretNameFor } from "../llm/model-spec";
import { systemClock } from "../ports";
import type { ProviderName, Settings } from "../settings";
import { errorMessage } from "../text/error-message";
import { oneLine } from "../text/one-line";
import { flag, has, UsageError, type ParsedArgs } from "./args";
import { readExternalFlags } from "./command-flags";
import { chattiness, type CommandIo } from "./cli-io";
import { nodePageReader } from "./dom-parser";
import { envSecretValues, secretEnvNames } from "./env-secrets";
import { createFetchHttp } from "./fetch-http";
import { defaultCacheDir } from "./file-index-cache";
import { providersAsked, researchResultJson, type SearchLevelRun, type TraceKept } from "./json/research-result-json";
import { keepTrace, keptTraceFolder } from "./kept-trace";
import { configAsWritten, openVault, readSettings, requireWebSearchAllowed, type OpenedVault } from "./open-vault";
import { chooseProviders, missingKeyHint } from "./provider-choice";
import { readQuestion } from "./question-input";
import { replayNoticeLine } from "./replay-notice";
import { levelWords, noticeLines, openDial, readEmbedConfig, readLevel, shownNotices, type DialChoice } from "./search-dial";
import { terminalJson, visibleName } from "./terminal-text";
import { styled, type StyledText } from "./terminal-style";
import { searchSessionFor, webAccess, type WebAccess } from "./web-access";

export { readExternalFlags, RESEARCH_FLAGS, type ResearchCliOptions } from "./command-flags";

/** Where the run's trace goes: a note in the vault, a file in the cache folder, or nowhere (--no-trace). */
export type TraceDestination = "vault" | "cache" | "none";

export function traceDestination(args: ParsedArgs, settings: Settings): TraceDestination {
  if (has(args, "trace") && has(args, "no-trace")) throw new UsageError("--trace and --no-trace cannot both be given.");
  if (has(args, "no-trace")) return "none";
  if (has(args, "trace")) return "vault";
  // The config's setting counts only when the file sets it: the CLI writes into a folder only when asked.
  const written = configAsWritten(settings) as { notes?: { writeTraceNotes?: unknown } } | undefined;
  return written?.notes?.writeTraceNotes === true ? "vault" : "cache";
}

export interface ResearchCommandHooks {
  /** Aborting it is Ctrl-C (tests); the command also listens for SIGINT itself while the run goes. */
  stop?: AbortSignal;
}

export async function researchCommand(args: ParsedArgs, io: CommandIo, hooks: ResearchCommandHooks = {}): Promise<number> {
  const question = await readQuestion(args, io);
  if (!question) throw new UsageError('research needs a question, e.g. vault-research research "what did we decide about sync?" --vault DIR');
  // Every flag is checked before the vault is indexed: a typo should not cost an indexing run.
  const settings = readSettings(args, io);
  const external = readExternalFlags(args, settings);
  if (external.mode !== "never") requireWebSearchAllowed(settings, `--external-search ${external.mode}`);
  else if (!has(args, "quiet")) noteWebFlagsUnused(args, io);
  const destination = traceDestination(args, settings);
  const modelSpec = flag(args, "model");
  const config = modelSpec ? parseModelSpec(modelSpec) : { ok: true as const, config: modelConfigFromSettings(settings.model) };
  if (!config.ok) throw new UsageError(config.error.message);
  const dialChoice: DialChoice = { level: readLevel(args, settings, "research"), embed: readEmbedConfig(args, settings), model: config.config };
  const web = webAccess(flag(args, "replay"), io);
  const opened = await openVault(args, io, settings);
  const secretName = secretNameFor(config.config);
  const apiKey = secretName ? await web.secrets.get(secretName) : null;
  const created = createChatModel(config.config, { http: createFetchHttp(), apiKey, timeoutMs: opened.settings.model.timeoutMs });
  if (!created.ok) throw new UsageError(`${created.error.message} Set ${secretEnvNames[secretName ?? "openai"]}.`);
  // A run that may not look outside asks no source, so no key is even looked up for the choice.
  const choice = external.mode === "never" ? { providers: external.providers } : await chooseProviders(external.namedProviders, settings, web.secrets);

  const json = has(args, "json");
  const talk = chattiness(io, { quiet: has(args, "quiet"), noColor: has(args, "no-color") });
  const dial = await researchDial(dialChoice, io, opened);
  const stop = stopOnCtrlC(io, talk.progress, hooks.stop);
  const result = await runResearch(
    { question, mode: external.mode, providers: choice.providers, freshness: external.freshness, count: external.count, readPages: external.readPages, retrievalOnly: has(args, "retrieval-only"), writeTrace: destination === "vault" },
    {
      index: opened.index,
      store: opened.store,
      http: web.http,
      secrets: web.secrets,
      knownSecrets: envSecretValues(io.env),
      clock: io.clock ?? systemClock,
      settings: opened.settings,
      model: created.model,
      modelLevers: opened.settings.model.checkVaultEvidence,
      readPage: nodePageReader,
      fetchGuard: web.fetchGuard,
      searchSession: searchSessionFor(web, io.clock ?? systemClock),
      onProgress: talk.progress && !json ? (e) => io.errStyled(progressLine(e)) : undefined,
      dial: dial.deps,
      signal: stop.signal,
      // Into the trace, so into its note and the notes promoted from it: named, never the machine's path.
      ...(web.replayShown ? { replayedFrom: web.replayShown } : {}),
    },
  ).finally(stop.done);
  const stopped = stop.signal.aborted;
  await dial.log(question, result);
  const kept = await keepTraceAsChosen(result, destination, opened, args, io);
  if (json) io.out(`${terminalJson(researchResultJson(result, kept, web.replayDir, dial.seen()))}\n`);
  else io.out(formatResearchText(result, web.replayDir, { ...kept, providersNote: providersAsked(result.trace).length > 0 ? choice.note : undefined, searchLevel: dial.seen() }));
  printMissingKeyHints(result, web, io);
  // Stopped, not failed (as every command's help says): what it found is printed and its trace kept.
  if (stopped) return 130;
  if (traceNoteAsAsked(destination === "vault", result)) return 0;
  for (const w of result.pack.warnings.filter((w) => w.kind === "trace_not_written")) io.err(`vault-research research: ${w.message}\n`);
  return 1;
}

/** The flags that shape a look outside the vault: with --external-search never, none of them does anything. */
const WEB_ONLY_FLAGS = ["external-provider", "external-freshness", "external-count", "read-pages"] as const;

/**
 * `--external-provider brave` without `--external-search`: the web stays off (the default), and the
 * text said only "Outside vault: 0 rows", which reads as Brave having found nothing.
 */
function noteWebFlagsUnused(args: ParsedArgs, io: CommandIo): void {
  const given = WEB_ONLY_FLAGS.filter((name) => has(args, name));
  if (given.length === 0) return;
  const named = given.map((name) => `--${name}`).join(", ");
  io.err(`note: web search is off for this run (--external-search never, the default), so ${named} ${given.length === 1 ? "does" : "do"} nothing; add --external-search on-weak or always to search the web.\n`);
}

/**
 * The first Ctrl-C stops the run gently: it ends within the stage runner's grace with what it found,
 * which is printed, and its trace is kept in the cache folder (no note goes into the vault: stop means
 * stop). A second Ctrl-C is Node's own (temporary-files.ts): the process ends at once. `done` stops listening.
 */
function stopOnCtrlC(io: CommandIo, talk: boolean, hook?: AbortSignal): { signal: AbortSignal; done: () => void } {
  const controller = new AbortController();
  const stop = (): void => {
    if (talk) io.err("Stopping the run; what it found so far follows. Press Ctrl-C again to quit at once.\n");
    controller.abort();
  };
  process.once("SIGINT", stop);
  if (hook?.aborted) stop();
  else hook?.addEventListener("abort", stop, { once: true });
  return {
    signal: controller.signal,
    done: () => {
      process.removeListener("SIGINT", stop);
      hook?.removeEventListener("abort", stop);
    },
  };
}

interface ResearchDialUse {
  deps: ResearchDial;
  /** Logs the run's question with the level that ran and the notes of its pack. */
  log: (question: string, result: ResearchResult) => Promise<void>;
  /** The level asked and run, when the dial was set above 1. */
  seen: () => SearchLevelRun | null;
}

/**
 * The dial for the run's local retrieval (--level, else settings.search.researchLevel) and the
 * query log the run's question goes to, with the level that ran and the notes the pack holds.
 */
async function researchDial(choice: DialChoice, io: CommandIo, opened: OpenedVault): Promise<ResearchDialUse> {
  const level = choice.level;
  const openedDial = await openDial(opened, choice, { surface: "research", log: false, env: io.env, clock: io.clock });
  let ranLevel: DialLevel = 1;
  let notices: DialNotice[] = [];
  const watched: ResearchDial["search"] = {
    search: async (request) => {
      const answer = await openedDial.search.search(request);
      ranLevel = answer.ranLevel;
      notices = answer.notices;
      return answer;
    },
  };
  // In search's words (shownNotices), here and in the pack: vectors that could not be read are said as such, not "none yet, embed first".
  const sayNotices = (dialNotices: readonly DialNotice[]) => shownNotices(dialNotices, openedDial);
  const seen = (): SearchLevelRun | null => (level === 1 ? null : { level, ranLevel, notices: sayNotices(notices) });
  // The pack's words reach the trace note in the vault, which never names a place on this machine:
  // vectors that could not be read were named by their absolute path there. The terminal keeps it.
  const sayNoticesInNotes = (dialNotices: readonly DialNotice[]) =>
    sayNotices(dialNotices).map((n) => ({ ...n, message: n.message.split(opened.cache.folder).join("the vault's cache folder") }));
  const log = async (question: string, result: ResearchResult): Promise<void> => {
    const entry = researchLogEntry(question, { level, ranLevel }, result, "research");
    if (!entry) return;
    await openedDial.queryLog.recordSearch(entry);
    if (openedDial.queryLog.problem) io.err(`warning: ${openedDial.queryLog.problem}\n`);
  };
  return { deps: { search: watched, level, embedder: openedDial.embedder, sayNotices: sayNoticesInNotes }, log, seen };
}

/**
 * The trace note is indexed-around (the trace folder is excluded) or the trace is kept in the cache
 * folder — also when a trace note was asked for and could not be written: the run still fails
 * (exit 1), but its outside rows can be promoted from the kept trace rather than lost with it.
 */
async function keepTraceAsChosen(result: ResearchResult, destination: TraceDestination, opened: OpenedVault, args: ParsedArgs, io: CommandIo): Promise<TraceKept> {
  if (result.trace_path) {
    await opened.index.updateFile(opened.store, result.trace_path);
    return { tracePath: result.trace_path };
  }
  if (destination === "none") return {};
  const cacheDir = path.resolve(io.cwd, flag(args, "cache-dir") ?? defaultCacheDir(io.env));
  try {
    return { traceFile: await keepTrace(keptTraceFolder(cacheDir, opened.root), result.trace) };
  } catch (error) {
    io.err(`warning: the run's trace could not be kept in ${cacheDir} (${errorMessage(error)}).\n`);
    return {};
  }
}

/**
 * A source refused for want of a key gets the CLI's hint (the websearch layer names no variables).
 * Read from the trace's failures of the `auth` kind, each naming its source: such a source sends
 * nothing, so it is in no list of the sources sent the query (`providers_asked`).
 */
function printMissingKeyHints(result: ResearchResult, web: WebAccess, io: CommandIo): void {
  if (web.replayDir) return;
  const refused = result.trace.errors.flatMap((e) => (e.stage === "external_retrieval" && e.kind === "auth" && e.provider !== undefined ? [e.provider] : []));
  const hints = new Set(refused.flatMap((p) => missingKeyHint(p as ProviderName, io.env) ?? []));
  for (const hint of hints) io.err(`hint: ${hint}\n`);
}

/**
 * A run asked to leave a trace note that could not write one failed at something it was asked to
 * do: the CLI has no panel to show the warning in, so a script must see it in the exit code.
 */
function traceNoteAsAsked(writeTrace: boolean, result: ResearchResult): boolean {
  if (!writeTrace || result.trace_path) return true;
  return !result.pack.warnings.some((w) => w.kind === "trace_not_written");
}

function progressLine(e: ProgressEvent): StyledText {
  if (e.status === "started") return [styled("dim", `… ${e.detail}`), "\n"];
  const detail = whoseDetail(e);
  if (e.status === "failed") return [styled("fail", "✗"), ` ${e.provider ? detail : `${e.stage.replace(/_/g, " ")}: ${detail}`}\n`];
  // The user's own Ctrl-C: said as a stop, not marked as a failure.
  if (e.status === "stopped") return [styled("dim", "■"), ` ${detail}\n`];
  if (e.status === "skipped") return [styled("dim", `- ${detail}`), "\n"];
  // Part of it failed (one of two sources): a green tick said it went well, where the panel says "partly failed".
  if (e.status === "partial") return [styled("warn", "!"), ` ${detail}\n`];
  return [styled("ok", "✓"), ` ${detail}\n`];
}

/**
 * A web source's outcome says whose it is ("GitHub: 2 results"): two sources' lines read "✓ 2 results",
 * "✓ 1 result", and nothing told which found what. A source's opening and waiting words name it already.
 */
function whoseDetail(e: ProgressEvent): string {
  return e.provider ? `${providerDisplayName(e.provider)}: ${e.detail}` : e.detail;
}

/** Where the trace went, and a note on the sources asked, for the text output. */
export interface ResearchTextExtras extends TraceKept {
  providersNote?: string;
  /** The search dial's level, when it was set above 1. */
  searchLevel?: SearchLevelRun | null;
}

/** What a person reads: the answer, the evidence in two labelled groups, the trace note. */
export function formatResearchText(result: ResearchResult, replayDir?: string, extras: ResearchTextExtras = {}): string {
  const { pack } = result;
  const lines: string[] = [];
  if (replayDir) lines.push(replayNoticeLine(replayDir), "");
  if (extras.providersNote) lines.push(extras.providersNote, "");
  lines.push(`Question: ${pack.question}`, "");
  if (result.answer) {
    if (!result.answer.verified) {
      lines.push("UNVERIFIED ANSWER — its citations did not check out:");
      for (const e of result.verification?.errors ?? []) lines.push(`  - ${e.message}`);
      lines.push("");
    }
    lines.push(result.answer.text.trim(), "");
    if (result.citations && result.citations.length > 0) {
      lines.push("Sources cited:");
      for (const c of result.citations) lines.push(`  [${c.source_key}] ${citationTarget(c, result)}`);
      lines.push("");
    }
  } else {
    lines.push(`No answer was written (${result.stop_reason.replace(/_/g, " ")}).`, "");
  }
  lines.push(`Judge: ${pack.judge.verdict.replace(/_/g, " ")} — ${pack.judge.reason}`, "");
  lines.push(...searchLevelLines(extras.searchLevel));
  lines.push(vaultEvidenceCounter(pack.evidence.length));
  pack.evidence.forEach((row, i) => {
    const heading = row.sections[0]?.heading ? ` § ${row.sections[0].heading}` : "";
    lines.push(`  ${i + 1}. [${row.source_key}] ${visibleName(row.title)} — ${visibleName(row.note_path)}${heading}`);
    if (row.saved_from !== undefined) lines.push(`     ${visibleName(savedPageLabel(row.saved_from))}`);
    if (row.also_found_by?.length) lines.push(`     ${alsoFoundByLabel(row.also_found_by)}`);
  });
  const providers = Array.from(new Set(pack.external_evidence.map((r) => r.provider)));
  lines.push(outsideVaultCounter(pack.external_evidence.length, providers));
  lines.push(...webOutcomeLines(result));
  pack.external_evidence.forEach((row, i) => {
    lines.push(`  ${i + 1}. [${row.source_key}] ${visibleName(row.title)} — ${visibleName(row.domain)}${row.published_at ? ` (${row.published_at.slice(0, 10)})` : ""}`);
    lines.push(`     ${row.label}`);
    lines.push(`     ${row.url}`);
    lines.push(...pageReadLines(result, row));
  });
  const warnings = warningsToShow(result.stop_reason, pack.warnings);
  if (warnings.length > 0) {
    lines.push("", "Warnings:");
    for (const w of warnings) lines.push(`  - ${w.message}`);
  }
  lines.push("", `Stop reason: ${result.stop_reason}`);
  lines.push(traceLine(result, extras, pack.warnings.some((w) => w.kind === "trace_not_written")));
  return `${lines.join("\n")}\n`;
}

/**
 * Under the outside counter, how the web search went, in the trace note's and the panel's words
 * (notes/web-outcome.ts): "Outside vault: 0 rows" said the same of a search every source failed, one
 * stopped before any answered, and one that found nothing. Nothing for a run not allowed the web (the
 * default), nor for rows found with no source failing: the counter says it all.
 */
function webOutcomeLines(result: ResearchResult): string[] {
  if (!result.trace) return [];
  // Read with the pack printed above it (the trace's is a bounded copy).
  const outcome = webOutcomeOfTrace({ ...result.trace, pack: result.pack });
  return outcome.kind !== "not_allowed" && webOutcomeSaysMore(outcome) ? [`  ${webOutcomeSentence(outcome)}`] : [];
}

/** Nothing at level 1 (the output people and scripts know); above it, the level that ran and why it ran lower. */
function searchLevelLines(run: SearchLevelRun | null | undefined): string[] {
  if (!run) return [];
  const asked = run.ranLevel === run.level ? "" : `; ${levelWords(run.level)} was asked`;
  return [`Vault searched at ${levelWords(run.ranLevel)}${asked}.`, ...noticeLines(run.notices), ""];
}

/** What page reading made of a row, under it: "page read · 3 passages" and each passage, or why it was not read. */
function pageReadLines(result: ResearchResult, row: OutsideVaultRow): string[] {
  const read = result.page_reads?.find((r) => r.source_key === row.source_key);
  if (!read) return [];
  if (read.status === "skipped") return [`     page not read: ${read.message ?? "no reason given"}`];
  const passages = row.content_sections.filter((s) => s.fetched && s.role === "external_text");
  const head = `     page read${read.status === "cached" ? " (from the cache)" : ""} · ${passages.length} passage${passages.length === 1 ? "" : "s"}`;
  return [
    head,
    ...passages.map((s) => `       ${s.heading_path?.length ? `§ ${s.heading_path.map((h) => oneLine(h)).join(" › ")} ` : ""}(${s.start}–${s.end}): ${oneLine(s.text, 90)}`),
  ];
}

function traceLine(result: ResearchResult, kept: TraceKept, noteFailed: boolean): string {
  if (result.trace_path) return `Trace note: ${result.trace_path}`;
  if (kept.traceFile && noteFailed) return `Trace note: not written; the trace is kept outside the vault in ${kept.traceFile} (promote --trace takes it)`;
  if (kept.traceFile) return `Trace: kept outside the vault in ${kept.traceFile} (--trace writes it as a note; promote --trace takes either)`;
  return "Trace note: not written";
}

function citationTarget(c: Citation, result: ResearchResult): string {
  if (c.origin === "vault") return c.note_path ?? "";
  const row = result.pack.external_evidence.find((r) => r.source_key === c.source_key);
  return `${c.url ?? ""}${row ? ` (${row.label})` : ""}`;
}
