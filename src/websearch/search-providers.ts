// The search session (what outlives one run) and the plain multi-provider search: every named
// provider asked concurrently, no routing. The dispatcher (dispatcher.ts) does the work; this is
// its shape for callers that name their providers exactly.
import { dispatchSearch, type MultiSearchResult } from "./dispatcher";
import { RateGovernor } from "./rate-governor";
import { createProviderRegistry } from "./registry";
import { SearchCache } from "./search-cache";
import type { SearchSession } from "./ask-source";
import type { ProviderContext, ProviderName, SearchRequest } from "./types";

export type { SearchSession } from "./ask-source";
export type { MultiSearchResult, ProviderFailure } from "./dispatcher";
export { mergeResults, type MergedResult } from "./merge-results";

export function createSearchSession(context: Pick<ProviderContext, "clock">): SearchSession {
  return {
    registry: createProviderRegistry(),
    cache: new SearchCache(context.clock),
    governor: new RateGovernor(context.clock),
  };
}

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
