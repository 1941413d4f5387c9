// External retrieval: one bounded pass over the web. Each provider is asked each query built from
// the question (never from note text), and everything that left the device and came back is
// written into the trace as it happens: a query as a source sends it, never as it is handed over.
// A provider that fails leaves a warning and the vault's rows stand (and it says so only when there
// are some); only when every provider failed does the run count web search as failed.
//
// The pass has the search's time (settings.external.timeoutMs, and never past the run's budget),
// shared by its queries: each is given what is left, so a slow source is given up on by its own
// deadline, with the answers of the others kept, before the stage's limit throws them all away.
import type { providerFailureKinds, QueryPlan } from "../../evidence/research-pack";
import { providerDisplayName, providerList } from "../../evidence/labels";
import { failedClauses, sameFailure, sourceFailedHow } from "../../notes/web-outcome";
import type { SecretName, Secrets } from "../../ports";
import { asSentence, joinSentences } from "../../text/sentence-ends";
import type { Freshness, ProviderName } from "../../settings";
import { dispatchSearch, type DispatchOutcome } from "../../websearch/dispatcher";
import { resolveSearchRequest, searchLimits } from "../../websearch/request-limits";
import { describeRoute, routeQuestion, type RouteDecision } from "../../websearch/routing";
import { createSearchSession, type MergedResult, type MultiSearchResult, type SearchSession } from "../../websearch/search-providers";
import type { ProviderContext, ProviderError, ProviderErrorKind, ProviderErrorReason, ProviderLogEvent, RateWaitReason } from "../../websearch/types";
import { RUN_LIMITS, workTimeLeft } from "../run-limits";
import type { RunState, SourceFailure } from "../run-state";
import { RunStopped } from "../stage-runner";
import type { TraceRecorder } from "../trace-recorder";
import { answerCarriesPageText } from "./read-pages";

/** The pack warning of each way a provider can fail. */
const providerFailureWarning: Record<ProviderErrorKind, (typeof providerFailureKinds)[number]> = {
  auth: "provider_auth",
  rate_limited: "provider_rate_limited",
  plan: "provider_plan",
  unsupported: "provider_unsupported",
  timeout: "provider_timeout",
  http: "provider_http",
  parse: "provider_parse",
  network: "provider_network",
};

interface ProviderFailed {
  provider: ProviderName;
  kind: ProviderErrorKind;
  message: string;
  /** Whether the source's call had left the device (`sentBy`): no key set, or a key refused, for `auth`. */
  sent: boolean;
  /** What the failure was beyond its kind (a server that only redirected is no 5xx), when the error says. */
  reason?: ProviderErrorReason;
}

interface Gathered {
  results: MergedResult[];
  failures: ProviderFailed[];
  /** Provider answers received, over all queries. */
  answered: number;
}

/**
 * What the pass found. `stop`: the run stopped during it (Stop, or out of its time); `found` then
 * holds what the sources that had answered found, which the run keeps as its pack so far. Thrown
 * away with the stage, a Stop pressed while arXiv was slow lost Wikipedia's results, already there,
 * under a panel line saying "What was found before stopping is below".
 */
export interface WebSearched {
  found: MergedResult[];
  stop?: RunStopped;
}

/** Every web result of the pass, best first per query; failures become warnings on the run. */
export async function retrieveExternal(run: RunState): Promise<WebSearched> {
  const { deps } = run;
  const session = deps.searchSession ?? createSearchSession({ clock: deps.clock });
  const secrets = recordingSecrets(deps.secrets, run.recorder);
  const context: ProviderContext = { http: deps.http, secrets, clock: deps.clock, settings: deps.settings, governor: session.governor };
  // The dispatcher asks only the sources that fit the question; the trace says which and why.
  const routing = routeQuestion(run.request.question, run.providers).decisions;
  // Filled as each query's sources answer, so a stop leaves what came before it.
  const gathered: Gathered = { results: [], failures: [], answered: 0 };
  try {
    await run.stages.run({
      name: "external_retrieval",
      start: searchStart(run.providers, routing),
      limitMs: deps.settings.external.timeoutMs + 5000,
      work: (signal) => askProviders(run, { ...context, signal }, session, routing, gathered),
      done: describeGathered,
      outcome: (g) => (g.failures.length === 0 ? "done" : g.answered === 0 ? "failed" : "partial"),
    });
  } catch (error) {
    if (!(error instanceof RunStopped)) throw error;
    // The sources that failed before the stop failed all the same: the panel said so on their lines,
    // and the pack, the recall note and the trace note ("see Warnings below") say it too.
    keepFailures(run, gathered);
    return { found: gathered.results, stop: error };
  }
  keepFailures(run, gathered);
  return { found: gathered.results };
}

