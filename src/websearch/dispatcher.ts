// The dispatcher: one search across the sources a run may use. It picks the sources that fit the
// question (routing.ts), bounds each one (its own time limit, body cap and rate governor; at most
// 2 × the wanted results kept), asks them concurrently, merges what came back (merge-results.ts)
// and reports, per source, whether it answered, failed or was skipped — and why — with every
// clamp in words. One source failing never spoils the others.
import { stopwatch } from "../ports";
import { PROVIDER_NAMES } from "../provider-names";
import { askSource, type SearchSession } from "./ask-source";
import { KEYWORD_SOURCES, onlyOperators, searchOperators } from "./keyword-query";
import { mergeResults, type MergedResult } from "./merge-results";
import { maxResponseBytes } from "./provider-http";
import { resolveSearchRequest } from "./request-limits";
import { routeQuestion, type RouteDecision } from "./routing";
import { resultsPerSourceFactor, SOURCE_LIMITS } from "./source-limits";
import { ProviderError, type ProviderContext, type ProviderLogEvent, type ProviderName, type ProviderResponse, type QuestionTopic, type SearchRequest } from "./types";

export interface DispatchRequest extends SearchRequest {
  /** The user's question, which routing reads (default: the query). */
  question?: string;
}

export interface DispatchOptions {
  /** Ask only the sources that fit the question (default). Off: every named source is asked. */
  route?: boolean;
}

export interface ProviderFailure {
  provider: ProviderName;
  error: ProviderError;
}

/** The bounds a source ran under, for --json and the trace. */
export interface SourceBounds {
  timeoutMs: number;
  maxBytes: number;
  maxResults: number;
  minIntervalMs: number;
}

/**
 * One source's part in the search. `sent`: a call of this search left the device for it (its
 * `request`, provider-http.ts's one send point). A source that answered from the session's cache, or
 * refused before sending (no key, an empty query, a run cancelled while it waited its turn), sent
 * nothing: asked is not sent.
 */
export type SourceReport =
  | { source: ProviderName; status: "answered"; route: RouteDecision; bounds: SourceBounds; ms: number; returned: number; kept: number; cached: boolean; sent: boolean }
  | { source: ProviderName; status: "failed"; route: RouteDecision; bounds: SourceBounds; ms: number; error: ProviderError; sent: boolean }
  | { source: ProviderName; status: "skipped"; route: RouteDecision };

/**
 * Whether the source was sent the query: a call of its left (`sent`), or its answer came from the
 * session's cache, which sent the same query earlier. A source that refused the query before sending
 * (no key set for it, an empty query) was not: "asked" on every surface means the query left.
 */
export function sentTheQuery(report: SourceReport): boolean {
  return report.status !== "skipped" && (report.sent || (report.status === "answered" && report.cached));
}

export interface MultiSearchResult {
  /** Answers in the order the providers were asked (failed ones left out). */
  responses: ProviderResponse[];
  errors: ProviderFailure[];
  /**
   * Every distinct page, best first (merge-results.ts). Not cut to `count`: the caller first drops
   * pages the vault already holds, then takes `count`.
   */
  results: MergedResult[];
}

export interface DispatchOutcome extends MultiSearchResult {
  /** The query as sent (after clamps). */
  query: string;
  /** What routing read in the question. */
  topics: QuestionTopic[];
  /** One report per source considered, in the order given. */
  sources: SourceReport[];
  /** Every clamp applied, to the request or to what came back, in words ("count 50 → 10"). */
  clamps: string[];
}

function boundsFor(source: ProviderName, timeoutMs: number, count: number): SourceBounds {
  // A name from an old settings file or a typo has no limits; askSource reports it as unsupported.
  const limits = SOURCE_LIMITS[source] ?? { maxBytes: maxResponseBytes, minIntervalMs: 0 };
  return { timeoutMs, maxBytes: limits.maxBytes, maxResults: count * resultsPerSourceFactor, minIntervalMs: limits.minIntervalMs };
}

