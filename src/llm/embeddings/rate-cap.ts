// A cap on requests per second: each request reserves the next free start time, so concurrent
// callers queue instead of bursting. The wait is a plain Clock sleep (tests' clocks skip it and
// record it); a cancelled caller finds out from its signal right after.
import { monotonicReading, type Clock } from "../../ports";

export interface RateCap {
  /** Resolves when the caller may start its request. */
  wait(): Promise<void>;
}

/** Start times on `clock`'s monotonic reading: a wall clock set back an hour made the next wait an hour. */
export function rateCap(requestsPerSecond: number, clock: Pick<Clock, "now" | "monotonicNow" | "sleep">): RateCap {
  if (!(requestsPerSecond > 0) || !Number.isFinite(requestsPerSecond)) return { wait: () => Promise.resolve() };
  const intervalMs = 1000 / requestsPerSecond;
  let nextStart = -Infinity;
  return {
    async wait() {
      const now = monotonicReading(clock);
      const start = Math.max(now, nextStart);
      nextStart = start + intervalMs;
      if (start > now) await clock.sleep(start - now);
    },
  };
}
