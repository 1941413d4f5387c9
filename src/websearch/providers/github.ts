// GitHub repository search (`GET https://api.github.com/search/repositories`): repositories
// matching the question's words, best match first, with stars, language and last push as signals.
// Keyless; a token from secret storage (CLI: GITHUB_TOKEN) raises the search limit from 10 to 30
// calls a minute. A used-up limit is a 403 with `x-ratelimit-remaining: 0` and the reset as a Unix time.
import * as z from "zod";
import { PROVIDER_NAMES } from "../../provider-names";
import type { HttpResponse } from "../../ports";
import { distinctByCanonicalUrl, displayDomain } from "../canonical-url";
import { freshnessWindow } from "../freshness-window";
import { keywordQuery } from "../keyword-query";
import { cutText, maxTitleChars, textToLine } from "../plain-text";
import { aside, failWith, optionalKey, rateLimitedMessage, readJson, retryAfterMs, sendProviderRequest, tryJson, type ProviderCall } from "../provider-http";
import { resolveSearchRequest, type ResolvedSearchRequest } from "../request-limits";
import { githubWithToken } from "../source-limits";
import type { Provider, ProviderContext, ProviderError, ProviderResponse, ProviderResult, SearchRequest, SourceSignal } from "../types";
import { isSuccess, looseCount, looseNumber, looseStrings, parseEach, sourceCall, statusError, warnUnsupported } from "./source-call";

const repositorySchema = z.object({
  full_name: z.string(),
  html_url: z.string(),
  description: z.string().nullish(),
  stargazers_count: looseCount,
  language: z.string().nullish(),
  topics: looseStrings,
  pushed_at: z.string().nullish(),
  archived: z.boolean().nullish(),
  score: looseNumber,
});
type Repository = z.infer<typeof repositorySchema>;

const searchSchema = z.object({ incomplete_results: z.boolean().optional(), items: z.array(z.unknown()) });

const errorSchema = z.object({
  message: z.string().optional(),
  errors: z.array(z.object({ field: z.string().optional(), code: z.string().optional(), message: z.string().optional() }).loose()).optional(),
});

const label = PROVIDER_NAMES.github.choice;
export const githubApiUrl = "https://api.github.com";

export function createGitHubProvider(): Provider {
  return {
    name: "github",
    label,
    capabilities: { search: true, contents: false, freshness: true, domainFilters: false, highlights: false, fullText: false },
    search: searchGitHub,
  };
}

/** The question's words, plus `pushed:>=DATE` when only recently active repositories are wanted. */
export function githubQuery(query: string, request: Pick<ResolvedSearchRequest, "freshness">, now: number): string {
  const words = keywordQuery(query);
  const window = freshnessWindow(request.freshness, now);
  if (!window) return words;
  const since = new Date(window.startMs).toISOString().slice(0, 10);
  const until = window.endMs !== undefined ? new Date(window.endMs).toISOString().slice(0, 10) : undefined;
  return `${words} pushed:${until ? `${since}..${until}` : `>=${since}`}`;
}

async function searchGitHub(input: SearchRequest, context: ProviderContext): Promise<ProviderResponse> {
  const { request, warnings } = resolveSearchRequest(input, context.settings);
  warnUnsupported(request, label, warnings, { freshness: true });
  const token = await optionalKey(context, "github");
  const q = githubQuery(request.query, request, context.clock.now());
  const params = new URLSearchParams({ q, per_page: String(request.count) });
  const call = sourceCall("github", `${githubApiUrl}/search/repositories?${params.toString()}`, request, {
    headers: {
      Accept: "application/vnd.github+json",
      "X-GitHub-Api-Version": "2022-11-28",
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
    },
    secret: token,
    ...(token ? { quota: githubWithToken.quota } : {}),
  });

  const response = await sendProviderRequest(call, context);
  if (!isSuccess(response)) throw githubError(call, response, context);
  const body = readJson(call, response, searchSchema, "search answer");
  if (body.incomplete_results) warnings.push(`${label}'s search stopped early; results may be incomplete`);
  const repositories = parseEach(body.items, repositorySchema, warnings, "repository");
  return { provider: "github", endpoint: "search/repositories", query: q, results: toResults(repositories, request, warnings), warnings };
}

function signalsOf(repository: Repository): SourceSignal[] {
  const signals: SourceSignal[] = [];
  if (typeof repository.stargazers_count === "number") signals.push({ kind: "stars", value: repository.stargazers_count });
  if (repository.language) signals.push({ kind: "language", value: repository.language });
  if (repository.pushed_at) signals.push({ kind: "last_push", value: repository.pushed_at });
  if (repository.archived) signals.push({ kind: "archived" });
  return signals;
}

function toResults(repositories: Repository[], request: ResolvedSearchRequest, warnings: string[]): ProviderResult[] {
  const results: ProviderResult[] = [];
  for (const { item: repository, url, canonicalUrl, rank } of distinctByCanonicalUrl(repositories, (r) => r.html_url, request.count, warnings)) {
    const description = textToLine(repository.description ?? "");
    const topics = repository.topics ?? [];
    results.push({
      url,
      canonicalUrl,
      title: cutText(repository.full_name, maxTitleChars).text || displayDomain(url),
      domain: displayDomain(url),
      ...(description ? { snippet: cutText(description, 300).text } : {}),
      highlights: topics.length > 0 ? [`Topics: ${topics.join(", ")}`] : [],
      ...(typeof repository.score === "number" ? { score: repository.score } : {}),
      rank,
      signals: signalsOf(repository),
    });
  }
  return results;
}

function githubError(call: ProviderCall, response: HttpResponse, context: ProviderContext): ProviderError {
  const now = context.clock.now();
  const parsed = errorSchema.safeParse(tryJson(response.text));
  const message = parsed.success ? parsed.data.message : undefined;
  const status = response.status;
  const exhausted = response.headers["x-ratelimit-remaining"] === "0";
  if ((status === 403 || status === 429) && (exhausted || response.headers["retry-after"] !== undefined || /rate limit/i.test(message ?? ""))) {
    const wait = retryAfterMs(response.headers, now);
    if (wait !== undefined) context.governor?.backOff(call.quota, wait);
    const hint = call.secret === "" ? " A GitHub token in settings raises the limit from 10 to 30 searches a minute." : "";
    return failWith(call, "rate_limited", `${rateLimitedMessage(label, wait)}${hint}`, { status, ...(wait !== undefined ? { retryAfterMs: wait } : {}) });
  }
  if (status === 401) {
    return failWith(call, "auth", `${label} rejected the token${aside(message)}. Check it in Vault Research settings, or remove it: search works without one.`, { status });
  }
  const first = parsed.success ? parsed.data.errors?.[0] : undefined;
  const detail = message && first ? `${message} — ${[first.field, first.message ?? first.code].filter(Boolean).join(": ")}` : message;
  return statusError(call, response, now, detail);
}