/**
 * Each source's failure, once per way it failed, as a pack warning and in the run's typed failures;
 * with no answer at all, the web search failed (a source a stop cut off is neither).
 */
function keepFailures(run: RunState, gathered: Gathered): void {
  // Said only of a vault that has rows: with none, "kept" promises what does not exist.
  const kept = run.vaultRows.length > 0 ? "Vault results are kept." : "";
  for (const f of gathered.failures) {
    const { sourceFailures } = run.external;
    const failure = typedFailure(f);
    if (!sourceFailures.some((s) => sameFailure(s, failure))) sourceFailures.push(failure);
    // A sentence of its own: a provider's message ends with no stop, and the next one ran into it.
    const failed = asSentence(`${providerDisplayName(f.provider)} failed (${f.kind}): ${f.message}`);
    // A source that fails both queries the same way is said once (the trace keeps each failure).
    if (run.external.failures.includes(failed)) continue;
    run.external.failures.push(failed);
    run.warnings.push({ kind: providerFailureWarning[f.kind], message: joinSentences(failed, kept) });
  }
  if (gathered.answered === 0 && gathered.failures.length > 0) run.external.failed = true;
}

/**
 * A failure as the run keeps it, with its reason: the recall note, the evidence brief and the model's
 * prompt word it from these (notes/web-outcome.ts reads the reason), and without it said "answered
 * with a server error" of a server that only redirected.
 */
function typedFailure(f: ProviderFailed): SourceFailure {
  return { provider: f.provider, kind: f.kind, sent: f.sent, ...(f.reason !== undefined ? { reason: f.reason } : {}) };
}

/**
 * The stage's opening words: the sources asked, and those the question does not fit. Naming every
 * enabled source told a CLI user watching a code question that Wikipedia and arXiv were searched.
 */
function searchStart(providers: readonly ProviderName[], routing: readonly RouteDecision[]): string {
  const asked = routing.filter((d) => d.ask).map((d) => d.source);
  const notAsked = routing.filter((d) => !d.ask).map((d) => d.source);
  if (asked.length === 0 || notAsked.length === 0) return `Searching the web with ${providerList(providers)}`;
  return `Searching the web with ${providerList(asked)} (not asked, as the question does not fit ${notAsked.length === 1 ? "it" : "them"}: ${providerList(notAsked)})`;
}

async function askProviders(run: RunState, context: ProviderContext, session: SearchSession, routing: readonly RouteDecision[], gathered: Gathered): Promise<Gathered> {
  const { recorder, providers, count, freshness } = run;
  const { settings } = run.deps;
  const timeLeft = workTimeLeft(recorder, settings.external.timeoutMs);
  recorder.event("external_sources_routed", { asked: routing.filter((d) => d.ask).map((d) => d.source), skipped: routing.filter((d) => !d.ask).map((d) => d.source), reasons: routing.map(describeRoute) });
  for (const [i, query] of run.plan.provider_queries.slice(0, RUN_LIMITS.maxQueries).entries()) {
    run.stages.checkStop();
    const origin = queryOrigin(query, i, run.plan, run.request.question);
    const left = Math.floor(timeLeft());
    if (left < searchLimits.timeoutMs.min) {
      recorder.event("external_query_built", { query, ...origin, not_sent: `only ${Math.max(0, left)} ms left of the search's ${settings.external.timeoutMs / 1000} s` });
      break;
    }
    const request = { question: run.request.question, query, count, freshness, timeoutMs: Math.min(settings.external.timeoutMs, left), maxTokens: settings.external.tokenBudget };
    // The trace says what leaves: the query as the dispatcher clamps it (providers take 50 words,
    // 400 characters), and each clamp in words. Said before the request, so a cancel cannot lose it.
    const { request: sent, warnings: clamps } = resolveSearchRequest(request, settings);
    recorder.event("external_query_built", { query: sent.query, ...origin, ...(clamps.length > 0 ? { clamps } : {}) });
    for (const provider of routing.filter((d) => d.ask).map((d) => d.source)) {
      run.stages.progress("external_retrieval", "started", `Asking ${providerDisplayName(provider)}`, provider);
    }
    // Said as the query is handed to the sources, not once the stage is done: a run stopped
    // mid-search did search the web. What left the device is recorded as it leaves (`recordSends`).
    run.external.used = true;
    const waits = new Map<ProviderName, RateWait>();
    const recordSend = recordSends(recorder, { query: sent.query, count, freshness });
    // Open while this query's sources are asked: a wait left behind by a source given up on would
    // otherwise say "Waiting…" under a line that already gave its outcome, or under the next query.
    let asking = true;
    const log = (e: ProviderLogEvent): void => {
      recordSend(e);
      if (asking) sayRateWait(run, e, waits);
    };
    const outcome = await dispatchSearch(providers, request, { ...context, log }, session);
    asking = false;
    gathered.answered += recordResponses(run, outcome, waits);
    gathered.results.push(...outcome.results);
    // Stopped meanwhile: what answered is in the trace and said, each source cut off is said as stopped.
    const stopped = stopOf(run);
    if (stopped) {
      gathered.failures.push(...sayStopped(run, outcome, waits));
      // What the dispatcher bounded shaped what the stopped run keeps (an answer cut to its share).
      warnOfClamps(run, outcome.clamps);
      throw stopped;
    }
    gathered.failures.push(...recordFailures(recorder, outcome, outcome.errors, waits));
    reportEachProvider(run, outcome);
    warnOfClamps(run, outcome.clamps);
  }
  return gathered;
}

