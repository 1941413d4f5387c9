// A clock at the Clock port that moves only when a test (or `sleep`) moves it, so run ids, trace
// file names and "published N days ago" signals are the same on every machine.
//
// Two kinds of sleep, as `Clock.sleep` describes them:
// - a plain sleep (rate pacing, debounce) moves the clock at once and returns: nothing waits;
// - a sleep given a signal is a deadline racing other work. Skipping it would make every race lost
//   before the work could answer, so it ends when the test moves the clock past it — or, for a
//   test that never moves the clock, after the same time really passed. Its signal cancels it.
import { sleepCancelled, type Clock } from "../../src/ports";

export const FAKE_NOW = Date.parse("2025-09-21T10:00:00Z");

export interface FakeClock extends Clock {
  /** Moves the clock forward; deadline sleeps now due end. */
  advance(ms: number): void;
  set(ms: number): void;
  /** Every plain sleep asked for (those that moved the clock), in order. */
  readonly sleeps: number[];
  /** Deadline sleeps (given a signal) still waiting. */
  pendingTimers(): number;
}

interface Timer {
  due: number;
  wake: () => void;
}

export function fakeClock(start = FAKE_NOW): FakeClock {
  let now = start;
  const sleeps: number[] = [];
  const timers = new Set<Timer>();
  const moveTo = (ms: number): void => {
    now = ms;
    for (const timer of [...timers].sort((a, b) => a.due - b.due)) if (timer.due <= now) timer.wake();
  };
  const deadlineSleep = (ms: number, signal: AbortSignal): Promise<void> =>
    new Promise((resolve, reject) => {
      if (signal.aborted) return reject(sleepCancelled(signal));
      const end = (): void => {
        clearTimeout(real);
        timers.delete(timer);
        signal.removeEventListener("abort", onAbort);
      };
      const timer: Timer = {
        due: now + ms,
        wake: () => {
          end();
          resolve();
        },
      };
      const onAbort = (): void => {
        end();
        reject(sleepCancelled(signal));
      };
      const real = setTimeout(timer.wake, ms);
      timers.add(timer);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  return {
    now: () => now,
    sleep: (ms, signal) => {
      if (signal) return deadlineSleep(ms, signal);
      sleeps.push(ms);
      moveTo(now + ms);
      return Promise.resolve();
    },
    advance: (ms) => moveTo(now + ms),
    set: (ms) => moveTo(ms),
    sleeps,
    pendingTimers: () => timers.size,
  };
}
