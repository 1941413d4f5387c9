// The query log replayed: each distinct logged query (with its filters) is run again at every
// level, and the notes the user opened after it are the answers — so a user sees what each level
// would have done for the searches they really made: MRR and recall@5 of the opened notes per
// level, and per query how the best opened note's rank moved. Give it a VaultSearch without a
// log, or the replay would log itself. The log names notes by path: a note opened then and not in
// the vault now (renamed, moved, deleted) no level can find, so it is set aside and counted rather
// than scored as every level's miss.
import type { QueryLogLine } from "../query-log/query-log";
import type { DialFilters } from "./dial-filters";
import { DIAL_LEVELS, type DialLevel, type DialResponse } from "./dial-types";
import type { LevelSearch } from "./level-comparison";

/** What replays the levels (VaultSearch fits): `holdsNote` tells an opened note the vault no longer has. */
export interface ReplaySearch extends LevelSearch {
  holdsNote?(path: string): boolean;
}

export interface ReplayedQuery {
  query: string;
  filters: Required<DialFilters>;
  /** Notes opened after any logged search for this query that the vault still has: what the levels are scored by. */
  opened: string[];
  /** Notes opened then that the vault no longer has at that path (renamed, moved, deleted): not scored. */
  openedGone: string[];
  /** Per level 1–4 (index 0 is level 1): the best rank of an opened note, null when none was shown. */
  bestOpenedRank: (number | null)[];
  /** Per level: how many opened notes were in the top 5. */
  openedInTop5: number[];
  /** The level each replay actually ran at (lower when vectors or a model were missing). */
  ranLevels: DialLevel[];
}

export interface ReplayLevelFigures {
  level: DialLevel;
  /** Mean of 1 / (best rank of an opened note), 0 when none was shown; over queries with an opened note. */
  mrr: number;
  /** Share of opened notes shown in the top 5, over all opened notes. */
  recallAt5: number;
  /** Replays that ran at a lower level than asked. */
  ranLower: number;
}

export interface QueryReplay {
  /** Distinct (query, filters) pairs replayed. */
  queries: number;
  /** Of those, the ones with an opened note still in the vault (the ones scored). */
  scored: number;
  /** Opened notes set aside because the vault no longer has them at the logged path. */
  openedGone: number;
  levels: ReplayLevelFigures[];
  replayed: ReplayedQuery[];
}

export async function replayLoggedQueries(search: ReplaySearch, lines: readonly QueryLogLine[], options: { limit?: number; maxQueries?: number; signal?: AbortSignal } = {}): Promise<QueryReplay> {
  const logged = distinctQueries(lines).slice(-(options.maxQueries ?? 200));
  const replayed: ReplayedQuery[] = [];
  for (const entry of logged) {
    if (options.signal?.aborted) break;
    // One query at every level: embedded once for all of them.
    const dial = search.forOneQuery?.() ?? search;
    const responses: DialResponse[] = [];
    for (const level of DIAL_LEVELS) {
      if (options.signal?.aborted) break;
      responses.push(await dial.search({ query: entry.query, level, filters: entry.filters, limit: options.limit ?? 10, signal: options.signal }));
    }
    // Stopped part-way through this query's levels: it is left out rather than scored on some of them.
    if (responses.length < DIAL_LEVELS.length) break;
    const inVault = (path: string) => search.holdsNote?.(path) ?? true;
    const opened = entry.opened.filter(inVault);
    const bestOpenedRank = responses.map((r) => {
      const i = r.results.findIndex((x) => opened.includes(x.key));
      return i < 0 ? null : i + 1;
    });
    const openedInTop5 = responses.map((r) => r.results.slice(0, 5).filter((x) => opened.includes(x.key)).length);
    replayed.push({ ...entry, opened, openedGone: entry.opened.filter((path) => !inVault(path)), bestOpenedRank, openedInTop5, ranLevels: responses.map((r) => r.ranLevel) });
  }
  const scored = replayed.filter((r) => r.opened.length > 0);
  const openedGone = replayed.reduce((sum, r) => sum + r.openedGone.length, 0);
  return { queries: replayed.length, scored: scored.length, openedGone, levels: DIAL_LEVELS.map((level, i) => levelFigures(level, i, replayed, scored)), replayed };
}

interface LoggedQuery {
  query: string;
  filters: Required<DialFilters>;
  opened: string[];
}

/** One entry per (query, filters), in order of last use, with every note opened after any of its searches. */
function distinctQueries(lines: readonly QueryLogLine[]): LoggedQuery[] {
  const byId = new Map<string, string>();
  const entries = new Map<string, LoggedQuery>();
  for (const line of lines) {
    if (line.type === "search") {
      const key = JSON.stringify([line.query.trim(), line.filters]);
      byId.set(line.id, key);
      const entry = entries.get(key) ?? { query: line.query.trim(), filters: line.filters, opened: [] };
      entries.delete(key);
      entries.set(key, entry);
    } else {
      const entry = entries.get(byId.get(line.id) ?? "");
      if (entry && !entry.opened.includes(line.key)) entry.opened.push(line.key);
    }
  }
  return Array.from(entries.values()).filter((e) => e.query !== "");
}

function levelFigures(level: DialLevel, i: number, replayed: ReplayedQuery[], scored: ReplayedQuery[]): ReplayLevelFigures {
  const { mrr, recallAt5 } = openedFigures(scored, i);
  return { level, mrr, recallAt5, ranLower: replayed.filter((r) => r.ranLevels[i] < level).length };
}

/** MRR of the best opened note and recall@5 of all opened notes, at level index `i`, over `queries` (0 for none). */
export function openedFigures(queries: readonly ReplayedQuery[], i: number): { mrr: number; recallAt5: number } {
  const reciprocal = queries.reduce((sum, r) => {
    const rank = r.bestOpenedRank[i];
    return sum + (rank === null ? 0 : 1 / rank);
  }, 0);
  const opened = queries.reduce((sum, r) => sum + r.opened.length, 0);
  const found = queries.reduce((sum, r) => sum + r.openedInTop5[i], 0);
  return { mrr: queries.length === 0 ? 0 : reciprocal / queries.length, recallAt5: opened === 0 ? 0 : found / opened };
}
