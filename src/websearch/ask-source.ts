// One source asked once: from the session cache when it answered the same request recently,
// else under its own deadline. Every outcome is a value — an answer or a ProviderError — so one
// source failing (or a bug in its parser) never spoils the others.
import { DeadlineMissed, whenAborted, withDeadline } from "../deadline";
import { stopwatch } from "../ports";
import type { RateGovernor } from "./rate-governor";
import type { ProviderRegistry } from "./registry";
import { stableKey, type SearchCache } from "./search-cache";
import { ProviderError, type ProviderContext, type ProviderLogEvent, type ProviderName, type ProviderResponse, type SearchRequest } from "./types";

/** What outlives one run: the registry, the answer cache and the rate governor. */
export interface SearchSession {
  registry: ProviderRegistry;
  cache: SearchCache;
  governor: RateGovernor;
}

/** The settings that change what a source answers, so a changed setting is a new cache entry. */
function cacheKey(name: ProviderName, request: SearchRequest, context: ProviderContext): string {
  const { brave, exa, freshness, wikipedia, stackexchange, searxng, tavily } = context.settings.external;
  // How long the caller would wait is no part of what a source answers: a run's second query, given
  // what is left of the search's time, asks the same as a first one given all of it.
  const asked: Partial<SearchRequest> = { ...request };
  delete asked.timeoutMs;
  return stableKey({ provider: name, request: asked, brave, exa, freshness, wikipedia, stackexchange, searxng, tavily });
}

export async function askSource(
  name: ProviderName,
  request: SearchRequest,
  timeoutMs: number,
  context: ProviderContext,
  session: SearchSession,
): Promise<ProviderResponse | ProviderError> {
  const provider = session.registry.get(name);
  if (!provider) return new ProviderError(name, "unsupported", `There is no web search provider called “${name}”.`);
  if (request.query.trim() === "") return new ProviderError(name, "unsupported", "The search query is empty.");

  const key = cacheKey(name, request, context);
  const cached = session.cache.get(key);
  if (cached) {
    context.log?.({ type: "cache_hit", provider: name });
    return { ...cached, cached: true };
  }

  // The source's own signal, aborted with the run's and once the source is done, however it ended:
  // a call of a source given up on by its deadline, still waiting its rate turn, was sent anyway
  // when its turn came, its answer thrown away and the turn lost to the next call.
  const own = new AbortController();
  // Who aborted it first: the run (a Stop, the stage's end), or this source, done or given up on.
  let abortedBy: "run" | "source" | undefined;
  const waits = rateWaitsOf(context, () => abortedBy === "source");
  const stopFollowing = context.signal
    ? whenAborted(context.signal, () => {
        abortedBy ??= "run";
        own.abort();
      })
    : () => undefined;
  try {
    // Providers enforce the deadline per HTTP call; this one bounds the whole source (Brave's
    // fallback and PubMed make two calls, the governor may make them wait).
    const response = await withDeadline(provider.search(request, { ...context, signal: own.signal, log: waits.log, governor: context.governor ?? session.governor }), {
      clock: context.clock,
      ms: timeoutMs,
      ...(context.signal ? { signal: context.signal } : {}),
      onLate: () => context.log?.({ type: "late_answer_discarded", provider: name, url: "" }),
    });
    session.cache.set(key, response);
    return response;
  } catch (error) {
    if (error instanceof ProviderError) return error;
    if (error instanceof DeadlineMissed) {
      return error.kind === "timeout"
        ? new ProviderError(name, "timeout", `${provider.label} did not answer within ${Math.round(timeoutMs / 1000)} s${waitedWords(waits.waitedMs())}.`)
        : new ProviderError(name, "network", `The ${provider.label} search was cancelled.`, { cancelled: true });
    }
    // A bug in a parser must not take the run down; the message has no key (providers scrub theirs).
    const message = error instanceof Error ? error.message : String(error);
    return new ProviderError(name, "parse", `${provider.label}'s answer could not be read: ${message}`);
  } finally {
    stopFollowing();
    abortedBy ??= "source";
    own.abort();
  }
}

/**
 * The time a source's calls spent waiting their rate turn, read from what they log. A source given
 * 8 s that waited 7 of them for a pause it asked for was said to have "not answered within 8 s",
 * and the user raised a time limit that was not the trouble.
 */
function rateWaitsOf(context: ProviderContext, givenUp: () => boolean): { log: (event: ProviderLogEvent) => void; waitedMs: () => number } {
  let waited = 0;
  let waiting: (() => number) | null = null;
  return {
    log: (event) => {
      if (event.type === "rate_wait") waiting = stopwatch(context.clock);
      if (event.type === "rate_wait_over") {
        waited += event.ms;
        waiting = null;
        // Cut by the source's own signal while the run goes on: its deadline passed, no one stopped
        // it. Said as a cancel, the trace note told of a source that timed out "stopped after 8000 ms".
        if (event.ended === "cancelled" && givenUp()) {
          context.log?.({ ...event, ended: "given_up" });
          return;
        }
      }
      context.log?.(event);
    },
    waitedMs: () => waited + (waiting?.() ?? 0),
  };
}

/** ", 7 s of which went on waiting its rate turn": said from half a second on. */
function waitedWords(ms: number): string {
  return ms >= 500 ? `, ${Math.round(ms / 1000)} s of which went on waiting its rate turn` : "";
}
