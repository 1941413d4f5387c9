// External retrieval: one bounded pass over the web. Each provider is asked each query built from
// the question (never from note text), and everything that left the device and came back is
// written into the trace as it happens. A provider that fails leaves a warning and the vault's
// rows stand (and it says so only when there are some); only when every provider failed does the
// run count web search as failed.
//
// The pass has the search's time (settings.external.timeoutMs, and never past the run's budget),
// shared by its queries: each is given what is left, so a slow source is given up on by its own
// deadline, with the answers of the others kept, before the stage's limit throws them all away.
import type { providerFailureKinds } from "../../evidence/research-pack";
import { providerDisplayName, providerList } from "../../evidence/labels";
import type { SecretName, Secrets } from "../../ports";
import type { ProviderName } from "../../settings";
import { dispatchSearch } from "../../websearch/dispatcher";
import { resolveSearchRequest, searchLimits } from "../../websearch/request-limits";
import { describeRoute, routeQuestion } from "../../websearch/routing";
import { createSearchSession, type MergedResult, type MultiSearchResult, type SearchSession } from "../../websearch/search-providers";
import type { ProviderContext, ProviderErrorKind } from "../../websearch/types";
import { RUN_LIMITS, workTimeLeft } from "../run-limits";
import type { RunState } from "../run-state";
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
}

interface Gathered {
  results: MergedResult[];
  failures: ProviderFailed[];
  /** Provider answers received, over all queries. */
  answered: number;
}

/** Every web result of the pass, best first per query; failures become warnings on the run. */
export async function retrieveExternal(run: RunState): Promise<MergedResult[]> {
  const { deps } = run;
  const session = deps.searchSession ?? createSearchSession({ clock: deps.clock });
  const secrets = recordingSecrets(deps.secrets, run.recorder);
  const context: ProviderContext = { http: deps.http, secrets, clock: deps.clock, settings: deps.settings, governor: session.governor };
  const gathered = await run.stages.run({
    name: "external_retrieval",
    start: `Searching the web with ${providerList(run.providers)}`,
    limitMs: deps.settings.external.timeoutMs + 5000,
    work: (signal) => askProviders(run, { ...context, signal }, session),
    done: describeGathered,
    outcome: (g) => (g.failures.length === 0 ? "done" : g.answered === 0 ? "failed" : "partial"),
  });
  // Said only of a vault that has rows: with none, "kept" promises what does not exist.
  const kept = run.vaultRows.length > 0 ? " Vault results are kept." : "";
  for (const f of gathered.failures) {
    const failed = `${providerDisplayName(f.provider)} failed (${f.kind}): ${f.message}`;
    // A source that fails both queries the same way is said once (the trace keeps each failure).
    if (run.external.failures.includes(failed)) continue;
    run.external.failures.push(failed);
    run.warnings.push({ kind: providerFailureWarning[f.kind], message: `${failed}${kept}` });
  }
  if (gathered.answered === 0 && gathered.failures.length > 0) run.external.failed = true;
  return gathered.results;
}

async function askProviders(run: RunState, context: ProviderContext, session: SearchSession): Promise<Gathered> {
  const { recorder, providers, count, freshness } = run;
  const { settings } = run.deps;
  const gathered: Gathered = { results: [], failures: [], answered: 0 };
  const timeLeft = workTimeLeft(recorder, settings.external.timeoutMs);
  // The dispatcher asks only the sources that fit the question; the trace says which and why.
  const routing = routeQuestion(run.request.question, providers).decisions;
  recorder.event("external_sources_routed", { asked: routing.filter((d) => d.ask).map((d) => d.source), skipped: routing.filter((d) => !d.ask).map((d) => d.source), reasons: routing.map(describeRoute) });
  for (const query of run.plan.provider_queries.slice(0, RUN_LIMITS.maxQueries)) {
    run.stages.checkStop();
    const left = Math.floor(timeLeft());
    if (left < searchLimits.timeoutMs.min) {
      recorder.event("external_query_built", { query, from: "question", not_sent: `only ${Math.max(0, left)} ms left of the search's ${settings.external.timeoutMs / 1000} s` });
      break;
    }
    const request = { question: run.request.question, query, count, freshness, timeoutMs: Math.min(settings.external.timeoutMs, left), maxTokens: settings.external.tokenBudget };
    // The trace says what leaves: the query as the dispatcher clamps it (providers take 50 words,
    // 400 characters), and each clamp in words. Said before the request, so a cancel cannot lose it.
    const { request: sent, warnings: clamps } = resolveSearchRequest(request, settings);
    recorder.event("external_query_built", { query: sent.query, from: "question", ...(clamps.length > 0 ? { clamps } : {}) });
    for (const provider of routing.filter((d) => d.ask).map((d) => d.source)) {
      run.stages.progress("external_retrieval", "started", `Asking ${providerDisplayName(provider)}`, provider);
      recorder.event("external_provider_request", { provider, query: sent.query, count, freshness });
    }
    recorder.querySent(sent.query);
    // Said as the query leaves, not once the stage is done: a run stopped mid-search did search the web.
    run.external.used = true;
    const outcome = await dispatchSearch(providers, request, context, session);
    // Searches cut off by a cancel come back as failures; they are the cancel, not the provider's fault.
    run.stages.checkStop();
    gathered.answered += recordResponses(run, outcome);
    gathered.failures.push(...recordFailures(recorder, outcome));
    gathered.results.push(...outcome.results);
    reportEachProvider(run, outcome);
    warnOfClamps(run, outcome.clamps);
  }
  return gathered;
}

/** What each provider did, in words, for its line under the stage. */
const failureWords: Record<ProviderErrorKind, string> = {
  auth: "no key, or the key was refused",
  rate_limited: "rate limited",
  plan: "not in your plan",
  unsupported: "not set up",
  timeout: "timed out",
  http: "server error",
  parse: "answer could not be read",
  network: "could not be reached",
};

function reportEachProvider(run: RunState, outcome: MultiSearchResult): void {
  for (const response of outcome.responses) {
    const n = response.results.length;
    run.stages.progress("external_retrieval", "done", `${n} result${n === 1 ? "" : "s"}`, response.provider);
  }
  for (const { provider, error } of outcome.errors) run.stages.progress("external_retrieval", "failed", failureWords[error.kind], provider);
}

/** Writes each answer into the trace, its warnings into the pack and its freshness into coverage. */
function recordResponses(run: RunState, outcome: MultiSearchResult): number {
  for (const response of outcome.responses) {
    run.recorder.event("external_provider_response", {
      provider: response.provider,
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

function recordFailures(recorder: TraceRecorder, outcome: MultiSearchResult): ProviderFailed[] {
  return outcome.errors.map(({ provider, error }) => {
    recorder.error("external_retrieval", error.kind, error.message, provider);
    recorder.event("external_provider_response", { provider, error: error.kind, message: error.message });
    return { provider, kind: error.kind, message: error.message };
  });
}

function describeGathered(g: Gathered): string {
  if (g.answered === 0 && g.failures.length > 0) {
    return `No web results: ${[...new Set(g.failures.map((f) => `${providerDisplayName(f.provider)} ${failureWords[f.kind]}`))].join("; ")}`;
  }
  const answers = `${g.answered} answer${g.answered === 1 ? "" : "s"}`;
  const errors = g.failures.length ? `; ${g.failures.length} provider error${g.failures.length === 1 ? "" : "s"}` : "";
  return `${g.results.length} web results from ${answers}${errors}`;
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
