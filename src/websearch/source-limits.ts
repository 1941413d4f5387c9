// The bounds each source runs under, in one table: how far apart its calls start (the rate
// governor's interval, from the service's published limit), how large an answer may be, and how
// many results the dispatcher keeps from it. Per-run bounds (count, tokens, timeouts) are in
// request-limits.ts; this file is what differs from one service to the next.
import type { ProviderName } from "./types";

export interface SourceLimits {
  /** Calls with the same quota share one governor slot (Brave's two endpoints share one key). */
  quota: string;
  /** Minimum milliseconds between two calls of this quota starting. */
  minIntervalMs: number;
  /** Answers larger than this are refused before parsing. */
  maxBytes: number;
  /** The published limit the interval follows, in words. */
  basis: string;
}

const kB = 1000;
const MB = 1_000_000;

export const SOURCE_LIMITS: Record<ProviderName, SourceLimits> = {
  brave: { quota: "brave", minIntervalMs: 1000, maxBytes: 2 * MB, basis: "Brave's free plan allows 1 request a second" },
  "brave-web": { quota: "brave", minIntervalMs: 1000, maxBytes: 2 * MB, basis: "one key with Brave LLM Context" },
  exa: { quota: "exa", minIntervalMs: 100, maxBytes: 2 * MB, basis: "Exa allows about 10 requests a second" },
  wikipedia: { quota: "wikipedia", minIntervalMs: 1000, maxBytes: 512 * kB, basis: "Wikimedia asks for requests in series, not bursts" },
  hackernews: { quota: "hackernews", minIntervalMs: 400, maxBytes: 1 * MB, basis: "HN Search allows 10,000 requests an hour per address" },
  arxiv: { quota: "arxiv", minIntervalMs: 3000, maxBytes: 1 * MB, basis: "arXiv asks for no more than one request every 3 seconds" },
  github: { quota: "github", minIntervalMs: 6000, maxBytes: 1 * MB, basis: "GitHub search allows 10 requests a minute without a token" },
  stackexchange: { quota: "stackexchange", minIntervalMs: 100, maxBytes: 1 * MB, basis: "Stack Exchange drops over 30 requests a second and sends backoff" },
  pubmed: { quota: "pubmed", minIntervalMs: 350, maxBytes: 512 * kB, basis: "E-utilities allow 3 requests a second without an API key" },
  searxng: { quota: "searxng", minIntervalMs: 1000, maxBytes: 2 * MB, basis: "one request a second, gentle on the instance's own limiter" },
  tavily: { quota: "tavily", minIntervalMs: 600, maxBytes: 2 * MB, basis: "Tavily allows 100 requests a minute on development keys" },
};

/** GitHub with a token: 30 searches a minute, so its own, shorter interval. */
export const githubWithToken = { quota: "github-token", minIntervalMs: 2000 } as const;

/** What the dispatcher keeps from each source: at most this many times the wanted count. */
export const resultsPerSourceFactor = 2;

/** The governor's intervals, by quota. */
export function quotaIntervals(): Record<string, number> {
  const intervals: Record<string, number> = { [githubWithToken.quota]: githubWithToken.minIntervalMs };
  for (const limits of Object.values(SOURCE_LIMITS)) intervals[limits.quota] = limits.minIntervalMs;
  return intervals;
}
