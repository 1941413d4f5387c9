// One query at all four levels, side by side: each level's results, and per note how its rank
// moved from one level to the next — what the comparison view and `vault-research compare` show,
// so a user can see what each level buys on their own vault. A level that could not run (no
// vectors, a rerank that failed) ran a lower one's search: it gets no ranks of its own, and the
// next level's moves are measured from the last level that ran.
import type { DialFilters } from "./dial-filters";
import { DIAL_LEVELS, type DialLevel, type DialNotice, type DialRequest, type DialResponse } from "./dial-types";

/** How a note's rank changed from the level it is compared with (`by` in places; up is better). */
export type RankMove = { kind: "same" } | { kind: "up"; by: number } | { kind: "down"; by: number } | { kind: "new" } | { kind: "gone" } | { kind: "absent" };

export interface ComparedLevel {
  level: DialLevel;
  /** The level that really ran: lower when vectors or a model were missing or failed (`notices` say why). */
  ranLevel: DialLevel;
  /**
   * The level this one's moves are measured from: the nearest one before it that ran as asked. Null
   * for level 1, and for a level that did not run (its moves are all "absent").
   */
  comparedWith: DialLevel | null;
  latencyMs: number;
  notices: DialNotice[];
  /** What the search returned, best first: a lower level's results when this one did not run. */
  keys: string[];
}

export interface ComparisonRow {
  key: string;
  title: string;
  /**
   * Rank at levels 1–4 (index 0 is level 1), null where the note was not shown — and at a level
   * that did not run: its results were a lower level's, already in that level's column.
   */
  ranks: (number | null)[];
  /** Move into levels 1–4 from the level each is compared with (level 1's, and a level's that did not run, are "same" or "absent"). */
  moves: RankMove[];
}

export interface LevelComparison {
  /** The query as the levels read it: cut at the question limit, a key typed into it scrubbed. */
  query: string;
  levels: ComparedLevel[];
  /** Best at the highest level that ran first, then by the best rank at any level. */
  rows: ComparisonRow[];
}

/** What runs the levels: any dial; one with `forOneQuery` (VaultSearch) embeds the query once for all of them. */
export interface LevelSearch {
  search(request: DialRequest): Promise<DialResponse>;
  forOneQuery?(): { search(request: DialRequest): Promise<DialResponse> };
}

/** Whether a level ran as asked; one that fell back ran another level's search, not its own. */
export function ranAsAsked(level: Pick<ComparedLevel, "level" | "ranLevel">): boolean {
  return level.ranLevel === level.level;
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
  const levels = comparedLevels(responses);
  // A level that fell back showed a lower level's results: they are that level's, not its own, so
  // they give no rank and no move here ("Rerank kept every note in place" when it never ran).
  const ran = responses.filter(ranAsAsked);
  const titles = new Map(ran.flatMap((r) => r.results.map((x) => [x.key, x.title] as const)));
  const rows = Array.from(titles, ([key, title]): ComparisonRow => {
    const ranks = responses.map((r) => {
      const i = ranAsAsked(r) ? r.results.findIndex((x) => x.key === key) : -1;
      return i < 0 ? null : i + 1;
    });
    const moves = levels.map((l, i) => (l.comparedWith === null ? rankMove(ranks[i], ranks[i]) : rankMove(ranks[l.comparedWith - 1], ranks[i])));
    return { key, title, ranks, moves };
  });
  const top = levels.reduce((highest, l) => (ranAsAsked(l) ? l.level : highest), 1);
  const topRank = (row: ComparisonRow) => row.ranks[top - 1] ?? Infinity;
  const bestRank = (row: ComparisonRow) => Math.min(...row.ranks.map((r) => r ?? Infinity));
  rows.sort((a, b) => topRank(a) - topRank(b) || bestRank(a) - bestRank(b) || (a.key < b.key ? -1 : 1));
  return {
    // As the dial read it (cut to the question limit, keys scrubbed), as a search shows its query.
    query: responses[0].query,
    levels,
    rows,
  };
}

/** Each level as it ran, and the level its moves are measured from: the last one before it that ran as asked. */
function comparedLevels(responses: readonly DialResponse[]): ComparedLevel[] {
  let lastRan: DialLevel | null = null;
  return responses.map((r) => {
    const comparedWith = ranAsAsked(r) ? lastRan : null;
    if (ranAsAsked(r)) lastRan = r.level;
    return { level: r.level, ranLevel: r.ranLevel, comparedWith, latencyMs: r.latencyMs, notices: r.notices, keys: r.results.map((x) => x.key) };
  });
}

function rankMove(before: number | null, now: number | null): RankMove {
  if (before === null && now === null) return { kind: "absent" };
  if (before === null) return { kind: "new" };
  if (now === null) return { kind: "gone" };
  if (now === before) return { kind: "same" };
  return now < before ? { kind: "up", by: before - now } : { kind: "down", by: now - before };
}
