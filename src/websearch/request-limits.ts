// Hard caps on what one research run may ask of a provider. A request outside them is clamped,
// never refused, and each clamp becomes a warning the user sees ("count 50 → 10").
import type { Settings } from "../settings";
import type { QuestionTopic, SearchRequest } from "./types";

export const searchLimits = {
  count: { min: 1, max: 10 },
  maxTokens: { min: 1024, max: 32_768 },
  maxContentChars: { min: 200, max: 20_000 },
  timeoutMs: { min: 1000, max: 120_000 },
  /** Brave refuses longer queries (400 characters, 50 words). */
  queryChars: 400,
  queryWords: 50,
  /** Domain filters per request. */
  domains: 50,
} as const;

export const defaultMaxContentChars = 3000;

/** A request with every limit applied and every default filled in. */
export interface ResolvedSearchRequest {
  query: string;
  count: number;
  freshness: NonNullable<SearchRequest["freshness"]>;
  includeDomains: string[];
  excludeDomains: string[];
  /** Only when the caller asked for one; providers fall back to their settings. */
  language?: string;
  country?: string;
  maxContentChars: number;
  maxTokens: number;
  timeoutMs: number;
  /** What the question is about, when the dispatcher said (empty otherwise). */
  topics: QuestionTopic[];
}

function clampNumber(
  name: string,
  value: number | undefined,
  fallback: number,
  range: { min: number; max: number },
  warnings: string[],
): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value)) {
    warnings.push(`${name} ${String(value)} → ${fallback}`);
    return fallback;
  }
  const whole = Math.round(value);
  const clamped = Math.min(range.max, Math.max(range.min, whole));
  if (clamped !== value) warnings.push(`${name} ${value} → ${clamped}`);
  return clamped;
}

function cleanDomains(name: string, domains: string[] | undefined, warnings: string[]): string[] {
  const cleaned = [...new Set((domains ?? []).map((d) => d.trim().toLowerCase()).filter((d) => d !== ""))];
  if (cleaned.length > searchLimits.domains) {
    warnings.push(`${name} ${cleaned.length} → ${searchLimits.domains}`);
    return cleaned.slice(0, searchLimits.domains);
  }
  return cleaned;
}

function shortenQuery(query: string, warnings: string[]): string {
  const words = query.trim().split(/\s+/).filter((w) => w !== "");
  let shortened = words.slice(0, searchLimits.queryWords).join(" ");
  if (characters(shortened).length > searchLimits.queryChars) {
    // Counted in characters, not UTF-16 units: cut by units, a query of one long word (Chinese or
    // Japanese has no spaces) could end in half an emoji, sent on as U+FFFD.
    shortened = characters(shortened).slice(0, searchLimits.queryChars).join("").replace(/\s+\S*$/, "");
  }
  if (words.length > searchLimits.queryWords || characters(words.join(" ")).length > searchLimits.queryChars) {
    const kept = shortened.split(" ").length;
    warnings.push(
      `query shortened to ${kept} word${kept === 1 ? "" : "s"} (${characters(shortened).length} characters; providers accept at most ${searchLimits.queryWords} words, ${searchLimits.queryChars} characters)`,
    );
  }
  return shortened;
}

/** The characters of `text` (code points: an emoji is one). */
function characters(text: string): string[] {
  return Array.from(text);
}

/** Applies the caps and the run's defaults; returns the warnings for every change made. */
export function resolveSearchRequest(
  request: SearchRequest,
  settings: Settings,
): { request: ResolvedSearchRequest; warnings: string[] } {
  const warnings: string[] = [];
  const external = settings.external;
  const resolved: ResolvedSearchRequest = {
    query: shortenQuery(request.query ?? "", warnings),
    count: clampNumber("count", request.count, external.count, searchLimits.count, warnings),
    freshness: request.freshness ?? external.freshness,
    includeDomains: cleanDomains("includeDomains", request.includeDomains, warnings),
    excludeDomains: cleanDomains("excludeDomains", request.excludeDomains, warnings),
    maxContentChars: clampNumber(
      "maxContentChars",
      request.maxContentChars,
      defaultMaxContentChars,
      searchLimits.maxContentChars,
      warnings,
    ),
    maxTokens: clampNumber("maxTokens", request.maxTokens, external.tokenBudget, searchLimits.maxTokens, warnings),
    timeoutMs: clampNumber("timeoutMs", request.timeoutMs, external.timeoutMs, searchLimits.timeoutMs, warnings),
    topics: [...new Set(request.topics ?? [])],
  };
  if (request.language) resolved.language = request.language;
  if (request.country) resolved.country = request.country;
  return { request: resolved, warnings };
}

/** Characters of text a provider may return per result, from the run's token budget. */
export function charsPerResult(request: ResolvedSearchRequest): number {
  // About four characters per token for English prose; good enough for a budget, not a bill.
  const perResult = Math.floor((request.maxTokens * 4) / request.count);
  return Math.max(searchLimits.maxContentChars.min, Math.min(request.maxContentChars, perResult));
}
