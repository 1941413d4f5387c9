// Spaces out calls that share a quota (Brave's free plan allows one per second, arXiv one every
// three) and, after a 429 or a backoff request, holds every call until the provider's wait has
// passed. In memory, per session. The intervals come from source-limits.ts.
import { monotonicReading, type Clock } from "../ports";
import { quotaIntervals } from "./source-limits";

/** Minimum milliseconds between two calls starting, per quota. */
export const defaultMinIntervals: Record<string, number> = quotaIntervals();

/** A claimed turn (given back with `giveBack` when its call is not made), or a refusal. */
export type RateTurn = { ok: true; waitMs: number } | { ok: false; retryAfterMs: number };
type ClaimedTurn = Extract<RateTurn, { ok: true }>;

export class RateGovernor {
  private readonly nextAllowed = new Map<string, number>();
  private readonly blockedUntil = new Map<string, number>();
  /** Each quota's latest claimed turn and where the quota's next turn stood before it. */
  private readonly lastClaim = new Map<string, { turn: ClaimedTurn; nextBefore: number | undefined }>();
  /** The latest time read, to notice the clock being set back. */
  private lastNow = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly clock: Clock,
    private readonly minIntervals: Record<string, number> = defaultMinIntervals,
  ) {}

  /**
   * The clock's monotonic reading, which setting the wall clock does not move. On the wall clock, one
   * stepped forward (a time sync, a laptop waking) released every wait at once: a burst against a
   * provider's limit (arXiv's one call in 3 s). A clock with wall time only (a test's) may still be
   * set back: the times kept are moved back with it, so a wait stays as long as it was. Left where
   * they were, they lay an hour ahead after the clock went back an hour, and every call of the
   * session was refused for that hour.
   */
  private now(): number {
    const now = monotonicReading(this.clock);
    const setBack = this.lastNow - now;
    if (setBack > 0) {
      for (const times of [this.nextAllowed, this.blockedUntil]) {
        for (const [quota, at] of times) times.set(quota, at - setBack);
      }
      for (const claim of this.lastClaim.values()) if (claim.nextBefore !== undefined) claim.nextBefore -= setBack;
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
    const turn: ClaimedTurn = { ok: true, waitMs };
    this.lastClaim.set(quota, { turn, nextBefore: this.nextAllowed.get(quota) });
    this.nextAllowed.set(quota, start + (this.minIntervals[quota] ?? 0));
    return turn;
  }

  /**
   * A turn claimed by a call that was never made (its run was cancelled while it waited): free
   * again, when no later call has claimed one after it. Kept, it pushed every later call of the
   * quota back: after a Stop, the next question's GitHub search was refused for a turn no call used.
   */
  giveBack(quota: string, turn: RateTurn): void {
    const last = this.lastClaim.get(quota);
    if (last?.turn !== turn) return;
    this.lastClaim.delete(quota);
    if (last.nextBefore === undefined) this.nextAllowed.delete(quota);
    else this.nextAllowed.set(quota, last.nextBefore);
  }

  /**
   * Whether the provider's own request for a pause (a 429, a backoff) is what holds `quota` back
   * now, rather than this session's earlier calls at the pace the service allows. The provider asked
   * nothing in the second case, and a message saying it did sent the user looking for a limit they
   * had not hit.
   */
  pausedByProvider(quota: string): boolean {
    const blocked = this.blockedUntil.get(quota) ?? 0;
    return blocked > this.now() && blocked >= (this.nextAllowed.get(quota) ?? 0);
  }

  /** After a 429: no call for this quota starts before `retryAfterMs` from now. */
  backOff(quota: string, retryAfterMs: number): void {
    const until = this.now() + Math.max(0, retryAfterMs);
    this.blockedUntil.set(quota, Math.max(this.blockedUntil.get(quota) ?? 0, until));
  }
}
