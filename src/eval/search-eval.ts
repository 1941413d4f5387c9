// Scoring vault search against labelled questions: recall@k and mean reciprocal rank, overall and
// per group (e.g. per corpus). Used by `npm run eval:search` and by the quality tests.
import type { NoteStore } from "../ports";
import type { VaultIndex } from "../index/vault-index";
import { roundTo } from "../text/numbers";

export interface SearchCase {
  id?: string;
  question: string;
  /** Vault-relative paths of the notes that answer the question. */
  relevant: string[];
  /** Optional group for the per-group figures (e.g. the corpus a question is about). */
  corpus?: string;
}

export interface SearchEvalReport {
  cases: number;
  recall_at_5: number;
  mrr: number;
  by_group: Record<string, { cases: number; recall_at_5: number; mrr: number }>;
  misses: { id?: string; question: string; relevant: string[]; got: string[] }[];
}

export async function scoreSearchCases(index: VaultIndex, store: NoteStore, cases: SearchCase[], depth = 10): Promise<SearchEvalReport> {
  const groups = new Map<string, { n: number; hits: number; rr: number }>();
  let hits = 0;
  let rrSum = 0;
  const misses: SearchEvalReport["misses"] = [];
  for (const c of cases) {
    const results = await index.search(c.question, store, { limit: depth, sectionsPerNote: 1 });
    const paths = results.map((r) => r.path);
    const rank = paths.findIndex((p) => c.relevant.includes(p));
    const hit = rank !== -1 && rank < 5;
    const rr = rank === -1 ? 0 : 1 / (rank + 1);
    if (hit) hits++;
    else misses.push({ id: c.id, question: c.question, relevant: c.relevant, got: paths.slice(0, 5) });
    rrSum += rr;
    const g = groups.get(c.corpus ?? "all") ?? { n: 0, hits: 0, rr: 0 };
    g.n++;
    g.hits += hit ? 1 : 0;
    g.rr += rr;
    groups.set(c.corpus ?? "all", g);
  }
  const by_group: SearchEvalReport["by_group"] = {};
  for (const [name, g] of groups) by_group[name] = { cases: g.n, recall_at_5: roundTo(g.hits / g.n, 3), mrr: roundTo(g.rr / g.n, 3) };
  return { cases: cases.length, recall_at_5: roundTo(hits / Math.max(1, cases.length), 3), mrr: roundTo(rrSum / Math.max(1, cases.length), 3), by_group, misses };
}

