// A repeated question in the same session should not spend quota twice. Answers are kept in
// memory only (never on disk: outside-vault text is ephemeral), for a while, up to a count.
import type { Clock } from "../ports";
import type { ProviderResponse } from "./types";

export interface SearchCacheOptions {
  /** How long an answer stays fresh (default 10 minutes). */
  ttlMs?: number;
  /** How many answers are kept; the least recently used goes first (default 100). */
  maxEntries?: number;
}

export class SearchCache {
  private readonly entries = new Map<string, { storedAt: number; response: ProviderResponse }>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;

  constructor(
    private readonly clock: Clock,
    options: SearchCacheOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 10 * 60_000;
    this.maxEntries = options.maxEntries ?? 100;
  }

  get(key: string): ProviderResponse | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    const age = this.clock.now() - entry.storedAt;
    // Stored "in the future": the clock was set back, and the answer's age is unknown. Kept, it
    // stayed fresh for as long as the clock went back (an hour, a day) on top of its time to live.
    if (age < 0 || age >= this.ttlMs) {
      this.entries.delete(key);
      return undefined;
    }
    // Re-inserting moves the key to the end: Map order is our recency list.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return structuredClone(entry.response);
  }

  set(key: string, response: ProviderResponse): void {
    this.entries.delete(key);
    this.entries.set(key, { storedAt: this.clock.now(), response: structuredClone(response) });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }
}

/** Stable JSON (sorted keys) so the same request always makes the same cache key. */
export function stableKey(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
