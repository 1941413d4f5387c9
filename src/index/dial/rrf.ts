// Reciprocal Rank Fusion (Cormack, Clarke & Büttcher, SIGIR 2009): a result's fused score is the
// sum over lanes of 1 / (k + rank), rank counted from 1. It needs no score calibration between
// lanes (BM25 and cosine are not comparable), and k = 60 keeps one lane's top rank from
// swamping agreement between lanes. Ties go to the better rank in the earlier lane (lexical comes
// first, so exact names win a tie), then to the key.

export const RRF_K = 60;

export interface RankedLane<L extends string> {
  lane: L;
  /** Keys best first; a key appears at most once (later repeats are ignored). */
  keys: readonly string[];
}

export interface LaneContribution<L extends string> {
  lane: L;
  /** 1-based rank in that lane. */
  rank: number;
  /** 1 / (k + rank). */
  contribution: number;
}

export interface FusedKey<L extends string> {
  key: string;
  score: number;
  /** In lane order. */
  contributions: LaneContribution<L>[];
}

export function reciprocalRankFusion<L extends string>(lanes: readonly RankedLane<L>[], k = RRF_K): FusedKey<L>[] {
  const fused = new Map<string, FusedKey<L>>();
  for (const { lane, keys } of lanes) {
    const seen = new Set<string>();
    keys.forEach((key, i) => {
      if (seen.has(key)) return;
      seen.add(key);
      const contribution = 1 / (k + i + 1);
      const entry = fused.get(key) ?? { key, score: 0, contributions: [] };
      entry.score += contribution;
      entry.contributions.push({ lane, rank: i + 1, contribution });
      fused.set(key, entry);
    });
  }
  const laneOrder = new Map(lanes.map((l, i) => [l.lane, i]));
  return Array.from(fused.values()).sort((a, b) => b.score - a.score || tieBreak(a, b, laneOrder) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** The better first-lane rank wins: compare the earliest lane each appears in, then the rank there. */
function tieBreak<L extends string>(a: FusedKey<L>, b: FusedKey<L>, laneOrder: Map<L, number>): number {
  const first = (f: FusedKey<L>) => f.contributions.reduce((best, c) => Math.min(best, (laneOrder.get(c.lane) ?? 0) * 1e6 + c.rank), Infinity);
  return first(a) - first(b);
}
