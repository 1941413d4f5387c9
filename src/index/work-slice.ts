// A stretch of synchronous work that must let the UI breathe: long jobs (building, loading, saving)
// ask `over()` as they go and `await pause()` when it says so. One home for the slice length.
import { monotonicReading, type Clock } from "../ports";

export interface WorkSlice {
  // Function-valued fields, not methods: long jobs pass them on as callbacks.
  /** True once this slice has run its time. */
  over: () => boolean;
  /** Yields, and starts the next slice. */
  pause: () => Promise<void>;
  /**
   * Starts the slice afresh, counting none of its time so far: only where a pause follows at once.
   * After an await, `waitOn` (below): a cache or store may answer without giving the event loop a
   * turn (a memory cache, a quick IndexedDB), and work restarted after each such await ran on
   * unpaused (256 parts of the vault's language, one 53 ms stretch of CPU at 50,000 notes).
   */
  restart: () => void;
  /** Awaits `wait` without counting the wait as work, keeping the work done before it; see `waitOn`. */
  waitFor?: <T>(wait: Promise<T>) => Promise<T>;
}

/** Longest stretch of work between two yields (ms): two frames, well under the 50 ms a person notices. */
export const SLICE_MS = 12;

/**
 * Slices of SLICE_MS on `clock`'s monotonic reading (a wall clock set back an hour kept `over()`
 * false for that hour: a build never yielded, the UI froze); `yieldNow` is the pause itself (a
 * UI's next frame, a macrotask), told how long the slice before it ran.
 */
export function timeSlices(clock: Clock, yieldNow: (sliceMs: number) => Promise<void>): WorkSlice {
  const now = () => monotonicReading(clock);
  let start = now();
  return {
    over: () => now() - start >= SLICE_MS,
    pause: async () => {
      await yieldNow(now() - start);
      start = now();
    },
    restart: () => {
      start = now();
    },
    waitFor: async (wait) => {
      const worked = now() - start;
      try {
        return await wait;
      } finally {
        start = now() - worked;
      }
    },
  };
}

/**
 * `wait` (a cache's write or read, notes read, a worker's answer) awaited inside a slice: the wait
 * is not the slice's work (a slow disk or a worker's seconds are no block of ours), the work before
 * it still is, so the slice ends when the work on both sides of it adds up to its time, whether or
 * not the other side gave the event loop a turn. A slice that cannot tell (a test's) counts the wait.
 */
export function waitOn<T>(slice: WorkSlice, wait: Promise<T>): Promise<T> {
  return slice.waitFor ? slice.waitFor(wait) : wait;
}

/** For work that has no one to yield to (tests, one-off tools). */
export const NO_SLICES: WorkSlice = { over: () => false, pause: () => Promise.resolve(), restart: () => undefined };
