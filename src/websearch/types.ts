// The provider-neutral contract: what the research core asks of a web search provider and what
// comes back. Every provider (Brave, Exa, the free sources, SearXNG, Tavily) speaks only this.
import type { Clock, Http, Secrets } from "../ports";
import type { RateGovernor } from "./rate-governor";
import type { Freshness, ProviderName, Settings } from "../settings";

export type { ProviderName } from "../settings";

/** What a provider can do, so callers can skip or warn instead of failing. */
export interface ProviderCapabilities {
  search: boolean;
  /** Can fetch page contents for URLs already chosen (Exa `/contents`). */
  contents: boolean;
  freshness: boolean;
  domainFilters: boolean;
  highlights: boolean;
  fullText: boolean;
}

export interface SearchRequest {
  /** Built from the user's question only — never from note text. */
  query: string;
  /** URLs wanted; clamped to 1–10. */
  count: number;
  freshness?: Freshness;
  includeDomains?: string[];
  excludeDomains?: string[];
  /** Search language, e.g. `en` (default: the provider's setting). */
  language?: string;
  /** Two-letter country or `ALL` (default: the provider's setting). */
  country?: string;
  /** Characters of page text kept per result (default 3000, clamped to 200–20 000). */
  maxContentChars?: number;
  /** Token budget for all returned text together (default 8192, clamped to 1024–32 768). */
  maxTokens?: number;
  /** Per-provider deadline (default 15 000 ms, clamped to 1000–120 000). */
  timeoutMs?: number;
  /** What the question is about, as the dispatcher read it; sources with categories (SearXNG) use it. */
  topics?: QuestionTopic[];
}

/** What a question is about, read from its words (`routing.ts`); decides which sources fit it. */
export type QuestionTopic = "code" | "papers" | "science" | "medicine" | "news" | "background";

/**
 * What a source knows about a result beyond its text, kept as data and shown in words
 * (`source-signals.ts`): Hacker News points, GitHub stars, an accepted Stack Exchange answer.
 */
export type SourceSignal =
  | { kind: "points"; value: number }
  | { kind: "comments"; value: number }
  | { kind: "stars"; value: number }
  | { kind: "language"; value: string }
  | { kind: "last_push"; value: string }
  | { kind: "archived" }
  | { kind: "votes"; value: number }
  | { kind: "answers"; value: number }
  | { kind: "accepted_answer"; value: boolean }
  | { kind: "tags"; value: string[] }
  | { kind: "authors"; value: string[] }
  | { kind: "category"; value: string }
  | { kind: "journal"; value: string }
  | { kind: "engines"; value: string[] };

/** One web page as every provider reports it. Text fields are plain text (HTML stripped). */
export interface ProviderResult {
  url: string;
  canonicalUrl: string;
  title: string;
  /** Host without `www.`, e.g. `automerge.org`. */
  domain: string;
  /** A short description of the page (search-engine snippet or first highlight). */
  snippet?: string;
  /** Passages of the page that matched the query. */
  highlights: string[];
  /** Page text (or the provider's extracted context), at most `maxContentChars`. */
  text?: string;
  /** True when `text` was cut to fit the budget. */
  truncated?: boolean;
  summary?: string;
  author?: string;
  /** ISO 8601 date (or date-time) when the provider knew it. */
  publishedAt?: string;
  /** Provider's own relevance score, when it gives one (not comparable across providers). */
  score?: number;
  /** 1-based position in this provider's answer. */
  rank: number;
  /** What the source says about the result besides its text (points, stars, authors…). */
  signals?: SourceSignal[];
}

export interface ProviderResponse {
  provider: ProviderName;
  /** Which endpoint answered, e.g. `llm/context` or `web/search` (after a fallback). */
  endpoint: string;
  requestId?: string;
  query: string;
  results: ProviderResult[];
  /** Human-readable: clamps ("count 50 → 10"), fallbacks, ignored options, dropped results. */
  warnings: string[];
  /** True when served from the session cache instead of the network. */
  cached?: boolean;
}

export type ProviderErrorKind =
  | "auth"
  | "rate_limited"
  | "plan"
  | "unsupported"
  | "timeout"
  | "http"
  | "parse"
  | "network";

/**
 * What a failure of the `http` kind was, which its kind alone does not say: every one was worded
 * "answered with a server error", a server that only redirected, arXiv refusing the query in its
 * error feed and SearXNG whose engines all failed too, none of which sent a 5xx. A status sets it
 * (`httpFailureReason`); a failure with no error status names its own. `notes/web-outcome.ts` words each.
 */
export type HttpFailureReason =
  /** A 5xx status. */
  | "server_error"
  /** A 4xx status, or the service refusing the query in an answer of its own (arXiv's error feed). */
  | "refused"
  /** The service answered that it could not run the search, with no error status (PubMed's `ERROR`). */
  | "search_failed"
  /** A status that is neither an answer nor an error (1xx, 3xx): a redirect no one followed. */
  | "unexpected_status"
  /** Nothing but redirects: to the very address for ever, or to another site. */
  | "redirects_only"
  /** SearXNG answered with no results because the engines that would have found them did not answer. */
  | "engines_failed"
  /** A login page or a bot check answered where the search should have. */
  | "blocked";

