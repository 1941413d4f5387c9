// `vault-research research "<question>"`: one research run over a folder of markdown, printed as
// text a person reads (answer, then labelled evidence, then the trace note's path) or as JSON.
import path from "node:path";
import type { Citation, OutsideVaultRow } from "../evidence/research-pack";
import { alsoFoundByLabel, outsideVaultCounter, vaultEvidenceCounter } from "../evidence/labels";
import { runResearch } from "../research/run";
import type { ProgressEvent, ResearchResult } from "../research/types";
import { createChatModel, modelConfigFromSettings, parseModelSpec, secretNameFor } from "../llm/model-spec";
import { systemClock, type Http, type Secrets } from "../ports";
import { externalModes, freshnessSchema, providerNames, type ExternalMode, type Freshness, type ProviderName, type Settings } from "../settings";
import type { FetchGuardOptions } from "../promote/fetch-guard";
import { oneLine } from "../text/one-line";
import { flag, flagAll, has, intFlag, UsageError, type FlagSpecs, type ParsedArgs } from "./args";
import { dnsResolveHost } from "./dns-resolver";
import { nodePageReader } from "./dom-parser";
import { envSecrets } from "./env-secrets";
import { createFetchHttp } from "./fetch-http";
import { ReplayDirectoryError, replayHttpFromDirectory } from "./replay-dir";
import { openVault, readSettings, type CliIo } from "./open-vault";
import { terminalJson } from "./terminal-text";

export const RESEARCH_FLAGS: FlagSpecs = {
  "external-search": { value: true },
  "external-provider": { value: true, repeat: true },
  "external-freshness": { value: true },
  "external-count": { value: true },
  "retrieval-only": { value: false },
  "read-pages": { value: true },
  replay: { value: true },
  model: { value: true },
  "no-trace": { value: false },
};

/** Parsed research options shared by `research` and `eval`. */
export interface ResearchCliOptions {
  mode: ExternalMode;
  providers: ProviderName[];
  freshness: Freshness;
  count?: number;
  /** Outside pages to read, 0–5 (`--read-pages`; default: the settings'). */
  readPages?: number;
}

export function readExternalFlags(args: ParsedArgs, settings: Settings): ResearchCliOptions {
  const modeRaw = flag(args, "external-search") ?? "never";
  if (!(externalModes as readonly string[]).includes(modeRaw)) throw new UsageError(`--external-search must be one of ${externalModes.join(", ")} (got "${modeRaw}").`);
  const providers = flagAll(args, "external-provider");
  for (const p of providers) {
    if (!(providerNames as readonly string[]).includes(p)) throw new UsageError(`Unknown provider "${p}". Providers: ${providerNames.join(", ")}.`);
  }
  const freshnessRaw = flag(args, "external-freshness") ?? settings.external.freshness;
  const freshness = freshnessSchema.safeParse(freshnessRaw);
  if (!freshness.success) throw new UsageError(`--external-freshness must be any, pd, pw, pm, py or YYYY-MM-DDtoYYYY-MM-DD (got "${freshnessRaw}").`);
  return {
    mode: modeRaw as ExternalMode,
    providers: providers.length > 0 ? (providers as ProviderName[]) : settings.external.providers,
    freshness: freshness.data,
    count: intFlag(args, "external-count", 1, 10),
    readPages: intFlag(args, "read-pages", 0, 5),
  };
}

export interface RunEnvironment {
  webHttp: Http;
  modelHttp: Http;
  secrets: Secrets;
  /** Page fetches look names up only when they go to the network; replay never resolves anything. */
  fetchGuard: FetchGuardOptions;
  replayDir?: string;
}

/** Http for web search (replay when asked), Http for the model (always the network), secrets. */
export function runEnvironment(args: ParsedArgs, io: CliIo): RunEnvironment {
  const replayDir = flag(args, "replay") ?? io.env.VAULT_RESEARCH_REPLAY;
  const env = envSecrets(io.env);
  if (!replayDir) return { webHttp: createFetchHttp(), modelHttp: createFetchHttp(), secrets: env, fetchGuard: { resolve: dnsResolveHost } };
  const dir = path.resolve(io.cwd, replayDir);
  let webHttp: Http;
  try {
    webHttp = replayHttpFromDirectory(dir, io.env);
  } catch (error) {
    if (error instanceof ReplayDirectoryError) throw new UsageError(error.message);
    throw error;
  }
  // Recordings need no key; providers still insist on one, so replay lends a placeholder.
  const secrets: Secrets = {
    get: async (name) => (await env.get(name)) ?? (name === "brave" || name === "exa" ? "replay-no-key" : null),
  };
  return { webHttp, modelHttp: createFetchHttp(), secrets, fetchGuard: {}, replayDir };
}

