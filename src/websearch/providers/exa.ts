// Exa search (`POST /search`) with highlights and optional page text, and Exa contents
// (`POST /contents`) for URLs already chosen. Reads both the older answer shape (highlight
// arrays with scores, `score`, `autopromptString`) and the 2026 one (one joined highlight string,
// no scores, `effectiveFilters`). Exa's `/answer` is never called: its prose is not evidence.
import * as z from "zod";
import { PROVIDER_NAMES } from "../../provider-names";
import type { HttpResponse } from "../../ports";
import { distinctByCanonicalUrl, displayDomain } from "../canonical-url";
import { cutText, plainTitleLine, toPublishedDate } from "../plain-text";
import {
  aside,
  describeStatus,
  quoted,
  failWith,
  kindForStatus,
  rateLimitedMessage,
  saidWithCode,
  readJson,
  requireKey,
  retryAfterMs,
  sendProviderRequest,
  tryJson,
  type ProviderCall,
} from "../provider-http";
import { charsPerResult, resolveSearchRequest, type ResolvedSearchRequest } from "../request-limits";
import type { Provider, ProviderContext, ProviderError, ProviderErrorKind, ProviderResponse, ProviderResult, SearchRequest } from "../types";
import { looseNumber, looseStrings, parseEach } from "./source-call";

const exaResultSchema = z.object({
  id: z.string().nullish(),
  url: z.string().nullish(),
  title: z.string().nullish(),
  publishedDate: z.string().nullish(),
  author: z.string().nullish(),
  score: looseNumber,
  text: z.string().nullish(),
  summary: z.string().nullish(),
  highlights: looseStrings,
});
type ExaResult = z.infer<typeof exaResultSchema>;

const exaResponseSchema = z.object({
  requestId: z.string().nullish(),
  results: z.array(z.unknown()),
  statuses: z.array(z.unknown()).nullish(),
});

const exaStatusSchema = z.object({ id: z.string(), status: z.string(), error: z.object({ tag: z.string().nullish() }).loose().nullish() }).loose();

/** Pages named in the warning about pages Exa could not read; the rest are counted. */
const statusesNamed = 3;

const exaErrorSchema = z.object({ error: z.string().optional(), tag: z.string().optional() });

export const exaLabel = PROVIDER_NAMES.exa.choice;

const dayMs = 86_400_000;
const freshnessDays: Record<string, number> = { pd: 1, pw: 7, pm: 31, py: 365 };

/** Passages in 2026 answers arrive joined by "\n...\n"; pieces shorter than this are cut-off link debris. */
const minPassageChars = 25;

export function createExaProvider(): Provider {
  return {
    name: "exa",
    label: exaLabel,
    capabilities: { search: true, contents: true, freshness: true, domainFilters: true, highlights: true, fullText: true },
    search: searchExa,
    contents: exaContents,
  };
}

async function prepareCall(
  context: ProviderContext,
  path: "/search" | "/contents",
  body: Record<string, unknown>,
  request: ResolvedSearchRequest,
): Promise<ProviderCall> {
  const key = await requireKey(context, "exa", "exa", exaLabel);
  return {
    provider: "exa",
    label: exaLabel,
    method: "POST",
    url: `${context.settings.external.exa.baseUrl.replace(/\/+$/, "")}${path}`,
    headers: { Accept: "application/json", "Content-Type": "application/json", "x-api-key": key },
    body: JSON.stringify(body),
    timeoutMs: request.timeoutMs,
    secret: key,
    quota: "exa",
  };
}

function textBudget(request: ResolvedSearchRequest, context: ProviderContext): number {
  return Math.min(context.settings.external.exa.maxTextCharacters, charsPerResult(request));
}

async function searchExa(input: SearchRequest, context: ProviderContext): Promise<ProviderResponse> {
  const { request, warnings } = resolveSearchRequest(input, context.settings);
  const settings = context.settings.external.exa;
  if (request.language) warnings.push(`${exaLabel} has no search language; “${request.language}” was ignored`);

  const contents: Record<string, unknown> = { highlights: true };
  if (settings.includeText) contents.text = { maxCharacters: textBudget(request, context) };
  const body: Record<string, unknown> = {
    query: request.query,
    numResults: request.count,
    type: settings.searchType,
    contents,
    ...publishedRange(request.freshness, context.clock.now()),
  };
  if (request.includeDomains.length > 0) body.includeDomains = request.includeDomains;
  if (request.excludeDomains.length > 0) body.excludeDomains = request.excludeDomains;
  if (request.country && /^[A-Za-z]{2}$/.test(request.country)) body.userLocation = request.country.toUpperCase();

  const call = await prepareCall(context, "/search", body, request);
  return readExaAnswer(call, await sendProviderRequest(call, context), request, context, warnings, "search");
}

async function exaContents(urls: string[], input: SearchRequest, context: ProviderContext): Promise<ProviderResponse> {
  const { request, warnings } = resolveSearchRequest({ ...input, count: input.count ?? urls.length }, context.settings);
  const wanted = [...new Set(urls)];
  if (wanted.length > request.count) warnings.push(`urls ${wanted.length} → ${request.count}`);
  const body = { urls: wanted.slice(0, request.count), text: { maxCharacters: textBudget(request, context) } };
  const call = await prepareCall(context, "/contents", body, request);
  return readExaAnswer(call, await sendProviderRequest(call, context), request, context, warnings, "contents");
}

