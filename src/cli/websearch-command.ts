// `vault-research websearch "<q>" [--external-provider NAME]…`: asks the web sources directly and
// prints a compact, model-friendly block — numbered results (title, URL, label, one-line snippet,
// signals), then a footer: which sources were asked and how long each took, which were skipped
// and why, clamps, duplicates, warnings and failures. `--json` prints one `websearch.v1` object:
// the results as outside rows under the research pack's field names, and the same per-source
// reports. For debugging a source, a key or a replay folder without a vault.
import { outsideVaultCounter, outsideVaultLabel, providerChoiceName, rowCount } from "../evidence/labels";
import { systemClock, type Clock, type Http } from "../ports";
import type { Freshness, ProviderName, Settings } from "../settings";
import { dispatchSearch, sentTheQuery, type DispatchOutcome, type SourceReport } from "../websearch/dispatcher";
import type { MergedResult } from "../websearch/merge-results";
import { describeRoute } from "../websearch/routing";
import { signalsInWords } from "../websearch/source-signals";
import { flag, flagAll, has, UsageError, type ParsedArgs } from "./args";
import type { CommandIo } from "./cli-io";
import { readExternalFlags } from "./command-flags";
import { readSettings, requireWebSearchAllowed } from "./open-vault";
import { readQuestion } from "./question-input";
import { createFetchHttp } from "./fetch-http";
import { websearchJson } from "./json/websearch-json";
import { chooseProviders, missingKeyHint } from "./provider-choice";
import { replayNoticeLine } from "./replay-notice";
import { terminalJson, terminalText } from "./terminal-text";
import { searchSessionFor, webAccess } from "./web-access";
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
  /** Where a relative --replay folder is found (default: the process's working folder). */
  cwd?: string;
  /** Stand-in for the network (tests); replay still wins when a folder is given. */
  http?: Http;
  /** The Clock port (timings in the footer); the system clock unless a caller brings its own. */
  clock?: Clock;
}

/** `vault-research websearch`: its words and flags read into WebsearchOptions. */
export async function websearchFromArgs(args: ParsedArgs, io: CommandIo): Promise<number> {
  const query = await readQuestion(args, io);
  if (!query) throw new UsageError('websearch needs a query, e.g. vault-research websearch "automerge release" --external-provider brave');
  const settings = readSettings(args, io);
  const named = flagAll(args, "external-provider").length > 0;
  const external = readExternalFlags(args, settings);
  requireWebSearchAllowed(settings, "websearch");
  return websearchCommand(
    {
      query,
      providers: external.providers,
      providersFrom: named ? "flags" : "settings",
      freshness: external.freshness,
      count: external.count ?? settings.external.count,
      replayDir: flag(args, "replay"),
      settings,
      json: has(args, "json"),
    },
    io,
  );
}

