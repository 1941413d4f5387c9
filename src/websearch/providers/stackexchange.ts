// Stack Exchange (`GET https://api.stackexchange.com/2.3/search/advanced`): questions on the site
// chosen in settings (Stack Overflow by default), by relevance, with score, answer count and
// whether an answer was accepted as signals, and the question's opening as the snippet. Keyless
// (300 calls a day per address). A `backoff` in any answer is honoured for the next call; errors
// arrive as `{ error_id, error_name, error_message }`, mostly with HTTP 400.
import * as z from "zod";
import { PROVIDER_NAMES } from "../../provider-names";
import type { HttpResponse } from "../../ports";
import { distinctByCanonicalUrl, displayDomain } from "../canonical-url";
import { freshnessWindow } from "../freshness-window";
import { keywordQuery } from "../keyword-query";
import { cutText, htmlBlocksToLine, htmlToLine, publishedAtMs, titleLine } from "../plain-text";
import { failWith, rateLimitedMessage, readJson, saidWithCode, sendProviderRequest, tryJson, type ProviderCall } from "../provider-http";
import { maxRetryAfterMs } from "../../text/retry-after";
import { resolveSearchRequest, type ResolvedSearchRequest } from "../request-limits";
import type { Provider, ProviderContext, ProviderError, ProviderResponse, ProviderResult, SearchRequest, SourceSignal } from "../types";
import { isSuccess, looseCount, looseNumber, looseStrings, parseEach, sourceCall, statusError, warnUnsupported } from "./source-call";

const questionSchema = z.object({
  question_id: z.number(),
  title: z.string(),
  link: z.string(),
  // Votes may be negative; a vote count that is not a whole number is no count.
  score: looseNumber.transform((n) => (n !== undefined && Number.isSafeInteger(n) ? n : undefined)).optional(),
  answer_count: looseCount,
  is_answered: z.boolean().nullish(),
  accepted_answer_id: looseNumber,
  tags: looseStrings,
  creation_date: looseNumber,
  body: z.string().nullish(),
  owner: z.object({ display_name: z.string().nullish() }).loose().nullish(),
});
type Question = z.infer<typeof questionSchema>;

const wrapperSchema = z.object({
  items: z.array(z.unknown()),
  quota_max: z.number().optional(),
  quota_remaining: z.number().optional(),
  backoff: z.number().optional(),
});

const errorSchema = z.object({ error_id: z.number(), error_name: z.string().optional(), error_message: z.string().optional() });

const label = PROVIDER_NAMES.stackexchange.choice;
export const stackExchangeApiUrl = "https://api.stackexchange.com/2.3";

/** Below this many calls left today, the answer says so. */
const lowQuota = 20;

export function createStackExchangeProvider(): Provider {
  return {
    name: "stackexchange",
    label,
    capabilities: { search: true, contents: false, freshness: true, domainFilters: false, highlights: false, fullText: false },
    search: searchStackExchange,
  };
}

function searchParams(request: ResolvedSearchRequest, query: string, site: string, now: number): URLSearchParams {
  // `withbody` adds each question's text, which becomes the snippet.
  const params = new URLSearchParams({ order: "desc", sort: "relevance", q: query, site, pagesize: String(request.count), filter: "withbody" });
  const window = freshnessWindow(request.freshness, now);
  if (window) {
    params.set("fromdate", String(Math.floor(window.startMs / 1000)));
    if (window.endMs !== undefined) params.set("todate", String(Math.floor(window.endMs / 1000)));
  }
  return params;
}