/** Asks the fitting `sources` concurrently and merges their answers. */
export async function dispatchSearch(
  sources: readonly ProviderName[],
  request: DispatchRequest,
  context: ProviderContext,
  session: SearchSession,
  options: DispatchOptions = {},
): Promise<DispatchOutcome> {
  const { question, ...searchRequest } = request;
  const { request: resolved, warnings: clamps } = resolveSearchRequest(searchRequest, context.settings);
  const unique = [...new Set(sources)];
  const routed = options.route === false ? undefined : routeQuestion(question ?? resolved.query, unique);
  const decisions = routed?.decisions ?? unique.map((source): RouteDecision => ({ source, ask: true, reason: { kind: "asked_by_name" } }));
  const topics = routed?.reading.topics ?? [];
  const timeoutMs = Math.min(resolved.timeoutMs, context.settings.external.sourceTimeoutMs);
  const perSource: SearchRequest = { ...searchRequest, timeoutMs, ...(topics.length > 0 ? { topics } : {}) };

  const sourceReports = await Promise.all(
    decisions.map((route): Promise<BoundedAnswer> =>
      route.ask
        ? askBounded(route, perSource, boundsFor(route.source, timeoutMs, resolved.count), context, session)
        : Promise.resolve({ report: { source: route.source, status: "skipped", route } }),
    ),
  );
  const left = operatorsLeftOut(resolved.query, decisions);
  if (left) clamps.push(left);
  const responses: ProviderResponse[] = [];
  const errors: ProviderFailure[] = [];
  for (const { report, response } of sourceReports) {
    if (response) responses.push(response.answer);
    if (response?.clamp) clamps.push(response.clamp);
    if (report.status === "failed") errors.push({ provider: report.source, error: report.error });
  }
  return { query: resolved.query, topics, sources: sourceReports.map((s) => s.report), clamps, responses, errors, results: mergeResults(responses) };
}

/**
 * "“site:github.com” left out for Wikipedia, GitHub: …", when a keyword source asked cannot honour an
 * operator the user typed. Never said of a query that is nothing but operators: routing asks no
 * keyword source then, and one asked by name is sent the operators as its only words.
 */
function operatorsLeftOut(query: string, decisions: readonly RouteDecision[]): string | undefined {
  if (onlyOperators(query).length > 0) return undefined;
  const operators = searchOperators(query);
  const sources = decisions.filter((d) => d.ask && KEYWORD_SOURCES.includes(d.source)).map((d) => PROVIDER_NAMES[d.source].choice);
  if (operators.length === 0 || sources.length === 0) return undefined;
  return `${operators.map((o) => `“${o}”`).join(", ")} left out for ${sources.join(", ")}: they search for words, not with search operators`;
}

interface BoundedAnswer {
  report: SourceReport;
  response?: { answer: ProviderResponse; clamp?: string };
}

/** One source under its bounds: timed, and cut to its share of results. */
async function askBounded(route: RouteDecision, request: SearchRequest, bounds: SourceBounds, context: ProviderContext, session: SearchSession): Promise<BoundedAnswer> {
  // On the monotonic reading: on the wall clock, one set back during the call hid its time, one stepped forward made it a day.
  const elapsed = stopwatch(context.clock);
  let sent = false;
  const log = (event: ProviderLogEvent): void => {
    if (event.type === "request") sent = true;
    context.log?.(event);
  };
  const outcome = await askSource(route.source, request, bounds.timeoutMs, { ...context, log }, session);
  const ms = elapsed();
  if (outcome instanceof ProviderError) return { report: { source: route.source, status: "failed", route, bounds, ms, error: outcome, sent } };
  const returned = outcome.results.length;
  const kept = Math.min(returned, bounds.maxResults);
  const answer = kept < returned ? { ...outcome, results: outcome.results.slice(0, kept) } : outcome;
  const clamp = kept < returned ? `${PROVIDER_NAMES[route.source].choice}: ${returned} results → ${kept} (at most ${resultsPerSourceFactor} × the ${bounds.maxResults / resultsPerSourceFactor} wanted)` : undefined;
  return {
    report: { source: route.source, status: "answered", route, bounds, ms, returned, kept, cached: outcome.cached === true, sent },
    response: { answer, ...(clamp ? { clamp } : {}) },
  };
}