export async function researchCommand(args: ParsedArgs, io: CliIo): Promise<number> {
  const question = args.positionals.join(" ").trim();
  if (!question) throw new UsageError('research needs a question, e.g. vault-research research "what did we decide about sync?" --vault DIR');
  // Every flag is checked before the vault is indexed: a typo should not cost an indexing run.
  const settings = readSettings(args, io);
  const external = readExternalFlags(args, settings);
  const modelSpec = flag(args, "model");
  const config = modelSpec ? parseModelSpec(modelSpec) : { ok: true as const, config: modelConfigFromSettings(settings.model) };
  if (!config.ok) throw new UsageError(config.error.message);
  const runEnv = runEnvironment(args, io);
  const opened = await openVault(args, io, settings);
  const secretName = secretNameFor(config.config);
  const apiKey = secretName ? await runEnv.secrets.get(secretName) : null;
  const created = createChatModel(config.config, { http: runEnv.modelHttp, apiKey, timeoutMs: opened.settings.model.timeoutMs });
  if (!created.ok) throw new UsageError(`${created.error.message} Set ${secretName === "anthropic" ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY"}.`);

  const json = has(args, "json");
  const writeTrace = has(args, "no-trace") ? false : opened.settings.notes.writeTraceNotes;
  const result = await runResearch(
    {
      question,
      mode: external.mode,
      providers: external.providers,
      freshness: external.freshness,
      count: external.count,
      readPages: external.readPages,
      retrievalOnly: has(args, "retrieval-only"),
      writeTrace,
    },
    {
      index: opened.index,
      store: opened.store,
      http: runEnv.webHttp,
      secrets: runEnv.secrets,
      clock: io.clock ?? systemClock,
      settings: opened.settings,
      model: created.model,
      readPage: nodePageReader,
      fetchGuard: runEnv.fetchGuard,
      onProgress: json ? undefined : (e) => io.err(progressLine(e)),
    },
  );
  if (result.trace_path) await opened.index.updateFile(opened.store, result.trace_path);
  if (json) io.out(`${terminalJson(researchJson(result, runEnv.replayDir))}\n`);
  else io.out(formatResearchText(result, runEnv.replayDir));
  return traceNoteAsAsked(writeTrace, result) ? 0 : 1;
}

/**
 * A run asked to leave a trace note that could not write one failed at something it was asked to
 * do: the CLI has no panel to show the warning in, so a script must see it in the exit code.
 */
function traceNoteAsAsked(writeTrace: boolean, result: ResearchResult): boolean {
  if (!writeTrace || result.trace_path) return true;
  return !result.pack.warnings.some((w) => w.kind === "trace_not_written");
}

/** The `--json` object of DESIGN.md. */
export function researchJson(result: ResearchResult, replayDir?: string) {
  const out: Record<string, unknown> = { pack: result.pack };
  if (result.answer) out.answer = result.answer;
  if (result.citations) out.citations = result.citations;
  if (result.verification) out.verification = result.verification;
  out.stop_reason = result.stop_reason;
  if (result.trace_path) out.trace_path = result.trace_path;
  if (result.page_reads) out.page_reads = result.page_reads;
  if (replayDir) out.replay = { dir: replayDir, note: "Web results are recorded sample responses replayed from this folder, not a live search." };
  return out;
}

function progressLine(e: ProgressEvent): string {
  if (e.status === "started") return `… ${e.detail}\n`;
  if (e.status === "failed") return `✗ ${e.stage.replace(/_/g, " ")}: ${e.detail}\n`;
  if (e.status === "skipped") return `- ${e.detail}\n`;
  return `✓ ${e.detail}\n`;
}

/** What a person reads: the answer, the evidence in two labelled groups, the trace note. */
export function formatResearchText(result: ResearchResult, replayDir?: string): string {
  const { pack } = result;
  const lines: string[] = [];
  if (replayDir) lines.push(`Note: web results below are recorded sample responses replayed from ${replayDir}, not a live search.`, "");
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
  lines.push(vaultEvidenceCounter(pack.evidence.length));
  pack.evidence.forEach((row, i) => {
    const heading = row.sections[0]?.heading ? ` § ${row.sections[0].heading}` : "";
    lines.push(`  ${i + 1}. [${row.source_key}] ${row.title} — ${row.note_path}${heading}`);
    if (row.also_found_by?.length) lines.push(`     ${alsoFoundByLabel(row.also_found_by)}`);
  });
  const providers = Array.from(new Set(pack.external_evidence.map((r) => r.provider)));
  lines.push(outsideVaultCounter(pack.external_evidence.length, providers));
  pack.external_evidence.forEach((row, i) => {
    lines.push(`  ${i + 1}. [${row.source_key}] ${row.title} — ${row.domain}${row.published_at ? ` (${row.published_at.slice(0, 10)})` : ""}`);
    lines.push(`     ${row.label}`);
    lines.push(`     ${row.url}`);
    lines.push(...pageReadLines(result, row));
  });
  if (pack.warnings.length > 0) {
    lines.push("", "Warnings:");
    for (const w of pack.warnings) lines.push(`  - ${w.message}`);
  }
  lines.push("", `Stop reason: ${result.stop_reason}`);
  lines.push(result.trace_path ? `Trace note: ${result.trace_path}` : "Trace note: not written");
  return `${lines.join("\n")}\n`;
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

function citationTarget(c: Citation, result: ResearchResult): string {
  if (c.origin === "vault") return c.note_path ?? "";
  const row = result.pack.external_evidence.find((r) => r.source_key === c.source_key);
  return `${c.url ?? ""}${row ? ` (${row.label})` : ""}`;
}
