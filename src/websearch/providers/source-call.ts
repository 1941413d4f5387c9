// What the free sources, SearXNG and Tavily share: a call that says who is asking (a descriptive
// User-Agent, as Wikimedia's and GitHub's policies ask) and carries its source's limits, the
// common reading of an error status, and items parsed one by one so one odd item is skipped, not fatal.
import * as z from "zod";
import type { HttpResponse } from "../../ports";
import { PROVIDER_NAMES } from "../../provider-names";
import { describeStatus, failWith, kindForStatus, rateLimitedMessage, retryAfterMs, userAgent, type ProviderCall } from "../provider-http";
import type { ResolvedSearchRequest } from "../request-limits";
import { SOURCE_LIMITS } from "../source-limits";
import type { ProviderError, ProviderName } from "../types";

export interface SourceCallOptions {
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  /** The key or token sent, so it is scrubbed from anything reported ("" when none). */
  secret?: string;
  /** Overrides the source's quota (GitHub with a token has its own). */
  quota?: string;
}

/** A call to `url` for `provider`, with JSON accepted, our User-Agent, and the source's limits. */
export function sourceCall(provider: ProviderName, url: string, request: Pick<ResolvedSearchRequest, "timeoutMs">, options: SourceCallOptions = {}): ProviderCall {
  const limits = SOURCE_LIMITS[provider];
  return {
    provider,
    label: PROVIDER_NAMES[provider].choice,
    method: options.method ?? "GET",
    url,
    headers: { Accept: "application/json", "User-Agent": userAgent, ...options.headers },
    ...(options.body !== undefined ? { body: options.body } : {}),
    timeoutMs: request.timeoutMs,
    secret: options.secret ?? "",
    quota: options.quota ?? limits.quota,
    maxBytes: limits.maxBytes,
  };
}

/**
 * The reading of an error status when the service's own envelope said nothing more specific. For a
 * source that takes no key (`call.secret` empty) a 401/403 is a refusal nothing in settings can fix,
 * so it is an `http` failure, not `auth`.
 */
export function statusError(call: ProviderCall, response: HttpResponse, now: number, detail?: string): ProviderError {
  const status = response.status;
  if (status === 429) {
    const wait = retryAfterMs(response.headers, now);
    return failWith(call, "rate_limited", rateLimitedMessage(call.label, wait), { status, ...(wait !== undefined ? { retryAfterMs: wait } : {}) });
  }
  const kind = kindForStatus(status);
  return failWith(call, kind === "auth" && call.secret === "" ? "http" : kind, describeStatus(call, response, detail), { status });
}

export function isSuccess(response: HttpResponse): boolean {
  return response.status >= 200 && response.status < 300;
}

/**
 * The most items of one list in an answer that are read. No search asks for more than ten results;
 * a hostile or broken answer of 400,000 junk items, each checked against its schema, held the
 * thread for seconds, where no deadline can fire.
 */
export const maxItemsRead = 100;

/** The first `maxItemsRead` items of a list, and a warning when there were more. */
export function firstItems(items: readonly unknown[], warnings: string[], what: string): readonly unknown[] {
  if (items.length <= maxItemsRead) return items;
  warnings.push(`${(items.length - maxItemsRead).toLocaleString("en-US")} ${plural(what)} beyond the first ${maxItemsRead} not read`);
  return items.slice(0, maxItemsRead);
}

/**
 * Each of the first `maxItemsRead` items through `schema`; the ones that do not fit are skipped
 * and counted in one warning, worded by `skipped` (default "N results that could not be read skipped").
 */
export function parseEach<T>(items: readonly unknown[], schema: z.ZodType<T>, warnings: string[], what: string, skipped?: (n: number) => string): T[] {
  const parsed: T[] = [];
  let unread = 0;
  for (const item of firstItems(items, warnings, what)) {
    const result = schema.safeParse(item);
    if (result.success) parsed.push(result.data);
    else unread++;
  }
  if (unread > 0) warnings.push(skipped ? skipped(unread) : `${unread} ${unread === 1 ? what : plural(what)} that could not be read skipped`);
  return parsed;
}

/** "result" → "results", "story" → "stories". */
function plural(noun: string): string {
  return /[^aeiou]y$/.test(noun) ? `${noun.slice(0, -1)}ies` : `${noun}s`;
}

/**
 * A score or other number a source may send as a number or as a string of one. Anything else (an
 * object, text, infinity from `1e999`) reads as absent: an odd score must not lose the page it scores.
 */
export const looseNumber = z
  .unknown()
  .transform((value): number | undefined => finiteNumber(value))
  .optional();

/** A count (points, comments, stars, answers): a whole number, not negative, else absent. */
export const looseCount = z
  .unknown()
  .transform((value): number | undefined => {
    const n = finiteNumber(value);
    return n !== undefined && Number.isSafeInteger(n) && n >= 0 ? n : undefined;
  })
  .optional();

function finiteNumber(value: unknown): number | undefined {
  const n = typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value) : Number.NaN;
  return Number.isFinite(n) ? n : undefined;
}

/**
 * A list inside one result (tags, topics, snippets, authors): its first `maxItemsRead` items that
 * fit `item`, the others left out; anything but a list reads as absent. Checked whole, one null
 * among a question's tags or an unused score skipped the result it belonged to.
 */
export function looseList<T>(item: z.ZodType<T>) {
  return z
    .unknown()
    .transform((value): T[] | undefined => {
      if (!Array.isArray(value)) return undefined;
      const kept: T[] = [];
      for (const entry of value.slice(0, maxItemsRead)) {
        const parsed = item.safeParse(entry);
        if (parsed.success) kept.push(parsed.data);
      }
      return kept;
    })
    .optional();
}

/** A list of words or passages, read as `looseList` reads one. */
export const looseStrings = looseList(z.string());

/** Adds a warning when the source cannot honour a request option, instead of failing. */
export function warnUnsupported(request: ResolvedSearchRequest, label: string, warnings: string[], has: { freshness?: boolean; domains?: boolean }): void {
  if (!has.freshness && request.freshness !== "any") warnings.push(`${label} has no date filter; freshness “${request.freshness}” was ignored`);
  if (!has.domains && (request.includeDomains.length > 0 || request.excludeDomains.length > 0)) {
    warnings.push(`${label} has no domain filters; include/exclude domains were ignored`);
  }
}