/**
 * The query as sent to each source, written into the trace when the source really sends it (its
 * call's `request`, provider-http.ts's one send point), or answers it from the session's cache (the
 * same query, sent by this session earlier: `cached: true`). Recorded as each source was handed the
 * query, a source that refused it unsent (Brave with no key, a query empty once tidied) stood in the
 * trace as sent: its timeline said "external_provider_request | provider: brave", `queries_sent` held
 * the query and research --json's `providers_asked` named Brave, for a run that made no request.
 * Each source once per query (Brave's fallback sends a second call), the query once.
 */
function recordSends(recorder: TraceRecorder, sent: { query: string; count: number; freshness: Freshness }): (event: ProviderLogEvent) => void {
  const sentTo = new Set<ProviderName>();
  return (event) => {
    if ((event.type !== "request" && event.type !== "cache_hit") || sentTo.has(event.provider)) return;
    if (sentTo.size === 0) recorder.querySent(sent.query);
    sentTo.add(event.provider);
    recorder.event("external_provider_request", { provider: event.provider, ...sent, ...(event.type === "cache_hit" ? { cached: true } : {}) });
  };
}

/**
 * Where a query came from, for the trace: a reader of the note saw "automerge release 2026", a query
 * they never typed, and the trace said only that it came from the question. The plan (plan.ts)
 * sends the question itself, tidied for a search engine, and for a question about the current state
 * a second one of its keywords, pinned to this year unless the question names one.
 */
interface QueryOrigin {
  from: "question" | "question_tidied" | "question_keywords";
  /** The year the plan added to the keywords, which the question does not hold. */
  year_added?: number;
  why: string;
}

function queryOrigin(query: string, index: number, plan: QueryPlan, question: string): QueryOrigin {
  if (index === 0) {
    return sameWords(query, question)
      ? { from: "question", why: "the question as typed" }
      : { from: "question_tidied", why: "the question, tidied for a search engine: words about the vault (“in my notes”), a tag's # or what ran past 300 characters left out" };
  }
  const cues = plan.freshness.cues.length > 0 ? ` (“${plan.freshness.cues.join("”, “")}”)` : "";
  const keywords = `the question's keywords: it asks about the current state${cues}`;
  const year = /(?:^|\s)((?:19|20)\d{2})$/.exec(query)?.[1];
  if (year === undefined || new RegExp(`\\b${year}\\b`).test(question)) return { from: "question_keywords", why: keywords };
  return { from: "question_keywords", year_added: Number(year), why: `${keywords}, with the year ${year} added so pages of past years do not crowd out this year's` };
}

/** Whether two texts are the same words, spaced and composed alike. */
function sameWords(a: string, b: string): boolean {
  const words = (text: string) => text.normalize("NFKC").replace(/\s+/g, " ").trim();
  return words(a) === words(b);
}

/**
 * How long a source waited its turn at the rate governor before this query's call, and why; `cut`
 * when the run was stopped during the wait (then `ms` is the part it waited).
 */
interface RateWait {
  ms: number;
  why: RateWaitReason;
  cut?: true;
  /** The wait under way, counted in `ms` as asked until its end says how long it lasted. */
  underWay?: number;
}

