// Hacker News through its Algolia search (`GET https://hn.algolia.com/api/v1/search`, or
// `search_by_date` for the past day or week, where the newest stories matter more than the most
// relevant old ones): stories with their points and comments as signals. A story without a link
// (Ask HN, Show HN text posts) points at its discussion page. Keyless.
import * as z from "zod";
import { PROVIDER_NAMES } from "../../provider-names";
import type { HttpResponse } from "../../ports";
import { distinctByCanonicalUrl, displayDomain } from "../canonical-url";
import { freshnessWindow } from "../freshness-window";
import { keywordQuery } from "../keyword-query";
import { cutText, htmlBlocksToLine, plainTitleLine, toPublishedDate } from "../plain-text";
import { readJson, sendProviderRequest, tryJson, type ProviderCall } from "../provider-http";
import { resolveSearchRequest, type ResolvedSearchRequest } from "../request-limits";
import type { Provider, ProviderContext, ProviderError, ProviderResponse, ProviderResult, SearchRequest, SourceSignal } from "../types";
import { isSuccess, looseCount, parseEach, sourceCall, statusError, warnUnsupported } from "./source-call";

const hitSchema = z.object({
  objectID: z.union([z.string(), z.number()]).transform(String),
  title: z.string().nullish(),
  url: z.string().nullish(),
  author: z.string().nullish(),
  points: looseCount,
  num_comments: looseCount,
  created_at: z.string().nullish(),
  story_text: z.string().nullish(),
});
type HackerNewsHit = z.infer<typeof hitSchema>;

const searchSchema = z.object({ hits: z.array(z.unknown()) });
const errorSchema = z.object({ message: z.string().optional(), status: z.number().optional() });

const label = PROVIDER_NAMES.hackernews.choice;
export const hackerNewsBaseUrl = "https://hn.algolia.com/api/v1";

export function createHackerNewsProvider(): Provider {
  return {
    name: "hackernews",
    label,
    capabilities: { search: true, contents: false, freshness: true, domainFilters: false, highlights: false, fullText: false },
    search: searchHackerNews,
  };
}

/** The discussion page of an item: what a story without a link of its own points at. */
export function hackerNewsItemUrl(id: string): string {
  return `https://news.ycombinator.com/item?id=${encodeURIComponent(id)}`;
}

function searchParams(request: ResolvedSearchRequest, query: string, now: number): { endpoint: string; params: URLSearchParams } {
  const params = new URLSearchParams({ query, tags: "story", hitsPerPage: String(request.count) });
  const window = freshnessWindow(request.freshness, now);
  if (window) {
    const filters = [`created_at_i>${Math.floor(window.startMs / 1000)}`];
    if (window.endMs !== undefined) filters.push(`created_at_i<${Math.floor(window.endMs / 1000)}`);
    params.set("numericFilters", filters.join(","));
  }
  // For the past day or week the newest discussion is what was asked for; otherwise relevance.
  const endpoint = request.freshness === "pd" || request.freshness === "pw" ? "search_by_date" : "search";
  return { endpoint, params };
}

async function searchHackerNews(input: SearchRequest, context: ProviderContext): Promise<ProviderResponse> {
  const { request, warnings } = resolveSearchRequest(input, context.settings);
  warnUnsupported(request, label, warnings, { freshness: true });
  const query = keywordQuery(request.query);
  const { endpoint, params } = searchParams(request, query, context.clock.now());
  const call = sourceCall("hackernews", `${hackerNewsBaseUrl}/${endpoint}?${params.toString()}`, request);

  const response = await sendProviderRequest(call, context);
  if (!isSuccess(response)) throw hackerNewsError(call, response, context.clock.now());
  const body = readJson(call, response, searchSchema, "search answer");
  const hits = parseEach(body.hits, hitSchema, warnings, "story");
  return { provider: "hackernews", endpoint, query, results: toResults(hits, request, context.clock.now(), warnings), warnings };
}

function signalsOf(hit: HackerNewsHit): SourceSignal[] {
  const signals: SourceSignal[] = [];
  if (typeof hit.points === "number") signals.push({ kind: "points", value: hit.points });
  if (typeof hit.num_comments === "number") signals.push({ kind: "comments", value: hit.num_comments });
  return signals;
}

function toResults(hits: HackerNewsHit[], request: ResolvedSearchRequest, now: number, warnings: string[]): ProviderResult[] {
  const results: ProviderResult[] = [];
  const urlOf = (hit: HackerNewsHit): string => (hit.url?.trim() ? hit.url.trim() : hackerNewsItemUrl(hit.objectID));
  for (const { item: hit, url, canonicalUrl, rank } of distinctByCanonicalUrl(hits, urlOf, request.count, warnings)) {
    const text = htmlBlocksToLine(hit.story_text ?? "");
    const publishedAt = toPublishedDate(hit.created_at, now);
    results.push({
      url,
      canonicalUrl,
      title: plainTitleLine(hit.title ?? "") || displayDomain(url),
      domain: displayDomain(url),
      ...(text ? { snippet: cutText(text, 300).text } : {}),
      highlights: [],
      ...(hit.author ? { author: hit.author } : {}),
      ...(publishedAt ? { publishedAt } : {}),
      rank,
      signals: signalsOf(hit),
    });
  }
  return results;
}

function hackerNewsError(call: ProviderCall, response: HttpResponse, now: number): ProviderError {
  const parsed = errorSchema.safeParse(tryJson(response.text));
  return statusError(call, response, now, parsed.success ? parsed.data.message : undefined);
}
