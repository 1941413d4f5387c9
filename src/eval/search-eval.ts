// Scoring vault search against labelled questions: recall@k and mean reciprocal rank, overall and
// per corpus, per kind of question and per half of the vault split (eval-set.ts). A two-note
// question (kind multi_note) also says whether all its notes reached the top 5. Used by
// `npm run eval:search` and by the quality tests.
import type { NoteStore } from "../ports";
import { DIAL_LEVELS, type DialLevel, type DialNotice, type DialRequest, type DialResponse } from "../index/dial/dial-types";
import { openedFigures, type QueryReplay } from "../index/dial/query-replay";
import type { VaultIndex } from "../index/vault-index";
import { roundTo } from "../text/numbers";
import { groupCases } from "./eval-set";

export interface SearchCase {
  id?: string;
  question: string;
  /** Vault-relative paths of the notes that answer the question (for multi_note: that answer it together). */
  relevant: string[];
  /** Optional group for the per-group figures (e.g. the corpus a question is about). */
  corpus?: string;
  /** keyword | paraphrase | title | multi_note (see eval-set.ts); absent in older sets. */
  kind?: string;
}

/** What a search case needs besides its question: the notes that answer it (without them every search misses it). */
export function searchCaseProblem(c: Record<string, unknown>): string | null {
  return Array.isArray(c.relevant) && c.relevant.length > 0 ? null : "`relevant` should list the notes that answer it (a search case without them can only miss)";
}

export interface SearchFigures {
  cases: number;
  recall_at_5: number;
  mrr: number;
  /** multi_note only: share of questions with every relevant note in the top 5. */
  all_at_5?: number;
}

export interface SearchEvalReport extends SearchFigures {
  /** Per corpus (the older sets' only grouping). */
  by_group: Record<string, SearchFigures>;
  by_kind: Record<string, SearchFigures>;
  /** "fold A tune", "fold A report", …: the vault split. */
  by_fold: Record<string, SearchFigures>;
  misses: { id?: string; question: string; relevant: string[]; got: string[] }[];
  /** Per question, in the set's order, its top 5 (paths, one a line): how `--noise` sees which moved. */
  gave: string[];
}

interface SearchOutcome {
  corpus?: string;
  kind?: string;
  /** 0-based rank of the first relevant note in the top `depth`, -1 when none. */
  rank: number;
  allInTop5: boolean;
}

export async function scoreSearchCases(index: VaultIndex, store: NoteStore, cases: SearchCase[], depth = 10): Promise<SearchEvalReport> {
  return scoreSearchWith(async (question) => (await index.search(question, store, { limit: depth, sectionsPerNote: 1 })).map((r) => r.path), cases);
}

/** The figures of any search that gives vault paths best first (the index, a level of the dial). */
export async function scoreSearchWith(search: (question: string, c: SearchCase) => Promise<string[]>, cases: SearchCase[]): Promise<SearchEvalReport> {
  const outcomes: SearchOutcome[] = [];
  const misses: SearchEvalReport["misses"] = [];
  const gave: string[] = [];
  for (const c of cases) {
    const paths = await search(c.question, c);
    gave.push(paths.slice(0, 5).join("\n"));
    const rank = paths.findIndex((p) => c.relevant.includes(p));
    const top5 = new Set(paths.slice(0, 5));
    outcomes.push({ corpus: c.corpus, kind: c.kind, rank, allInTop5: c.relevant.every((p) => top5.has(p)) });
    if (rank === -1 || rank >= 5) misses.push({ id: c.id, question: c.question, relevant: c.relevant, got: paths.slice(0, 5) });
  }
  const by_group: Record<string, SearchFigures> = {};
  const by_kind: Record<string, SearchFigures> = {};
  const by_fold: Record<string, SearchFigures> = {};
  for (const [name, group] of groupCases(outcomes)) {
    const [axis, value] = name.startsWith("fold ") ? ["fold", name] : name.split(/:(.*)/s);
    const table = axis === "corpus" ? by_group : axis === "kind" ? by_kind : by_fold;
    table[value] = figuresOf(group);
  }
  return { ...figuresOf(outcomes), by_group, by_kind, by_fold, misses, gave };
}

function figuresOf(outcomes: SearchOutcome[]): SearchFigures {
  const n = Math.max(1, outcomes.length);
  const hits = outcomes.filter((o) => o.rank !== -1 && o.rank < 5).length;
  const rr = outcomes.reduce((sum, o) => sum + (o.rank === -1 ? 0 : 1 / (o.rank + 1)), 0);
  const multi = outcomes.filter((o) => o.kind === "multi_note");
  const figures: SearchFigures = { cases: outcomes.length, recall_at_5: roundTo(hits / n, 3), mrr: roundTo(rr / n, 3) };
  if (multi.length > 0) figures.all_at_5 = roundTo(multi.filter((o) => o.allInTop5).length / multi.length, 3);
  return figures;
}

