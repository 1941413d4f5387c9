// Scoring vault search against labelled questions: recall@k and mean reciprocal rank, overall and
// per corpus, per kind of question and per half of the vault split (eval-set.ts). A two-note
// question (kind multi_note) also says whether all its notes reached the top 5. Used by
// `npm run eval:search` and by the quality tests.
import type { NoteStore } from "../ports";
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
}

interface SearchOutcome {
  corpus?: string;
  kind?: string;
  /** 0-based rank of the first relevant note in the top `depth`, -1 when none. */
  rank: number;
  allInTop5: boolean;
}

export async function scoreSearchCases(index: VaultIndex, store: NoteStore, cases: SearchCase[], depth = 10): Promise<SearchEvalReport> {
  const outcomes: SearchOutcome[] = [];
  const misses: SearchEvalReport["misses"] = [];
  for (const c of cases) {
    const results = await index.search(c.question, store, { limit: depth, sectionsPerNote: 1 });
    const paths = results.map((r) => r.path);
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
  return { ...figuresOf(outcomes), by_group, by_kind, by_fold, misses };
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
