// `vault-research websearch "<q>" [--external-provider NAME]…`: asks the web sources directly and
// prints a compact, model-friendly block — numbered results (title, URL, label, one-line snippet,
// signals), then a footer: which sources were asked and how long each took, which were skipped
// and why, clamps, duplicates, warnings and failures. `--json` prints the normalised results and
// the same per-source reports. For debugging a source, a key or a replay folder without a vault.
import path from "node:path";
import { removeControlChars } from "../text/control-chars";
import { outsideVaultCounter, outsideVaultLabel, providerChoiceName, rowCount } from "../evidence/labels";
import { systemClock, type Clock, type Http, type SecretName, type Secrets } from "../ports";
import type { Freshness, ProviderName, Settings } from "../settings";
import { dispatchSearch, type DispatchOutcome, type SourceReport } from "../websearch/dispatcher";
import type { MergedResult } from "../websearch/merge-results";
import { describeRoute } from "../websearch/routing";
import { createSearchSession } from "../websearch/search-providers";
import { signalsInWords } from "../websearch/source-signals";
import { providersWhenAllowed, SOURCE_ACCESS } from "../websearch/source-access";
import { envSecrets } from "./env-secrets";
import { createFetchHttp } from "./fetch-http";
import { ReplayDirectoryError, replayHttpFromDirectory } from "./replay-dir";
import { oneLine } from "../text/one-line";

export interface WebsearchOptions {
  query: string;
  providers: ProviderName[];
  /**
   * `flags`: exactly the providers named (default). `settings`: none was named, so the settings'
   * providers are used — and the free set when none of them could be asked (no key is set).
   */
  providersFrom?: "flags" | "settings";
  freshness: Freshness;
  count: number;
  /** Answer from recorded exchanges instead of the network (also `VAULT_RESEARCH_REPLAY`). */
  replayDir?: string;
  settings: Settings;
  json: boolean;
}

export interface WebsearchIo {
  out(s: string): void;
  err(s: string): void;
  env: Record<string, string | undefined>;
  /** Stand-in for the network (tests); replay still wins when a folder is given. */
  http?: Http;
  /** The Clock port (timings in the footer); the system clock unless a caller brings its own. */
  clock?: Clock;
}

/** Sources that need a key: replay lends them a placeholder, since recordings need none. */
const keyedSecrets: readonly SecretName[] = ["brave", "exa", "tavily"];

