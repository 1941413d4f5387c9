// A clock at the Clock port that moves only when a test (or `sleep`) moves it, so run ids, trace
// file names and "published N days ago" signals are the same on every machine.
import type { Clock } from "../../src/ports";

export const FAKE_NOW = Date.parse("2025-09-21T10:00:00Z");

export interface FakeClock extends Clock {
  advance(ms: number): void;
  set(ms: number): void;
  /** Every `sleep` asked for, in order. */
  readonly sleeps: number[];
}

export function fakeClock(start = FAKE_NOW): FakeClock {
  let now = start;
  const sleeps: number[] = [];
  return {
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
    advance: (ms) => {
      now += ms;
    },
    set: (ms) => {
      now = ms;
    },
    sleeps,
  };
}
