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
  query: string;
  levels: ComparedLevel[];
  /** Best at the top level first, then by the best rank at any level. */
  rows: ComparisonRow[];
}

export async function compareLevels(
  search: { search(request: DialRequest): Promise<DialResponse> },
  request: { query: string; filters?: DialFilters; limit?: number; signal?: AbortSignal },
): Promise<LevelComparison> {
  const responses: DialResponse[] = [];
  // One after another: level 4 reuses nothing of the others, and a model server is happier so.
  for (const level of DIAL_LEVELS) {
    // Given up on (a new query, the view closed): the levels not yet run are not run — each would
    // be logged as a search the user made, and fall back to words with the embedding call cancelled.
    request.signal?.throwIfAborted();
    responses.push(await search.search({ ...request, level }));
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
    query: request.query,
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
