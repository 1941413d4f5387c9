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
  /** The latest time read, to notice the clock being set back. */
  private lastNow = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly clock: Clock,
    private readonly minIntervals: Record<string, number> = defaultMinIntervals,
  ) {}

  /**
   * The clock's time. The system clock is the wall clock, which can be set back (by hand, by a
   * time sync); the times kept are moved back with it, so a wait stays as long as it was. Left
   * where they were, they lay an hour ahead after the clock went back an hour, and every call of
   * the session was refused for that hour.
   */
  private now(): number {
    const now = this.clock.now();
    const setBack = this.lastNow - now;
    if (setBack > 0) {
      for (const times of [this.nextAllowed, this.blockedUntil]) {
        for (const [quota, at] of times) times.set(quota, at - setBack);
      }
    }
    this.lastNow = now;
    return now;
  }

  /**
   * Claims the next slot for `quota`. Returns how long to wait before calling, or refuses when
   * waiting would take longer than `maxWaitMs` (then nothing is claimed).
   */
  reserve(quota: string, maxWaitMs: number): RateTurn {
    const now = this.now();
    const blocked = this.blockedUntil.get(quota) ?? 0;
    const start = Math.max(now, this.nextAllowed.get(quota) ?? 0, blocked);
    const waitMs = start - now;
    if (waitMs > maxWaitMs) return { ok: false, retryAfterMs: waitMs };
    this.nextAllowed.set(quota, start + (this.minIntervals[quota] ?? 0));
    return { ok: true, waitMs };
  }

  /** After a 429: no call for this quota starts before `retryAfterMs` from now. */
  backOff(quota: string, retryAfterMs: number): void {
    const until = this.now() + Math.max(0, retryAfterMs);
    this.blockedUntil.set(quota, Math.max(this.blockedUntil.get(quota) ?? 0, until));
  }
}
