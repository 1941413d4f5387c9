// SearXNG, the user's own metasearch instance (`GET {instance}/search?format=json`): results from
// the engines it runs, with the engines that found each as a signal. Categories follow what the
// question is about (code → it, papers → science, news → news) and freshness becomes SearXNG's
// time range. An instance answers 403 to `format=json` unless its settings.yml lists json among
// `search.formats` — the message says exactly that. No key; the address comes from settings.
import * as z from "zod";
import { PROVIDER_NAMES } from "../../provider-names";
import type { HttpResponse } from "../../ports";
import { distinctByCanonicalUrl, displayDomain } from "../canonical-url";
import { cutText, htmlToLine, titleLine, toPublishedDate } from "../plain-text";
import { failWith, looksLikeHtml, quoted, readJson, sendProviderRequest, type ProviderCall } from "../provider-http";
import { resolveSearchRequest, type ResolvedSearchRequest } from "../request-limits";
import { ProviderError, type Provider, type ProviderContext, type ProviderResponse, type ProviderResult, type QuestionTopic, type SearchRequest } from "../types";
import { isSuccess, looseNumber, parseEach, sourceCall, statusError, warnUnsupported } from "./source-call";

const resultSchema = z.object({
  url: z.string(),
  title: z.string().nullish(),
  content: z.string().nullish(),
  engine: z.string().nullish(),
  engines: z.array(z.string()).nullish(),
  score: looseNumber,
  publishedDate: z.string().nullish(),
});
type SearxngResult = z.infer<typeof resultSchema>;

const searchSchema = z.object({
  results: z.array(z.unknown()),
  unresponsive_engines: z.array(z.unknown()).nullish(),
});

/** `[engine, reason]`, as SearXNG lists the engines that did not answer. */
const silentEngineSchema = z.tuple([z.string(), z.string().nullish()]).rest(z.unknown());

/** Engines named in the warning about those that did not answer; the rest are counted. */
const enginesNamed = 5;

const label = PROVIDER_NAMES.searxng.choice;

/** SearXNG's categories for what a question is about; `general` is always searched too. */
const categoryFor: Record<QuestionTopic, string> = {
  code: "it",
  papers: "science",
  science: "science",
  medicine: "science",
  news: "news",
  background: "general",
};

const timeRangeFor: Partial<Record<string, string>> = { pd: "day", pw: "week", pm: "month", py: "year" };

export function createSearxngProvider(): Provider {
  return {
    name: "searxng",
    label,
    capabilities: { search: true, contents: false, freshness: true, domainFilters: false, highlights: false, fullText: false },
    search: searchSearxng,
  };
}

/** The `categories` parameter: general plus one per topic, in a stable order. */
export function searxngCategories(topics: readonly QuestionTopic[]): string {
  return [...new Set(["general", ...topics.map((t) => categoryFor[t])])].join(",");
}

function searchParams(request: ResolvedSearchRequest, warnings: string[]): URLSearchParams {
  const params = new URLSearchParams({ q: request.query, format: "json", categories: searxngCategories(request.topics), pageno: "1" });
  if (request.language) params.set("language", request.language);
  const range = timeRangeFor[request.freshness];
  if (range) params.set("time_range", range);
  else if (request.freshness !== "any") warnings.push(`${label} has only day, week, month and year ranges; “${request.freshness}” was ignored`);
  return params;
}

async function searchSearxng(input: SearchRequest, context: ProviderContext): Promise<ProviderResponse> {
  const { request, warnings } = resolveSearchRequest(input, context.settings);
  warnUnsupported(request, label, warnings, { freshness: true });
  const base = context.settings.external.searxng.baseUrl.replace(/\/+$/, "");
  if (base === "") {
    throw new ProviderError("searxng", "unsupported", `No ${label} instance is set. Add its address in Vault Research settings (CLI: external.searxng.baseUrl in --config).`);
  }
  const call = sourceCall("searxng", `${base}/search?${searchParams(request, warnings).toString()}`, request);

  const response = await sendProviderRequest(call, context);
  if (!isSuccess(response)) throw searxngError(call, response, context.clock.now(), base);
  if (looksLikeHtml(response)) throw jsonDisabled(call, response, base);
  const body = readJson(call, response, searchSchema, "search answer");
  const silent = parseEach(body.unresponsive_engines ?? [], silentEngineSchema, warnings, "unresponsive engine");
  if (silent.length > 0) {
    const named = silent.slice(0, enginesNamed).map(([engine, reason]) => quoted(reason ? `${engine} (${reason})` : engine, 80));
    const more = silent.length > enginesNamed ? ` and ${silent.length - enginesNamed} more` : "";
    warnings.push(`${label}: engines that did not answer: ${named.join(", ")}${more}`);
  }
  const results = parseEach(body.results, resultSchema, warnings, "result");
  return { provider: "searxng", endpoint: "search", query: request.query, results: toResults(results, request, context.clock.now(), warnings), warnings };
}

function toResults(items: SearxngResult[], request: ResolvedSearchRequest, now: number, warnings: string[]): ProviderResult[] {
  const results: ProviderResult[] = [];
  for (const { item, url, canonicalUrl, rank } of distinctByCanonicalUrl(items, (r) => r.url, request.count, warnings)) {
    const content = htmlToLine(item.content ?? "");
    const engines = item.engines && item.engines.length > 0 ? item.engines : item.engine ? [item.engine] : [];
    const publishedAt = toPublishedDate(item.publishedDate, now);
    results.push({
      url,
      canonicalUrl,
      title: titleLine(item.title ?? "") || displayDomain(url),
      domain: displayDomain(url),
      ...(content ? { snippet: cutText(content, request.maxContentChars).text } : {}),
      highlights: [],
      ...(publishedAt ? { publishedAt } : {}),
      ...(typeof item.score === "number" ? { score: item.score } : {}),
      rank,
      signals: engines.length > 0 ? [{ kind: "engines", value: engines }] : [],
    });
  }
  return results;
}

/** Said in the instance owner's terms: what to change in settings.yml. */
function jsonDisabled(call: ProviderCall, response: HttpResponse, base: string): ProviderError {
  return failWith(
    call,
    "unsupported",
    `${label} at ${base} does not answer in JSON (HTTP ${response.status}): JSON output is turned off on this instance. Add \`json\` to \`search: formats:\` in its settings.yml and restart it.`,
    { status: response.status },
  );
}

function searxngError(call: ProviderCall, response: HttpResponse, now: number, base: string): ProviderError {
  if (response.status === 403) return jsonDisabled(call, response, base);
  return statusError(call, response, now);
}
