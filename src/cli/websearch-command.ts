// `vault-research websearch "<q>" --external-provider NAME…`: asks the web search providers
// directly and prints their normalised results — for debugging a provider, a key or a replay
// folder without a vault. Every row is labelled as outside the vault.
import path from "node:path";
import { removeControlChars } from "../text/control-chars";
import { outsideVaultCounter, outsideVaultLabel, providerChoiceName, rowCount } from "../evidence/labels";
import { systemClock, type Http } from "../ports";
import type { Freshness, ProviderName, Settings } from "../settings";
import { searchProviders, type MergedResult, type MultiSearchResult } from "../websearch/search-providers";
import { envSecrets } from "./env-secrets";
import { createFetchHttp } from "./fetch-http";
import { ReplayDirectoryError, replayHttpFromDirectory } from "./replay-dir";
import { oneLine } from "../text/one-line";

export interface WebsearchOptions {
  query: string;
  providers: ProviderName[];
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
}

/** Exit code: 0 when at least one provider answered (even with nothing), 1 when all failed, 2 for usage errors. */
export async function websearchCommand(opts: WebsearchOptions, io: WebsearchIo): Promise<number> {
  if (opts.query.trim() === "") {
    io.err("vault-research websearch: the query is empty.\n");
    return 2;
  }
  if (opts.providers.length === 0) {
    io.err("vault-research websearch: name at least one provider with --external-provider (brave, brave-web, exa).\n");
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

  // Recordings need no key; the providers still insist on one, so replay lends a placeholder.
  const env = envSecrets(io.env);
  const secrets = replayDir ? { get: async (name: Parameters<typeof env.get>[0]) => (await env.get(name)) ?? "replay-no-key" } : env;

  const outcome = await searchProviders(
    opts.providers,
    { query: opts.query, count: opts.count, freshness: opts.freshness },
    { http, secrets, clock: systemClock, settings: opts.settings },
  );

  if (opts.json) io.out(`${JSON.stringify(toJson(opts.query, replayDir, outcome), null, 2)}\n`);
  else io.out(toText(replayDir, outcome));
  return outcome.responses.length > 0 ? 0 : 1;
}

function toJson(query: string, replayDir: string | undefined, outcome: MultiSearchResult) {
  return {
    query,
    replay: replayDir ? { dir: replayDir, note: "recorded responses, not a live search" } : null,
    results: outcome.results.map((r) => ({
      label: outsideVaultLabel(r.provider, "ephemeral"),
      origin: "outside_vault",
      store: "ephemeral",
      ...r,
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
    errors: outcome.errors.map((e) => e.error.toJSON()),
  };
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

function toText(replayDir: string | undefined, outcome: MultiSearchResult): string {
  const lines: string[] = [];
  if (replayDir) lines.push(`Replay: these answers are recorded responses from ${replayDir}, not a live search.`, "");
  lines.push(counter(outcome.results), "");
  for (const r of outcome.results) {
    const tags = [outsideVaultLabel(r.provider, "ephemeral")];
    if (r.alsoFoundBy.length > 0) tags.push(`also found by ${r.alsoFoundBy.map(providerChoiceName).join(", ")}`);
    if (r.publishedAt) tags.push(r.publishedAt.slice(0, 10));
    lines.push(`${r.rank}. ${oneLine(printable(r.title), 120)}`, `   ${printable(r.url)}`, `   ${tags.join(" · ")}`);
    const excerpt = r.snippet ?? r.highlights[0] ?? r.text;
    if (excerpt) lines.push(`   ${oneLine(printable(excerpt), 240)}`);
    lines.push("");
  }
  const warnings = outcome.responses.flatMap((r) => r.warnings.map((w) => `  ${providerChoiceName(r.provider)}: ${oneLine(printable(w), 300)}`));
  const cached = outcome.responses.filter((r) => r.cached).map((r) => providerChoiceName(r.provider));
  if (cached.length > 0) warnings.push(`  ${cached.join(", ")}: answered from this session's cache`);
  if (warnings.length > 0) lines.push("Warnings:", ...warnings, "");
  if (outcome.errors.length > 0) {
    lines.push("Failed:", ...outcome.errors.map((e) => `  ${providerChoiceName(e.provider)} (${e.error.kind}): ${oneLine(printable(e.error.message), 300)}`), "");
  }
  return `${lines.join("\n").trimEnd()}\n`;
}
