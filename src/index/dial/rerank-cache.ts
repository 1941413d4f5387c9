// Reranking is the one slow, paid step of a search, and people repeat searches (typing, going
// back, comparing levels). Its order is kept by (query, level, filters) — and the candidates it
// ordered, so a changed index never gets an old order — for a while, in memory only. The while is
// counted on the clock's monotonic reading: on the wall clock, one set back an hour kept every order
// an hour longer.
import { monotonicReading, type Clock } from "../../ports";
import type { RerankOrder } from "./rerank";

export const DEFAULT_RERANK_TTL_MS = 10 * 60_000;
const MAX_ENTRIES = 200;

export class RerankCache {
  private readonly entries = new Map<string, { kept: RerankOrder; expires: number }>();

  constructor(
    private readonly clock: Pick<Clock, "now" | "monotonicNow">,
    private readonly ttlMs = DEFAULT_RERANK_TTL_MS,
  ) {}

  static key(parts: { query: string; level: number; filters: unknown; candidates: readonly string[] }): string {
    return JSON.stringify([parts.query.trim(), parts.level, parts.filters, parts.candidates]);
  }

  get(key: string): RerankOrder | null {
    const entry = this.entries.get(key);
    if (!entry) return null;
    if (entry.expires <= monotonicReading(this.clock)) {
      this.entries.delete(key);
      return null;
    }
    return { order: [...entry.kept.order], named: entry.kept.named };
  }

  set(key: string, kept: RerankOrder): void {
    this.entries.delete(key);
    this.entries.set(key, { kept: { order: [...kept.order], named: kept.named }, expires: monotonicReading(this.clock) + this.ttlMs });
    // Oldest first out: a Map keeps insertion order.
    while (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
  }

  clear(): void {
    this.entries.clear();
  }
}
