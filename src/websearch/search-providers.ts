// The search session (what outlives one run) and the plain multi-provider search: every named
// provider asked concurrently, no routing. The dispatcher (dispatcher.ts) does the work; this is
// its shape for callers that name their providers exactly.
import { dispatchSearch, type MultiSearchResult } from "./dispatcher";
import { defaultMinIntervals, RateGovernor } from "./rate-governor";
import { createProviderRegistry } from "./registry";
import { SearchCache } from "./search-cache";
import type { SearchSession } from "./ask-source";
import type { ProviderContext, ProviderName, SearchRequest } from "./types";

export type { SearchSession } from "./ask-source";
export type { MultiSearchResult, ProviderFailure } from "./dispatcher";
export { mergeResults, type MergedResult } from "./merge-results";

/**
 * `minIntervals`: the least time between two calls of each quota (source-limits.ts). A replayed run
 * gives none (`NO_PACING`): its calls reach no service, so keeping one's pace only kept the user waiting.
 */
export function createSearchSession(context: Pick<ProviderContext, "clock">, minIntervals: Record<string, number> = defaultMinIntervals): SearchSession {
  return {
    registry: createProviderRegistry(),
    cache: new SearchCache(context.clock),
    governor: new RateGovernor(context.clock, minIntervals),
  };
}

/** No least time between calls: for answers that come from recordings, not from a service. */
export const NO_PACING: Readonly<Record<string, number>> = Object.freeze({});

/** Queries `names` concurrently with the same request; without a session, nothing is remembered. */
export async function searchProviders(
  names: ProviderName[],
  request: SearchRequest,
  context: ProviderContext,
  session: SearchSession = createSearchSession(context),
): Promise<MultiSearchResult> {
  const { responses, errors, results } = await dispatchSearch(names, request, context, session, { route: false });
  return { responses, errors, results };
}