/** The reason an error status gives an `http` failure. */
export function httpFailureReason(status: number): HttpFailureReason {
  if (status >= 500) return "server_error";
  if (status >= 400) return "refused";
  return "unexpected_status";
}

/**
 * What a failure was beyond its kind, where the kind alone would be worded wrongly. `http`: see
 * `HttpFailureReason`. `network` with `no_recording`: under replay, no recording answered the call,
 * and nothing was tried on the network (it was said "could not be reached").
 */
export type ProviderErrorReason = HttpFailureReason | "no_recording";

/** What a provider error carries besides its kind and message. */
export interface ProviderErrorExtra {
  status?: number;
  retryAfterMs?: number;
  cancelled?: true;
  /** Said where the status does not say it (no status, or a 200 that was a refusal). */
  reason?: ProviderErrorReason;
}

/** Why a provider gave no answer. The message is for people and never contains a key. */
export class ProviderError extends Error {
  readonly kind: ProviderErrorKind;
  readonly provider: ProviderName;
  readonly status?: number;
  readonly retryAfterMs?: number;
  /** What the failure was beyond its kind (`ProviderErrorReason`); an `http` failure with a status has one from it. */
  readonly reason?: ProviderErrorReason;
  /**
   * The call was cut off by a cancel (the run's Stop, or the source's own signal), not failed by the
   * source: its kind is `network`, as is a server that could not be reached, which a stopped run
   * took for part of the stop and said "stopped before it answered" of.
   */
  readonly cancelled?: true;

  constructor(
    provider: ProviderName,
    kind: ProviderErrorKind,
    message: string,
    extra: ProviderErrorExtra = {},
  ) {
    super(message);
    this.name = "ProviderError";
    this.provider = provider;
    this.kind = kind;
    if (extra.status !== undefined) this.status = extra.status;
    if (extra.retryAfterMs !== undefined) this.retryAfterMs = extra.retryAfterMs;
    if (extra.cancelled) this.cancelled = true;
    const reason = extra.reason ?? (kind === "http" && extra.status !== undefined ? httpFailureReason(extra.status) : undefined);
    if (reason !== undefined) this.reason = reason;
  }

  /** Plain data for packs, traces and `--json` output. */
  toJSON(): { provider: ProviderName; kind: ProviderErrorKind; message: string; status?: number; retryAfterMs?: number; reason?: ProviderErrorReason } {
    return {
      provider: this.provider,
      kind: this.kind,
      message: this.message,
      ...(this.status !== undefined ? { status: this.status } : {}),
      ...(this.retryAfterMs !== undefined ? { retryAfterMs: this.retryAfterMs } : {}),
      ...(this.reason !== undefined ? { reason: this.reason } : {}),
    };
  }
}

/** What providers report while working; never holds a key or a request header. */
export type ProviderLogEvent =
  | { type: "request"; provider: ProviderName; method: string; url: string }
  | { type: "response"; provider: ProviderName; url: string; status: number; ms: number; bytes: number }
  | { type: "late_answer_discarded"; provider: ProviderName; url: string }
  | { type: "fallback"; provider: ProviderName; from: string; to: string; reason: string }
  | { type: "cache_hit"; provider: ProviderName }
  | { type: "rate_wait"; provider: ProviderName; ms: number; why: RateWaitReason }
  | { type: "rate_wait_over"; provider: ProviderName; ms: number; why: RateWaitReason; ended: RateWaitEnding };

/**
 * Why a call waits its turn: this session's earlier calls at the pace the service allows (`pacing`:
 * Brave's one a second), or the service asked for a pause (`provider_asked`: a 429's Retry-After).
 */
export type RateWaitReason = "pacing" | "provider_asked";

/**
 * How a rate wait ended (`rate_wait_over`, with the time it really lasted): the turn came and the
 * call is sent now, or the run was cancelled first and nothing was sent, or the source was given up
 * on first (its own deadline passed: `given_up`, no stop of the user's) and nothing was sent. Without
 * it, "Waiting…" stayed on screen until the answer came, and a source still held back looked like a slow one.
 */
export type RateWaitEnding = "turn_came" | "cancelled" | "given_up";

export interface ProviderContext {
  http: Http;
  secrets: Secrets;
  clock: Clock;
  settings: Settings;
  /** Cancels the run; late answers are then ignored. */
  signal?: AbortSignal;
  log?: (event: ProviderLogEvent) => void;
  /** Spaces out calls per quota and honours 429 back-offs; shared by a session's runs. */
  governor?: RateGovernor;
}

export interface Provider {
  name: ProviderName;
  /** How the user sees it: "Brave", "Brave Web", "Exa", "Hacker News". */
  label: string;
  capabilities: ProviderCapabilities;
  search(request: SearchRequest, context: ProviderContext): Promise<ProviderResponse>;
  /** Page contents for URLs already chosen, under the same budget. Only when `capabilities.contents`. */
  contents?(urls: string[], request: SearchRequest, context: ProviderContext): Promise<ProviderResponse>;
}