/** Exit code: 0 when at least one provider answered (even with nothing), 1 when all failed, 2 for usage errors. */
export async function websearchCommand(opts: WebsearchOptions, io: WebsearchIo): Promise<number> {
  if (opts.query.trim() === "") {
    io.err("vault-research websearch: the query is empty.\n");
    return 2;
  }
  let web;
  try {
    web = webAccess(opts.replayDir, { env: io.env, cwd: io.cwd ?? process.cwd() }, io.http ?? createFetchHttp());
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`vault-research websearch: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  const { http, secrets, replayDir } = web;
  // Named providers are asked exactly (none named is a usage error below); else the one choice of provider-choice.ts.
  const { providers, note } = opts.providersFrom === "settings" ? await chooseProviders([], settingsWith(opts), secrets) : { providers: [...opts.providers], note: undefined };
  if (providers.length === 0) {
    io.err("vault-research websearch: name at least one provider with --external-provider (for example wikipedia, github, brave).\n");
    return 2;
  }

  const clock = io.clock ?? systemClock;
  const context = { http, secrets, clock, settings: opts.settings };
  const outcome = await dispatchSearch(providers, { query: opts.query, count: opts.count, freshness: opts.freshness }, context, searchSessionFor(web, clock));

  if (opts.json) io.out(`${terminalJson(websearchJson(opts.query, replayDir, outcome, note))}\n`);
  else io.out(toText(replayDir, outcome, note, replayDir ? {} : io.env));
  if (outcome.responses.length > 0) return 0;
  // The failures are in the output above; stderr says the run failed, whatever was printed.
  io.err(`vault-research websearch: no source answered (${outcome.errors.map((e) => `${providerChoiceName(e.provider)}: ${e.error.kind}`).join(", ") || "none was asked"}).\n`);
  return 1;
}

/** `opts.providers` (the settings' when none was named) as the settings the choice reads. */
function settingsWith(opts: WebsearchOptions): Settings {
  return { ...opts.settings, external: { ...opts.settings.external, providers: opts.providers } };
}

/** Web text is untrusted: the one terminal sanitiser, on one line. */
function printable(text: string): string {
  return terminalText(text).replace(/[\t\n]+/g, " ");
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

/** `env`: where missing keys are looked up for the CLI's hint ({} under replay, which needs none). */
function toText(replayDir: string | undefined, outcome: DispatchOutcome, note: string | undefined, env: Record<string, string | undefined>): string {
  const lines: string[] = [];
  if (replayDir) lines.push(replayNoticeLine(replayDir), "");
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
    const hint = (provider: ProviderName, kind: string) => (kind === "auth" && !replayDir ? missingKeyHint(provider, env) : null);
    lines.push(
      "Failed:",
      ...outcome.errors.map((e) => {
        const extra = hint(e.provider, e.error.kind);
        return `  ${providerChoiceName(e.provider)} (${e.error.kind}): ${oneLine(printable(e.error.message), 300)}${extra ? ` ${extra}` : ""}`;
      }),
      "",
    );
  }
  return `${lines.join("\n").trimEnd()}\n`;
}

/**
 * Sources asked (with timings), those that refused the query before sending it, skipped (with why),
 * routing reasons, clamps and duplicates. Asked is sent, as `providers_asked` in --json: Brave with no
 * key stood under "Sources asked: Brave (failed, 1 ms)" for a search that made no request.
 */
function footerLines(outcome: DispatchOutcome): string[] {
  const tried = outcome.sources.filter((s) => s.status !== "skipped");
  const asked = tried.filter(sentTheQuery);
  const unsent = tried.filter((s) => !sentTheQuery(s));
  const lines = [`Sources asked: ${asked.map(askedWords).join(" · ") || (unsent.length > 0 ? "none (nothing left the device)" : "none")}`];
  // Not "refused before sending": a source can also time out still waiting its rate turn, having sent nothing.
  if (unsent.length > 0) lines.push(`Not sent the query: ${unsent.map((s) => providerChoiceName(s.source)).join(", ")} (nothing was sent; see Failed)`);
  const skipped = outcome.sources.filter((s) => s.status === "skipped");
  if (skipped.length > 0) lines.push(`Skipped: ${skipped.map((s) => describeRoute(s.route)).join("; ")}`);
  const reasons = tried.filter((s) => s.route.reason.kind === "fits_topic" || s.route.reason.kind === "nothing_fit_better");
  if (reasons.length > 0) lines.push(`Why: ${reasons.map((s) => describeRoute(s.route)).join("; ")}`);
  if (outcome.clamps.length > 0) lines.push(`Clamps: ${outcome.clamps.map((c) => oneLine(printable(c), 200)).join("; ")}`);
  const duplicates = outcome.results.filter((r) => r.alsoFoundBy.length > 0);
  if (duplicates.length > 0) {
    lines.push(`Duplicates: ${duplicates.map((r) => `${r.rank}. ${oneLine(printable(r.title), 60)} (also: ${r.alsoFoundBy.join(", ")})`).join("; ")}`);
  }
  return lines;
}

/** "Wikipedia (3 results, 40 ms)", "Exa (failed, 8000 ms)": a source the query was sent to. */
function askedWords(s: SourceReport): string {
  const name = providerChoiceName(s.source);
  if (s.status === "answered") return `${name} (${s.cached ? "from cache, " : ""}${s.kept} result${s.kept === 1 ? "" : "s"}, ${s.ms} ms)`;
  return s.status === "failed" ? `${name} (failed, ${s.ms} ms)` : name;
}