/** Exit code: 0 when at least one provider answered (even with nothing), 1 when all failed, 2 for usage errors. */
export async function websearchCommand(opts: WebsearchOptions, io: WebsearchIo): Promise<number> {
  if (opts.query.trim() === "") {
    io.err("vault-research websearch: the query is empty.\n");
    return 2;
  }
  const replayDir = opts.replayDir ?? io.env.VAULT_RESEARCH_REPLAY;
  let http: Http;
  try {
    http = replayDir ? replayHttpFromDirectory(path.resolve(replayDir), io.env) : (io.http ?? createFetchHttp());
  } catch (error) {
    if (error instanceof ReplayDirectoryError) {
      io.err(`vault-research websearch: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  const secrets = replayDir ? replaySecrets(envSecrets(io.env)) : envSecrets(io.env);
  const { providers, note } = await chooseProviders(opts, secrets);
  if (providers.length === 0) {
    io.err("vault-research websearch: name at least one provider with --external-provider (for example wikipedia, github, brave).\n");
    return 2;
  }

  const clock = io.clock ?? systemClock;
  const context = { http, secrets, clock, settings: opts.settings };
  const outcome = await dispatchSearch(providers, { query: opts.query, count: opts.count, freshness: opts.freshness }, context, createSearchSession(context));

  if (opts.json) io.out(`${JSON.stringify(toJson(opts.query, replayDir, outcome, note), null, 2)}\n`);
  else io.out(toText(replayDir, outcome, note));
  return outcome.responses.length > 0 ? 0 : 1;
}

/** Recordings need no key; the keyed providers still insist on one, so replay lends a placeholder. */
function replaySecrets(env: Secrets): Secrets {
  return { get: async (name) => (await env.get(name)) ?? (keyedSecrets.includes(name) ? "replay-no-key" : null) };
}

/** The providers to ask, and a note when the free set stood in for providers with no key. */
async function chooseProviders(opts: WebsearchOptions, secrets: Secrets): Promise<{ providers: ProviderName[]; note?: string }> {
  if (opts.providersFrom !== "settings") return { providers: [...opts.providers] };
  // Only the keys of the providers in settings are looked up, and only to see whether one is set.
  const present = new Set<SecretName>();
  for (const provider of opts.providers) {
    const access = SOURCE_ACCESS[provider];
    if (access.kind === "key" && !present.has(access.secret) && (await secrets.get(access.secret))) present.add(access.secret);
  }
  const chosen = providersWhenAllowed({ ...opts.settings, external: { ...opts.settings.external, providers: opts.providers } }, (name) => present.has(name));
  if (!chosen.added) return { providers: chosen.providers };
  // The keyed providers would only fail; the free set is the default when no key is configured.
  const keyless = chosen.providers.filter((p) => !opts.providers.includes(p));
  return { providers: keyless, note: `No API key is set for ${opts.providers.map(providerChoiceName).join(", ") || "any provider"}, so the free sources were asked.` };
}

function toJson(query: string, replayDir: string | undefined, outcome: DispatchOutcome, note: string | undefined) {
  return {
    schema: "websearch.v1",
    query,
    replay: replayDir ? { dir: replayDir, note: "recorded responses, not a live search" } : null,
    ...(note ? { note } : {}),
    topics: outcome.topics,
    results: outcome.results.map((r) => ({
      label: outsideVaultLabel(r.provider, "ephemeral"),
      origin: "outside_vault",
      store: "ephemeral",
      ...r,
      signals_in_words: signalsInWords(r.signals),
    })),
    responses: outcome.responses.map((r) => ({
      provider: r.provider,
      endpoint: r.endpoint,
      ...(r.requestId ? { requestId: r.requestId } : {}),
      query: r.query,
      count: r.results.length,
      cached: r.cached === true,
      warnings: r.warnings,
    })),
    sources: outcome.sources.map(sourceJson),
    clamps: outcome.clamps,
    errors: outcome.errors.map((e) => e.error.toJSON()),
  };
}

function sourceJson(report: SourceReport) {
  const route = { ask: report.route.ask, reason: report.route.reason, in_words: describeRoute(report.route) };
  if (report.status === "skipped") return { source: report.source, status: report.status, route };
  const bounds = { timeout_ms: report.bounds.timeoutMs, max_bytes: report.bounds.maxBytes, max_results: report.bounds.maxResults, min_interval_ms: report.bounds.minIntervalMs };
  if (report.status === "failed") return { source: report.source, status: report.status, route, ms: report.ms, bounds, error: report.error.toJSON() };
  return { source: report.source, status: report.status, route, ms: report.ms, bounds, returned: report.returned, kept: report.kept, cached: report.cached };
}

/** Web text is untrusted: no terminal control sequences get through. */
function printable(text: string): string {
  return removeControlChars(text, true).replace(/[\t\r\n]+/g, " ");
}

/** Endpoint by endpoint (`--external-provider` names endpoints): "6 rows (5 from Brave, 1 from Brave Web)". */
function counter(results: MergedResult[]): string {
  const byProvider = new Map<ProviderName, number>();
  for (const r of results) byProvider.set(r.provider, (byProvider.get(r.provider) ?? 0) + 1);
  if (byProvider.size <= 1) return outsideVaultCounter(results.length, [...byProvider.keys()]);
  return `Outside vault: ${rowCount(results.length)} (${[...byProvider].map(([p, n]) => `${n} from ${providerChoiceName(p)}`).join(", ")})`;
}

/** One numbered result: title, URL, label line, one-line snippet, signals in words. */
function resultLines(r: MergedResult): string[] {
  const tags = [outsideVaultLabel(r.provider, "ephemeral")];
  if (r.alsoFoundBy.length > 0) tags.push(`also found by ${r.alsoFoundBy.map(providerChoiceName).join(", ")}`);
  if (r.publishedAt) tags.push(r.publishedAt.slice(0, 10));
  const lines = [`${r.rank}. ${oneLine(printable(r.title), 120)}`, `   ${printable(r.url)}`, `   ${tags.join(" · ")}`];
  const excerpt = [r.summary, r.snippet ?? r.highlights[0] ?? r.text].filter((t): t is string => !!t).join(" — ");
  if (excerpt) lines.push(`   ${oneLine(printable(excerpt), 240)}`);
  const signals = signalsInWords(r.signals);
  if (signals) lines.push(`   ${oneLine(printable(signals), 240)}`);
  return lines;
}

function toText(replayDir: string | undefined, outcome: DispatchOutcome, note: string | undefined): string {
  const lines: string[] = [];
  if (replayDir) lines.push(`Replay: these answers are recorded responses from ${replayDir}, not a live search.`, "");
  if (note) lines.push(note, "");
  lines.push(counter(outcome.results), "");
  for (const r of outcome.results) lines.push(...resultLines(r), "");
  lines.push(...footerLines(outcome), "");
  const warnings = outcome.responses.flatMap((r) =>
    r.warnings.filter((w) => !outcome.clamps.includes(w)).map((w) => `  ${providerChoiceName(r.provider)}: ${oneLine(printable(w), 300)}`),
  );
  const cached = outcome.responses.filter((r) => r.cached).map((r) => providerChoiceName(r.provider));
  if (cached.length > 0) warnings.push(`  ${cached.join(", ")}: answered from this session's cache`);
  if (warnings.length > 0) lines.push("Warnings:", ...warnings, "");
  if (outcome.errors.length > 0) {
    lines.push("Failed:", ...outcome.errors.map((e) => `  ${providerChoiceName(e.provider)} (${e.error.kind}): ${oneLine(printable(e.error.message), 300)}`), "");
  }
  return `${lines.join("\n").trimEnd()}\n`;
}

/** Sources asked (with timings), skipped (with why), routing reasons, clamps and duplicates. */
function footerLines(outcome: DispatchOutcome): string[] {
  const asked = outcome.sources.filter((s) => s.status !== "skipped");
  const said = asked.map((s) =>
    s.status === "answered"
      ? `${providerChoiceName(s.source)} (${s.cached ? "from cache, " : ""}${s.kept} result${s.kept === 1 ? "" : "s"}, ${s.ms} ms)`
      : `${providerChoiceName(s.source)} (failed, ${s.ms} ms)`,
  );
  const lines = [`Sources asked: ${said.join(" · ") || "none"}`];
  const skipped = outcome.sources.filter((s) => s.status === "skipped");
  if (skipped.length > 0) lines.push(`Skipped: ${skipped.map((s) => describeRoute(s.route)).join("; ")}`);
  const reasons = asked.filter((s) => s.route.reason.kind === "fits_topic" || s.route.reason.kind === "nothing_fit_better");
  if (reasons.length > 0) lines.push(`Why: ${reasons.map((s) => describeRoute(s.route)).join("; ")}`);
  if (outcome.clamps.length > 0) lines.push(`Clamps: ${outcome.clamps.map((c) => oneLine(printable(c), 200)).join("; ")}`);
  const duplicates = outcome.results.filter((r) => r.alsoFoundBy.length > 0);
  if (duplicates.length > 0) {
    lines.push(`Duplicates: ${duplicates.map((r) => `${r.rank}. ${oneLine(printable(r.title), 60)} (also: ${r.alsoFoundBy.join(", ")})`).join("; ")}`);
  }
  return lines;
}