async function searchStackExchange(input: SearchRequest, context: ProviderContext): Promise<ProviderResponse> {
  const { request, warnings } = resolveSearchRequest(input, context.settings);
  warnUnsupported(request, label, warnings, { freshness: true });
  const site = context.settings.external.stackexchange.site;
  const query = keywordQuery(request.query);
  const call = sourceCall("stackexchange", `${stackExchangeApiUrl}/search/advanced?${searchParams(request, query, site, context.clock.now()).toString()}`, request);

  const response = await sendProviderRequest(call, context);
  if (!isSuccess(response)) throw stackExchangeError(call, response, context);
  const body = readJson(call, response, wrapperSchema, "search answer");
  if (body.backoff !== undefined && body.backoff > 0) {
    context.governor?.backOff(call.quota, Math.min(body.backoff * 1000, maxRetryAfterMs));
    warnings.push(`${label} asked for a pause of ${body.backoff} s before the next search`);
  }
  if (body.quota_remaining !== undefined && body.quota_remaining <= lowQuota) {
    warnings.push(`${label}: ${body.quota_remaining} of ${body.quota_max ?? "?"} calls left today for this address`);
  }
  const questions = parseEach(body.items, questionSchema, warnings, "question");
  return { provider: "stackexchange", endpoint: "search/advanced", query, results: toResults(questions, request, context.clock.now(), warnings), warnings };
}

function signalsOf(question: Question): SourceSignal[] {
  const signals: SourceSignal[] = [];
  if (typeof question.score === "number") signals.push({ kind: "votes", value: question.score });
  if (typeof question.answer_count === "number") signals.push({ kind: "answers", value: question.answer_count });
  signals.push({ kind: "accepted_answer", value: typeof question.accepted_answer_id === "number" });
  if (question.tags && question.tags.length > 0) signals.push({ kind: "tags", value: question.tags });
  return signals;
}

function toResults(questions: Question[], request: ResolvedSearchRequest, now: number, warnings: string[]): ProviderResult[] {
  const results: ProviderResult[] = [];
  for (const { item: question, url, canonicalUrl, rank } of distinctByCanonicalUrl(questions, (q) => q.link, request.count, warnings)) {
    const text = htmlBlocksToLine(question.body ?? "");
    const author = htmlToLine(question.owner?.display_name ?? "");
    const publishedAt = typeof question.creation_date === "number" ? publishedAtMs(question.creation_date * 1000, now) : undefined;
    results.push({
      url,
      canonicalUrl,
      title: titleLine(question.title) || displayDomain(url),
      domain: displayDomain(url),
      ...(text ? { snippet: cutText(text, request.maxContentChars).text } : {}),
      highlights: [],
      ...(author ? { author } : {}),
      ...(publishedAt ? { publishedAt } : {}),
      rank,
      signals: signalsOf(question),
    });
  }
  return results;
}

/** `throttle_violation` says how long in its message: "more requests available in 82400 seconds". */
function throttleWaitMs(message: string | undefined): number | undefined {
  const seconds = /available in (\d+) seconds?/i.exec(message ?? "")?.[1];
  return seconds ? Math.min(Number(seconds) * 1000, maxRetryAfterMs) : undefined;
}

function stackExchangeError(call: ProviderCall, response: HttpResponse, context: ProviderContext): ProviderError {
  const parsed = errorSchema.safeParse(tryJson(response.text));
  if (!parsed.success) return statusError(call, response, context.clock.now());
  const { error_id: id, error_name: name, error_message: message } = parsed.data;
  const status = response.status;
  const detail = saidWithCode(message ?? "no message", `${name ?? "error"} ${id}`);
  if (id === 502 || name === "throttle_violation") {
    const wait = throttleWaitMs(message);
    if (wait !== undefined) context.governor?.backOff(call.quota, wait);
    return failWith(call, "rate_limited", rateLimitedMessage(label, wait, detail), { status, ...(wait !== undefined ? { retryAfterMs: wait } : {}) });
  }
  if (id === 404 || name === "no_method") return failWith(call, "unsupported", `${label} has no such method: ${detail}.`, { status });
  if (id === 400 || name === "bad_parameter") {
    return failWith(call, "http", `${label} refused the search: ${detail}. Check the Stack Exchange site name in settings.`, { status, reason: "refused" });
  }
  return failWith(call, "http", `${label} answered HTTP ${status}: ${detail}.`, { status });
}
