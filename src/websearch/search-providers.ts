// One search across several providers at once. Each provider runs under its own deadline; one
// failing never spoils the others; the same page found twice becomes one result that remembers
// who else found it.
import { canonicalizeUrl } from "./canonical-url";
import { DeadlineMissed, withDeadline } from "../deadline";
import { RateGovernor } from "./rate-governor";
import { PROVIDER_NAMES } from "../provider-names";
import { createProviderRegistry, type ProviderRegistry } from "./registry";
import { resolveSearchRequest } from "./request-limits";
import { SearchCache, stableKey } from "./search-cache";
import {
  ProviderError,
  type ProviderContext,
  type ProviderName,
  type ProviderResponse,
  type ProviderResult,
  type SearchRequest,
} from "./types";

/** A page as the run shows it: found first by `provider`, possibly by others too. */
export interface MergedResult extends ProviderResult {
  provider: ProviderName;
  /** "Brave": for the `Outside vault · Brave · ephemeral` label. */
  providerLabel: string;
  /** Other providers that returned the same canonical URL, in the order asked. */
  alsoFoundBy: ProviderName[];
  /** Position in the provider's own answer (`rank` is the position in the merged list). */
  providerRank: number;
}

export interface ProviderFailure {
  provider: ProviderName;
  error: ProviderError;
}

export interface MultiSearchResult {
  /** Answers in the order the providers were asked (failed ones left out). */
  responses: ProviderResponse[];
  errors: ProviderFailure[];
  /**
   * Every distinct page, interleaved by rank across providers (1st of each, then 2nd of each…).
   * Not cut to `count`: the caller first drops pages the vault already holds, then takes `count`.
   */
  results: MergedResult[];
}

/** What outlives one run: the registry, the answer cache and the rate governor. */
export interface SearchSession {
  registry: ProviderRegistry;
  cache: SearchCache;
  governor: RateGovernor;
}

export function createSearchSession(context: Pick<ProviderContext, "clock">): SearchSession {
  return {
    registry: createProviderRegistry(),
    cache: new SearchCache(context.clock),
    governor: new RateGovernor(context.clock),
  };
}

/** Queries `names` concurrently with the same request; without a session, nothing is remembered. */
export async function searchProviders(
  names: ProviderName[],
  request: SearchRequest,
  context: ProviderContext,
  session: SearchSession = createSearchSession(context),
): Promise<MultiSearchResult> {
  const unique = [...new Set(names)];
  const { request: resolved } = resolveSearchRequest(request, context.settings);
  const outcomes = await Promise.all(
    unique.map((name) => searchOne(name, request, resolved.timeoutMs, context, session)),
  );

  const responses: ProviderResponse[] = [];
  const errors: ProviderFailure[] = [];
  for (const outcome of outcomes) {
    if (outcome instanceof ProviderError) errors.push({ provider: outcome.provider, error: outcome });
    else responses.push(outcome);
  }
  return { responses, errors, results: mergeResults(responses) };
}

async function searchOne(
  name: ProviderName,
  request: SearchRequest,
  timeoutMs: number,
  context: ProviderContext,
  session: SearchSession,
): Promise<ProviderResponse | ProviderError> {
  const provider = session.registry.get(name);
  if (!provider) return new ProviderError(name, "unsupported", `There is no web search provider called “${name}”.`);
  if (request.query.trim() === "") return new ProviderError(name, "unsupported", "The search query is empty.");

  const settings = context.settings.external;
  const cacheKey = stableKey({ provider: name, request, brave: settings.brave, exa: settings.exa, freshness: settings.freshness });
  const cached = session.cache.get(cacheKey);
  if (cached) {
    context.log?.({ type: "cache_hit", provider: name });
    return { ...cached, cached: true };
  }

  try {
    // Providers enforce the deadline per HTTP call; this one bounds the whole provider (Brave's
    // fallback makes two calls, the governor may make it wait).
    const response = await withDeadline(provider.search(request, { ...context, governor: context.governor ?? session.governor }), {
      clock: context.clock,
      ms: timeoutMs,
      ...(context.signal ? { signal: context.signal } : {}),
      onLate: () => context.log?.({ type: "late_answer_discarded", provider: name, url: "" }),
    });
    session.cache.set(cacheKey, response);
    return response;
  } catch (error) {
    if (error instanceof ProviderError) return error;
    if (error instanceof DeadlineMissed) {
      return error.kind === "timeout"
        ? new ProviderError(name, "timeout", `${provider.label} did not answer within ${Math.round(timeoutMs / 1000)} s.`)
        : new ProviderError(name, "network", `The ${provider.label} search was cancelled.`);
    }
    // A bug in a parser must not take the run down; the message has no key (providers scrub theirs).
    const message = error instanceof Error ? error.message : String(error);
    return new ProviderError(name, "parse", `${provider.label}'s answer could not be read: ${message}`);
  }
}

/** Interleaves answers by rank and folds pages with the same canonical URL into one result. */
export function mergeResults(responses: ProviderResponse[]): MergedResult[] {
  const merged: MergedResult[] = [];
  const byUrl = new Map<string, MergedResult>();
  const depth = Math.max(0, ...responses.map((r) => r.results.length));
  for (let i = 0; i < depth; i++) {
    for (const response of responses) {
      const result = response.results[i];
      if (!result) continue;
      const key = canonicalizeUrl(result.canonicalUrl) ?? result.canonicalUrl;
      const existing = byUrl.get(key);
      if (existing) {
        foldInto(existing, result, response.provider);
        continue;
      }
      const entry: MergedResult = {
        ...result,
        highlights: [...result.highlights],
        provider: response.provider,
        providerLabel: PROVIDER_NAMES[response.provider].label,
        alsoFoundBy: [],
        providerRank: result.rank,
        rank: merged.length + 1,
      };
      byUrl.set(key, entry);
      merged.push(entry);
    }
  }
  return merged;
}

/** The first finder's fields win; what it lacked is taken from the later finder. */
function foldInto(target: MergedResult, other: ProviderResult, provider: ProviderName): void {
  if (provider !== target.provider && !target.alsoFoundBy.includes(provider)) target.alsoFoundBy.push(provider);
  for (const highlight of other.highlights) {
    if (!target.highlights.includes(highlight)) target.highlights.push(highlight);
  }
  target.snippet ??= other.snippet;
  if (target.text === undefined && other.text !== undefined) {
    target.text = other.text;
    if (other.truncated) target.truncated = true;
  }
  target.summary ??= other.summary;
  target.author ??= other.author;
  target.publishedAt ??= other.publishedAt;
}
