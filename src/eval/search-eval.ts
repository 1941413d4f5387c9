// Scoring vault search against labelled questions: recall@k and mean reciprocal rank, overall and
// per corpus, per kind of question and per half of the vault split (eval-set.ts). A two-note
// question (kind multi_note) also says whether all its notes reached the top 5. Used by
// `npm run eval:search` and by the quality tests.
import type { NoteStore } from "../ports";
import { DIAL_LEVELS, type DialLevel, type DialNotice, type DialRequest, type DialResponse } from "../index/dial/dial-types";
import type { QueryReplay } from "../index/dial/query-replay";
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
export async function scoreSearchWith(search: (question: string) => Promise<string[]>, cases: SearchCase[]): Promise<SearchEvalReport> {
  const outcomes: SearchOutcome[] = [];
  const misses: SearchEvalReport["misses"] = [];
  const gave: string[] = [];
  for (const c of cases) {
    const paths = await search(c.question);
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

export interface DialLevelReport extends SearchEvalReport {
  level: DialLevel;
  /** Per level that actually ran, how many questions ran there (a level that cannot run runs lower). */
  ran_levels: Partial<Record<DialLevel, number>>;
  /** The distinct notices, with how many questions each was given. */
  notices: { kind: DialNotice["kind"]; message: string; count: number }[];
}

/** One level of the search dial over the labelled questions: recall@5 and MRR, and which level really ran. */
export async function scoreDialLevel(dial: { search(request: DialRequest): Promise<DialResponse> }, level: DialLevel, cases: SearchCase[], depth = 10): Promise<DialLevelReport> {
  const ran: Partial<Record<DialLevel, number>> = {};
  const notices = new Map<string, { kind: DialNotice["kind"]; message: string; count: number }>();
  const report = await scoreSearchWith(async (question) => {
    const answer = await dial.search({ query: question, level, limit: depth });
    ran[answer.ranLevel] = (ran[answer.ranLevel] ?? 0) + 1;
    for (const n of answer.notices) {
      const seen = notices.get(n.message) ?? { kind: n.kind, message: n.message, count: 0 };
      seen.count++;
      notices.set(n.message, seen);
    }
    return answer.results.map((r) => r.path);
  }, cases);
  return { level, ...report, ran_levels: ran, notices: Array.from(notices.values()) };
}

export interface ReplayDeltas {
  queries: number;
  scored: number;
  /** Notes opened then that the vault no longer has at that path: set aside, not scored as misses. */
  opened_gone: number;
  /** Per level: MRR and recall@5 of the notes the user opened, and each one's change from level 1. */
  levels: { level: DialLevel; mrr: number; recall_at_5: number; mrr_delta: number; recall_at_5_delta: number; ran_lower: number }[];
}

/** The query log's replay (replayLoggedQueries) as figures per level with their deltas from level 1. */
export function replayDeltas(replay: QueryReplay): ReplayDeltas {
  const base = replay.levels.find((l) => l.level === 1);
  return {
    queries: replay.queries,
    scored: replay.scored,
    opened_gone: replay.openedGone,
    levels: DIAL_LEVELS.map((level) => {
      const l = replay.levels.find((x) => x.level === level)!;
      return {
        level,
        mrr: roundTo(l.mrr, 3),
        recall_at_5: roundTo(l.recallAt5, 3),
        mrr_delta: roundTo(l.mrr - (base?.mrr ?? 0), 3),
        recall_at_5_delta: roundTo(l.recallAt5 - (base?.recallAt5 ?? 0), 3),
        ran_lower: l.ranLower,
      };
    }),
  };
}
