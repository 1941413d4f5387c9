// Spaces out calls that share a quota (Brave's free plan allows one per second, arXiv one every
// three) and, after a 429 or a backoff request, holds every call until the provider's wait has
// passed. In memory, per session. The intervals come from source-limits.ts.
import type { Clock } from "../ports";
import { quotaIntervals } from "./source-limits";

/** Minimum milliseconds between two calls starting, per quota. */
export const defaultMinIntervals: Record<string, number> = quotaIntervals();

export type RateTurn = { ok: true; waitMs: number } | { ok: false; retryAfterMs: number };

export class RateGovernor {
  private readonly nextAllowed = new Map<string, number>();
  private readonly blockedUntil = new Map<string, number>();

  constructor(
    private readonly clock: Clock,
    private readonly minIntervals: Record<string, number> = defaultMinIntervals,
  ) {}

  /**
   * Claims the next slot for `quota`. Returns how long to wait before calling, or refuses when
   * waiting would take longer than `maxWaitMs` (then nothing is claimed).
   */
  reserve(quota: string, maxWaitMs: number): RateTurn {
    const now = this.clock.now();
    const blocked = this.blockedUntil.get(quota) ?? 0;
    const start = Math.max(now, this.nextAllowed.get(quota) ?? 0, blocked);
    const waitMs = start - now;
    if (waitMs > maxWaitMs) return { ok: false, retryAfterMs: waitMs };
    this.nextAllowed.set(quota, start + (this.minIntervals[quota] ?? 0));
    return { ok: true, waitMs };
  }

  /** After a 429: no call for this quota starts before `retryAfterMs` from now. */
  backOff(quota: string, retryAfterMs: number): void {
    const until = this.clock.now() + Math.max(0, retryAfterMs);
    this.blockedUntil.set(quota, Math.max(this.blockedUntil.get(quota) ?? 0, until));
  }
}
