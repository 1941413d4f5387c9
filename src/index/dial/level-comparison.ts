// One query at all four levels, side by side: each level's results, and per note how its rank
// moved from one level to the next — what the comparison view and `vault-research compare` show,
// so a user can see what each level buys on their own vault.
import type { DialFilters } from "./dial-filters";
import { DIAL_LEVELS, type DialLevel, type DialNotice, type DialRequest, type DialResponse } from "./dial-types";

/** How a note's rank changed from the level before (`by` in places; up is better). */
export type RankMove = { kind: "same" } | { kind: "up"; by: number } | { kind: "down"; by: number } | { kind: "new" } | { kind: "gone" } | { kind: "absent" };

export interface ComparedLevel {
  level: DialLevel;
  ranLevel: DialLevel;
  latencyMs: number;
  notices: DialNotice[];
  keys: string[];
}

export interface ComparisonRow {
  key: string;
  title: string;
  /** Rank at levels 1–4 (index 0 is level 1), null where the note was not shown. */
  ranks: (number | null)[];
  /** Move into levels 1–4 from the level before (level 1's is "same" or "absent"). */
  moves: RankMove[];
}

export interface LevelComparison {
  /** The query as the levels read it: cut at the question limit, a key typed into it scrubbed. */
  query: string;
  levels: ComparedLevel[];
  /** Best at the top level first, then by the best rank at any level. */
  rows: ComparisonRow[];
}

/** What runs the levels: any dial; one with `forOneQuery` (VaultSearch) embeds the query once for all of them. */
export interface LevelSearch {
  search(request: DialRequest): Promise<DialResponse>;
  forOneQuery?(): { search(request: DialRequest): Promise<DialResponse> };
}

export async function compareLevels(search: LevelSearch, request: { query: string; filters?: DialFilters; limit?: number; signal?: AbortSignal }): Promise<LevelComparison> {
  const dial = search.forOneQuery?.() ?? search;
  const responses: DialResponse[] = [];
  // One after another: level 4 reuses nothing of the others, and a model server is happier so.
  for (const level of DIAL_LEVELS) {
    // Given up on (a new query, the view closed): the levels not yet run are not run — each would
    // be logged as a search the user made, and fall back to words with the embedding call cancelled.
    request.signal?.throwIfAborted();
    responses.push(await dial.search({ ...request, level }));
  }
  const titles = new Map(responses.flatMap((r) => r.results.map((x) => [x.key, x.title] as const)));
  const rows = Array.from(titles, ([key, title]): ComparisonRow => {
    const ranks = responses.map((r) => {
      const i = r.results.findIndex((x) => x.key === key);
      return i < 0 ? null : i + 1;
    });
    return { key, title, ranks, moves: ranks.map((rank, i) => rankMove(i === 0 ? rank : ranks[i - 1], rank)) };
  });
  const lastRank = (row: ComparisonRow) => row.ranks.at(-1) ?? Infinity;
  const bestRank = (row: ComparisonRow) => Math.min(...row.ranks.map((r) => r ?? Infinity));
  rows.sort((a, b) => lastRank(a) - lastRank(b) || bestRank(a) - bestRank(b) || (a.key < b.key ? -1 : 1));
  return {
    // As the dial read it (cut to the question limit, keys scrubbed), as a search shows its query.
    query: responses[0].query,
    levels: responses.map((r) => ({ level: r.level, ranLevel: r.ranLevel, latencyMs: r.latencyMs, notices: r.notices, keys: r.results.map((x) => x.key) })),
    rows,
  };
}

function rankMove(before: number | null, now: number | null): RankMove {
  if (before === null && now === null) return { kind: "absent" };
  if (before === null) return { kind: "new" };
  if (now === null) return { kind: "gone" };
  if (now === before) return { kind: "same" };
  return now < before ? { kind: "up", by: before - now } : { kind: "down", by: now - before };
}