export interface DialLevelReport extends Omit<SearchEvalReport, "recall_at_5" | "mrr"> {
  level: DialLevel;
  /**
   * The figures of the questions this level ran for (`cases` of them); null when it ran for none. A
   * question it could not run ran a lower level's search: those results are that level's, not this one's.
   */
  recall_at_5: number | null;
  mrr: number | null;
  /** Questions this level could not run (it ran lower): left out of every figure above. */
  not_run: number;
  /** Per level that actually ran, how many questions ran there (a level that cannot run runs lower). */
  ran_levels: Partial<Record<DialLevel, number>>;
  /** The distinct notices, with how many questions each was given. */
  notices: { kind: DialNotice["kind"]; message: string; count: number }[];
}

/** One level of the search dial over the labelled questions: recall@5 and MRR where it ran, and which level really ran. */
export async function scoreDialLevel(dial: { search(request: DialRequest): Promise<DialResponse> }, level: DialLevel, cases: SearchCase[], depth = 10): Promise<DialLevelReport> {
  const ran: Partial<Record<DialLevel, number>> = {};
  const notices = new Map<string, { kind: DialNotice["kind"]; message: string; count: number }>();
  const ranHere: { c: SearchCase; paths: string[] }[] = [];
  for (const c of cases) {
    const answer = await dial.search({ query: c.question, level, limit: depth });
    ran[answer.ranLevel] = (ran[answer.ranLevel] ?? 0) + 1;
    for (const n of answer.notices) {
      const seen = notices.get(n.message) ?? { kind: n.kind, message: n.message, count: 0 };
      seen.count++;
      notices.set(n.message, seen);
    }
    if (answer.ranLevel === level) ranHere.push({ c, paths: answer.results.map((r) => r.path) });
  }
  const pathsOf = new Map(ranHere.map((r) => [r.c, r.paths]));
  const report = await scoreSearchWith(async (_question, c) => pathsOf.get(c)!, ranHere.map((r) => r.c));
  const none = ranHere.length === 0;
  return { level, ...report, recall_at_5: none ? null : report.recall_at_5, mrr: none ? null : report.mrr, not_run: cases.length - ranHere.length, ran_levels: ran, notices: Array.from(notices.values()) };
}

/** One level of the replay: figures only over the scored queries it ran for (`ran`), null when none. */
export interface ReplayLevelDeltas {
  level: DialLevel;
  /** Scored queries this level ran for; the others ran a lower level's search and are left out. */
  ran: number;
  /** Replayed queries (scored or not) that ran at a lower level than this one. */
  ran_lower: number;
  mrr: number | null;
  recall_at_5: number | null;
  /** From level 1's figures over the same queries: a level that ran for few is not set against all of them. */
  mrr_delta: number | null;
  recall_at_5_delta: number | null;
}

export interface ReplayDeltas {
  queries: number;
  scored: number;
  /** Notes opened then that the vault no longer has at that path: set aside, not scored as misses. */
  opened_gone: number;
  levels: ReplayLevelDeltas[];
}

/**
 * The query log's replay (replayLoggedQueries) as figures per level with their deltas from level 1.
 * A query a level could not run (no vectors, a rerank that failed) ran a lower level's search: it is
 * not scored at that level, so a level that never ran reads as not run, not as a copy of the one below.
 */
export function replayDeltas(replay: QueryReplay): ReplayDeltas {
  const scored = replay.replayed.filter((r) => r.opened.length > 0);
  return {
    queries: replay.queries,
    scored: replay.scored,
    opened_gone: replay.openedGone,
    levels: DIAL_LEVELS.map((level, i) => {
      const ranHere = scored.filter((r) => r.ranLevels[i] === level);
      const ran_lower = replay.replayed.filter((r) => r.ranLevels[i] < level).length;
      if (ranHere.length === 0) return { level, ran: 0, ran_lower, mrr: null, recall_at_5: null, mrr_delta: null, recall_at_5_delta: null };
      const here = openedFigures(ranHere, i);
      const base = openedFigures(ranHere, 0);
      return {
        level,
        ran: ranHere.length,
        ran_lower,
        mrr: roundTo(here.mrr, 3),
        recall_at_5: roundTo(here.recallAt5, 3),
        mrr_delta: roundTo(here.mrr - base.mrr, 3),
        recall_at_5_delta: roundTo(here.recallAt5 - base.recallAt5, 3),
      };
    }),
  };
}