/**
 * A source waiting its turn, said as the wait starts: without it a run that asks Brave twice sat a
 * second with nothing said, and looked hung. And said as it ends, when the source is asked: without
 * that, "Waiting…" stood until the answer came, and a source still held back looked like a slow one.
 * The wait, as long as it really lasted, is kept for that source's answer in the trace.
 */
function sayRateWait(run: RunState, event: ProviderLogEvent, waits: Map<ProviderName, RateWait>): void {
  const before = waits.get(event.provider);
  if (event.type === "rate_wait") {
    const name = providerDisplayName(event.provider);
    const why = event.why === "provider_asked" ? `: ${name} asked us to slow down` : ` for ${name}'s rate limit`;
    run.stages.progress("external_retrieval", "started", `Waiting ${waitWords(event.ms)}${why}`, event.provider);
    // A source that calls twice (Brave's fallback) may wait twice: the trace keeps the sum.
    const ms = Math.round(event.ms);
    waits.set(event.provider, { ms: (before?.ms ?? 0) + ms, why: before?.why === "provider_asked" ? before.why : event.why, underWay: ms });
  } else if (event.type === "rate_wait_over" && before) {
    // A wait cut short by a stop is said with the source's other news of the stop (sayStopped).
    if (event.ended === "turn_came") run.stages.progress("external_retrieval", "started", answerAwaited(event.provider, event.ms, event.why), event.provider);
    const ms = before.ms - (before.underWay ?? 0) + Math.round(event.ms);
    waits.set(event.provider, { ms, why: before.why, ...(event.ended === "cancelled" ? { cut: true as const } : {}) });
  }
}

/** "Waiting for Brave's answer (after 1 s for its rate limit)": asked now, so any wait from here is the source's. */
function answerAwaited(provider: ProviderName, ms: number, why: RateWaitReason): string {
  const after = why === "provider_asked" ? `after the ${waitWords(ms)} pause it asked for` : `after ${waitWords(ms)} for its rate limit`;
  return `Waiting for ${providerDisplayName(provider)}'s answer (${after})`;
}

