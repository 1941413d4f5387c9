// Tavily (`POST https://api.tavily.com/search`): web results with a relevance score and an
// extracted passage, from a search made for LLM grounding. Keyed (secret storage; CLI:
// TAVILY_API_KEY, sent as a Bearer token). Raw page content stays off; Tavily's generated `answer`
// is never asked for, and if one arrives anyway it is dropped: a model's prose is not evidence.
import * as z from "zod";
import { PROVIDER_NAMES } from "../../provider-names";
import type { HttpResponse } from "../../ports";
import { distinctByCanonicalUrl, displayDomain } from "../canonical-url";
import { cutText, htmlToLine, plainTitleLine, toPublishedDate } from "../plain-text";
import { aside, describeStatus, failWith, rateLimitedMessage, readJson, requireKey, retryAfterMs, sendProviderRequest, tryJson, type ProviderCall } from "../provider-http";
import { resolveSearchRequest, type ResolvedSearchRequest } from "../request-limits";
import type { Provider, ProviderContext, ProviderError, ProviderResponse, ProviderResult, SearchRequest } from "../types";
import { isSuccess, looseNumber, parseEach, sourceCall } from "./source-call";

const resultSchema = z.object({
  url: z.string(),
  title: z.string().nullish(),
  content: z.string().nullish(),
  score: looseNumber,
  published_date: z.string().nullish(),
});
type TavilyResult = z.infer<typeof resultSchema>;

const searchSchema = z.object({
  results: z.array(z.unknown()),
  answer: z.string().nullish(),
  request_id: z.string().nullish(),
});

/** `{ detail: { error } }` on most errors; `detail` may also be a bare string. */
const errorSchema = z.object({ detail: z.union([z.string(), z.object({ error: z.string() }).loose()]).optional() });

const label = PROVIDER_NAMES.tavily.choice;
export const tavilyApiUrl = "https://api.tavily.com";

const timeRangeFor: Partial<Record<string, string>> = { pd: "day", pw: "week", pm: "month", py: "year" };

export function createTavilyProvider(): Provider {
  return {
    name: "tavily",
    label,
    capabilities: { search: true, contents: false, freshness: true, domainFilters: true, highlights: true, fullText: false },
    search: searchTavily,
  };
}

/** The request body: never the generated answer, never raw page content, never images. */
export function tavilyBody(request: ResolvedSearchRequest, searchDepth: string): Record<string, unknown> {
  const body: Record<string, unknown> = {
    query: request.query,
    search_depth: searchDepth,
    max_results: request.count,
    topic: request.topics.includes("news") ? "news" : "general",
    include_answer: false,
    include_raw_content: false,
    include_images: false,
  };
  const range = timeRangeFor[request.freshness];
  if (range) body.time_range = range;
  else if (request.freshness !== "any") [body.start_date, body.end_date] = request.freshness.split("to");
  if (request.includeDomains.length > 0) body.include_domains = request.includeDomains;
  if (request.excludeDomains.length > 0) body.exclude_domains = request.excludeDomains;
  return body;
}

async function searchTavily(input: SearchRequest, context: ProviderContext): Promise<ProviderResponse> {
  const { request, warnings } = resolveSearchRequest(input, context.settings);
  const key = await requireKey(context, "tavily", "tavily", label);
  const body = JSON.stringify(tavilyBody(request, context.settings.external.tavily.searchDepth));
  const call = sourceCall("tavily", `${tavilyApiUrl}/search`, request, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${key}` },
    body,
    secret: key,
  });

  const response = await sendProviderRequest(call, context);
  if (!isSuccess(response)) throw tavilyError(call, response, context.clock.now());
  const answer = readJson(call, response, searchSchema, "search answer");
  if (answer.answer) warnings.push(`${label} sent a generated answer; it was dropped (a model's summary is not evidence)`);
  const results = parseEach(answer.results, resultSchema, warnings, "result");
  return {
    provider: "tavily",
    endpoint: "search",
    ...(answer.request_id ? { requestId: answer.request_id } : {}),
    query: request.query,
    results: toResults(results, request, context.clock.now(), warnings),
    warnings,
  };
}

function toResults(items: TavilyResult[], request: ResolvedSearchRequest, now: number, warnings: string[]): ProviderResult[] {
  const results: ProviderResult[] = [];
  for (const { item, url, canonicalUrl, rank } of distinctByCanonicalUrl(items, (r) => r.url, request.count, warnings)) {
    const content = htmlToLine(item.content ?? "");
    const publishedAt = toPublishedDate(item.published_date, now);
    results.push({
      url,
      canonicalUrl,
      title: plainTitleLine(item.title ?? "") || displayDomain(url),
      domain: displayDomain(url),
      ...(content ? { snippet: cutText(content, 300).text } : {}),
      highlights: content ? [cutText(content, request.maxContentChars).text] : [],
      ...(publishedAt ? { publishedAt } : {}),
      ...(typeof item.score === "number" ? { score: item.score } : {}),
      rank,
    });
  }
  return results;
}

function tavilyError(call: ProviderCall, response: HttpResponse, now: number): ProviderError {
  const parsed = errorSchema.safeParse(tryJson(response.text));
  const detail = parsed.success ? (typeof parsed.data.detail === "string" ? parsed.data.detail : parsed.data.detail?.error) : undefined;
  const status = response.status;
  if (status === 401 || status === 403) {
    return failWith(call, "auth", `${label} rejected the API key${aside(detail)}. Check the key in Vault Research settings.`, { status });
  }
  if (status === 429) {
    const wait = retryAfterMs(response.headers, now);
    return failWith(call, "rate_limited", rateLimitedMessage(label, wait), { status, ...(wait !== undefined ? { retryAfterMs: wait } : {}) });
  }
  // 432: the plan's monthly credits are used up; 433: the pay-as-you-go spending limit is reached.
  if (status === 432 || status === 433) {
    const what = status === 432 ? "the plan's usage limit" : "the pay-as-you-go limit";
    return failWith(call, "plan", `${label} refused the search: ${what} is reached${aside(detail)}.`, { status });
  }
  return failWith(call, "http", describeStatus(call, response, detail), { status });
}
