// A stretch of synchronous work that must let the UI breathe: long jobs (building, loading, saving)
// ask `over()` as they go and `await pause()` when it says so. One home for the slice length.
import { monotonicReading, type Clock } from "../ports";

export interface WorkSlice {
  // Function-valued fields, not methods: long jobs pass them on as callbacks.
  /** True once this slice has run its time. */
  over: () => boolean;
  /** Yields, and starts the next slice. */
  pause: () => Promise<void>;
  /** Starts the slice afresh after waiting on I/O (the wait was no work). */
  restart: () => void;
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
  };
}

/** For work that has no one to yield to (tests, one-off tools). */
export const NO_SLICES: WorkSlice = { over: () => false, pause: () => Promise.resolve(), restart: () => undefined };