/** "1 s" for Brave's 975 ms left of its second: what a person reads while waiting, not a measurement. */
function waitWords(ms: number): string {
  return ms < 500 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1).replace(/\.0$/, "")} s`;
}

/** A rate wait as trace data, beside the source's answer or failure; `rate_wait_cut` when a stop ended it. */
function rateWaitData(wait: RateWait | undefined): Record<string, unknown> {
  if (!wait) return {};
  return { rate_wait_ms: wait.ms, rate_wait: wait.why, ...(wait.cut ? { rate_wait_cut: "cancelled" } : {}) };
}

function reportEachProvider(run: RunState, outcome: DispatchOutcome): void {
  reportAnswers(run, outcome);
  for (const { provider, error } of outcome.errors) run.stages.progress("external_retrieval", "failed", failedHow(outcome, provider, error), provider);
}

/** How the source failed, in the words of every surface: an `auth` failure told by whether its call left, an `http` one by its reason. */
function failedHow(outcome: DispatchOutcome, provider: ProviderName, error: ProviderError): string {
  return sourceFailedHow(error.kind, { provider, sent: sentBy(outcome, provider), ...(error.reason !== undefined ? { reason: error.reason } : {}) });
}

function reportAnswers(run: RunState, outcome: MultiSearchResult): void {
  for (const response of outcome.responses) {
    const n = response.results.length;
    run.stages.progress("external_retrieval", "done", `${n} result${n === 1 ? "" : "s"}`, response.provider);
  }
}

/** The run's stop (cancelled, or past its budget) when it has stopped, else null. */
function stopOf(run: RunState): RunStopped | null {
  try {
    run.stages.checkStop();
    return null;
  } catch (stop) {
    if (stop instanceof RunStopped) return stop;
    throw stop;
  }
}

/**
 * A search the run stopped during. Before, every source's outcome was dropped: a source that had
 * answered was neither said nor traced (its request had left and its answer come back), and one cut
 * off had no line of its own. A source cut off comes back as a failure marked `cancelled`, which is
 * the stop and no fault of the source's; any other failure (one that could not reach its server
 * too) happened before the stop, and is returned to be kept with the others.
 */
function sayStopped(run: RunState, outcome: DispatchOutcome, waits: ReadonlyMap<ProviderName, RateWait>): ProviderFailed[] {
  reportAnswers(run, outcome);
  const cutOff = outcome.errors.filter((f) => f.error.cancelled);
  const failed = recordFailures(run.recorder, outcome, outcome.errors.filter((f) => !cutOff.includes(f)), waits);
  for (const { provider } of cutOff) {
    const wait = waits.get(provider);
    run.recorder.event("external_provider_response", { provider, sent: sentBy(outcome, provider), stopped: "cancelled", ...rateWaitData(wait) });
    run.stages.progress("external_retrieval", "stopped", wait?.cut ? "stopped while it waited its rate turn" : "stopped before it answered", provider);
  }
  for (const { provider, error } of outcome.errors) {
    if (!cutOff.some((f) => f.provider === provider)) run.stages.progress("external_retrieval", "failed", failedHow(outcome, provider, error), provider);
  }
  return failed;
}

/** Writes each answer into the trace, its warnings into the pack and its freshness into coverage. */
function recordResponses(run: RunState, outcome: MultiSearchResult, waits: ReadonlyMap<ProviderName, RateWait>): number {
  for (const response of outcome.responses) {
    run.recorder.event("external_provider_response", {
      provider: response.provider,
      ...rateWaitData(waits.get(response.provider)),
      endpoint: response.endpoint,
      results: response.results.length,
      urls: response.results.slice(0, 10).map((r) => r.url),
      titles: response.results.slice(0, 10).map((r) => r.title),
      cached: response.cached === true,
      warnings: response.warnings,
    });
    if (answerCarriesPageText(response.provider, response.endpoint)) for (const r of response.results) run.external.withPageText.add(r.canonicalUrl);
    for (const w of response.warnings) run.warnings.push({ kind: "provider_warning", message: `${providerDisplayName(response.provider)}: ${w}` });
    const newest = response.results.map((r) => r.publishedAt).filter((d): d is string => !!d).sort().pop();
    if (!run.external.freshness.some((f) => f.provider === response.provider)) {
      run.external.freshness.push(newest ? { provider: response.provider, requested: run.freshness, newest_published_at: newest } : { provider: response.provider, requested: run.freshness });
    }
  }
  return outcome.responses.length;
}

/**
 * What the dispatcher bounded, each once for the run: the query as sent, results cut per source,
 * search operators a keyword source left out. The trace note and --json show the pack's warnings.
 */
function warnOfClamps(run: RunState, clamps: readonly string[]): void {
  for (const message of clamps) {
    if (!run.warnings.some((w) => w.kind === "search_clamped" && w.message === message)) run.warnings.push({ kind: "search_clamped", message });
  }
}

/**
 * Each failure as a trace error and a timeline row that says whether the source was sent anything:
 * a source that refused the query unsent (no key, an empty query) read "external_provider_response |
 * provider: brave; error: auth", a response from a source that had received nothing. `sent` also
 * tells the trace's readers a key refused from none set (`notes/web-outcome.ts`, `sourceFailedHow`).
 */
function recordFailures(recorder: TraceRecorder, outcome: DispatchOutcome, errors: MultiSearchResult["errors"], waits: ReadonlyMap<ProviderName, RateWait>): ProviderFailed[] {
  return errors.map(({ provider, error }) => {
    const sent = sentBy(outcome, provider);
    const reason = error.reason !== undefined ? { reason: error.reason } : {};
    recorder.error("external_retrieval", error.kind, error.message, provider);
    recorder.event("external_provider_response", { provider, sent, error: error.kind, ...reason, message: error.message, ...rateWaitData(waits.get(provider)) });
    return { provider, kind: error.kind, message: error.message, sent, ...reason };
  });
}

/** Whether a call of the source's left the device in this search (the dispatcher's report of it). */
function sentBy(outcome: DispatchOutcome, provider: ProviderName): boolean {
  const report = outcome.sources.find((s) => s.source === provider);
  return report !== undefined && report.status !== "skipped" && report.sent;
}

function describeGathered(g: Gathered): string {
  if (g.answered === 0 && g.failures.length > 0) {
    return `No web results: ${failedClauses(g.failures).join("; ")}`;
  }
  const answers = `${g.answered} answer${g.answered === 1 ? "" : "s"}`;
  const errors = g.failures.length ? `; ${g.failures.length} provider error${g.failures.length === 1 ? "" : "s"}` : "";
  const results = `${g.results.length} web result${g.results.length === 1 ? "" : "s"}`;
  return `${results} from ${answers}${errors}`;
}

/** Secrets that tell the trace which values to scrub as soon as they are looked up. */
function recordingSecrets(secrets: Secrets, recorder: TraceRecorder): Secrets {
  return {
    async get(name: SecretName) {
      const value = await secrets.get(name);
      recorder.addSecrets(value);
      return value;
    },
  };
}
