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

/** Why a provider gave no answer. The message is for people and never contains a key. */
export class ProviderError extends Error {
  readonly kind: ProviderErrorKind;
  readonly provider: ProviderName;
  readonly status?: number;
  readonly retryAfterMs?: number;
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
    extra: { status?: number; retryAfterMs?: number; cancelled?: true } = {},
  ) {
    super(message);
    this.name = "ProviderError";
    this.provider = provider;
    this.kind = kind;
    if (extra.status !== undefined) this.status = extra.status;
    if (extra.retryAfterMs !== undefined) this.retryAfterMs = extra.retryAfterMs;
    if (extra.cancelled) this.cancelled = true;
  }

  /** Plain data for packs, traces and `--json` output. */
  toJSON(): { provider: ProviderName; kind: ProviderErrorKind; message: string; status?: number; retryAfterMs?: number } {
    return {
      provider: this.provider,
      kind: this.kind,
      message: this.message,
      ...(this.status !== undefined ? { status: this.status } : {}),
      ...(this.retryAfterMs !== undefined ? { retryAfterMs: this.retryAfterMs } : {}),
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