/** Exa filters on publication date; Brave-style freshness becomes a start (and end) date. */
export function publishedRange(freshness: ResolvedSearchRequest["freshness"], now: number): Record<string, string> {
  if (freshness === "any") return {};
  const days = freshnessDays[freshness];
  if (days !== undefined) return { startPublishedDate: new Date(now - days * dayMs).toISOString() };
  const [start, end] = freshness.split("to");
  return { startPublishedDate: `${start}T00:00:00.000Z`, endPublishedDate: `${end}T23:59:59.999Z` };
}

function readExaAnswer(
  call: ProviderCall,
  response: HttpResponse,
  request: ResolvedSearchRequest,
  context: ProviderContext,
  warnings: string[],
  endpoint: "search" | "contents",
): ProviderResponse {
  if (response.status < 200 || response.status >= 300) throw exaError(call, response, context.clock.now());
  const body = readJson(call, response, exaResponseSchema, `${endpoint} answer`);
  const failed = parseEach(body.statuses ?? [], exaStatusSchema, warnings, "page status").filter((s) => s.status !== "success");
  if (failed.length > 0) {
    const named = failed.slice(0, statusesNamed).map((s) => `${quoted(s.id)}${s.error?.tag ? ` (${quoted(s.error.tag, 40)})` : ""}`);
    const more = failed.length > statusesNamed ? ` and ${failed.length - statusesNamed} more` : "";
    warnings.push(`${exaLabel} could not read ${named.join(", ")}${more}`);
  }
  const items = parseEach(body.results, exaResultSchema, warnings, "result", (n) => `${n} malformed result${n === 1 ? "" : "s"} skipped`);
  const results = toResults(items, request, textBudget(request, context), context.clock.now(), warnings);
  return {
    provider: "exa",
    endpoint,
    ...(body.requestId ? { requestId: body.requestId } : {}),
    query: request.query,
    results,
    warnings,
  };
}

function splitHighlights(highlights: string[]): string[] {
  // A separator is taken from where its run of spaces starts (the spaces before its first line
  // break go too, trimmed anyway): tried from each line break of a long run, `\s*` read the rest.
  const passages = highlights.flatMap((h) => h.split(/(?<!\s)[^\S\n]*\n\s*\.\.\.\s*\n/)).map((p) => p.trim()).filter((p) => p !== "");
  const substantial = passages.filter((p) => p.length >= minPassageChars);
  return substantial.length > 0 ? substantial : passages;
}

function toResults(items: ExaResult[], request: ResolvedSearchRequest, budget: number, now: number, warnings: string[]): ProviderResult[] {
  const results: ProviderResult[] = [];
  // `id` is the URL in every answer seen; it stands in when `url` is missing.
  for (const { item, url, canonicalUrl, rank } of distinctByCanonicalUrl(items, (i) => i.url ?? i.id ?? "", request.count, warnings)) {

    const highlights = splitHighlights(item.highlights ?? []).map((h) => cutText(h, budget).text);
    const text = item.text ? cutText(item.text.trim(), budget) : undefined;
    const snippetSource = highlights[0] ?? text?.text;
    const summary = item.summary?.trim();
    const author = item.author?.trim();
    const publishedAt = toPublishedDate(item.publishedDate, now);
    results.push({
      url,
      canonicalUrl,
      title: plainTitleLine(item.title ?? "") || displayDomain(url),
      domain: displayDomain(url),
      ...(snippetSource ? { snippet: cutText(snippetSource.replace(/\s+/g, " "), 300).text } : {}),
      highlights,
      ...(text && text.text !== "" ? { text: text.text } : {}),
      ...(text?.truncated ? { truncated: true } : {}),
      ...(summary ? { summary } : {}),
      ...(author ? { author } : {}),
      ...(publishedAt ? { publishedAt } : {}),
      ...(typeof item.score === "number" ? { score: item.score } : {}),
      rank,
    });
  }
  return results;
}

function exaError(call: ProviderCall, response: HttpResponse, now: number): ProviderError {
  const parsed = exaErrorSchema.safeParse(tryJson(response.text));
  const tag = parsed.success ? parsed.data.tag ?? "" : "";
  const message = parsed.success ? parsed.data.error : undefined;
  const status = response.status;
  const wait = retryAfterMs(response.headers, now);

  if (status === 429) {
    return failWith(call, "rate_limited", rateLimitedMessage(exaLabel, wait), { status, ...(wait !== undefined ? { retryAfterMs: wait } : {}) });
  }
  if (tag === "INVALID_API_KEY" || status === 401) {
    return failWith(call, "auth", `${exaLabel} rejected the API key${aside(tag)}. Check the key in Vault Research settings.`, { status });
  }
  if (status === 402 || tag === "NO_MORE_CREDITS" || tag === "API_KEY_BUDGET_EXCEEDED") {
    return failWith(call, "plan", `${exaLabel} has no credits left for this key${aside(tag)}.`, { status });
  }
  if (tag === "FEATURE_DISABLED" || tag === "ACCESS_DENIED") {
    return failWith(call, "plan", `${exaLabel} does not allow this for the key's plan${aside(tag)}.`, { status });
  }
  const detail = message ? saidWithCode(message, tag) : undefined;
  return failWith(call, kindFor(status, tag), describeStatus(call, response, detail), { status });
}

/**
 * A 403 Exa gives a tag of its own refuses what was asked (`PROHIBITED_CONTENT`, `ROBOTS_FILTER_FAILED`,
 * `CONTENT_FILTER_ERROR`), not the key (`INVALID_API_KEY`, read above): read as a key refused, the
 * run said "Exa refused the API key" of a query its content filter turned away.
 */
function kindFor(status: number, tag: string): ProviderErrorKind {
  return status === 403 && tag !== "" ? "http" : kindForStatus(status);
}
