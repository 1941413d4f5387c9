// A cap on requests per second: each request reserves the next free start time, so concurrent
// callers queue instead of bursting. The wait is a pacing sleep a stop cuts short
// (`pacedUnlessAborted`): at the lowest setting, 0.1 a second, a Ctrl-C during an `embed` run sat
// out the rest of a 10 s turn before the run noticed it. Tests' clocks skip the wait and record it.
import { pacedUnlessAborted } from "../../deadline";
import { monotonicReading, type Clock } from "../../ports";

export interface RateCap {
  /**
   * True when the caller may start its request; false, at once, when `signal` aborts first (or
   * had already), and its turn is given back unless a later caller already queued behind it.
   */
  wait(signal?: AbortSignal): Promise<boolean>;
}

/** Start times on `clock`'s monotonic reading: a wall clock set back an hour made the next wait an hour. */
export function rateCap(requestsPerSecond: number, clock: Pick<Clock, "now" | "monotonicNow" | "sleep">): RateCap {
  if (!(requestsPerSecond > 0) || !Number.isFinite(requestsPerSecond)) return { wait: (signal) => Promise.resolve(!signal?.aborted) };
  const intervalMs = 1000 / requestsPerSecond;
  let nextStart = -Infinity;
  return {
    async wait(signal) {
      if (signal?.aborted) return false;
      const now = monotonicReading(clock);
      const start = Math.max(now, nextStart);
      const before = nextStart;
      nextStart = start + intervalMs;
      if (start <= now) return true;
      if (await pacedUnlessAborted(clock, start - now, signal)) return true;
      // A turn never used: the next caller need not wait for it, unless one already waits behind it.
      if (nextStart === start + intervalMs) nextStart = before;
      return false;
    },
  };
}
