// A clock at the Clock port that moves only when a test (or `sleep`) moves it, so run ids, trace
// file names and "published N days ago" signals are the same on every machine.
//
// It keeps two times, as a real device does: the wall clock (`now`, what dates are written from),
// which a user or a time sync may set (`set`), and the monotonic reading (`monotonicNow`, what
// durations are measured on), which only time passing moves (`advance`, a plain sleep). Deadline
// timers run on the monotonic reading, as a real timer does.
//
// Two kinds of sleep, as `Clock.sleep` describes them (`SleepKind`):
// - a pacing sleep (a rate turn, a debounce; any sleep given no signal) moves the clock at once and
//   returns: nothing waits. Given a signal already aborted, it rejects and moves nothing;
// - a deadline (a sleep given a signal, unless it says "pacing") races other work. Skipping it would
//   make every race lost before the work could answer, so it ends when the test moves the clock past
//   it — or, for a test that never moves the clock, after the same time really passed. Its signal cancels it.
import { maySkip, sleepCancelled, type Clock } from "../../src/ports";

export const FAKE_NOW = Date.parse("2025-09-21T10:00:00Z");

/** Where the fake's monotonic reading starts: far from any wall time, so a test cannot mistake one for the other. */
export const FAKE_MONOTONIC_START = 5_000;

export interface FakeClock extends Clock {
  /** Time passes: the wall clock and the monotonic reading move forward together; deadline sleeps now due end. */
  advance(ms: number): void;
  /** Sets the wall clock only (by hand, a time sync): dates jump, durations and deadline sleeps do not. */
  set(ms: number): void;
  monotonicNow(): number;
  /** Every pacing sleep asked for (those that moved the clock), in order. */
  readonly sleeps: number[];
  /** Deadline sleeps still waiting (pacing ones never wait). */
  pendingTimers(): number;
}

interface Timer {
  /** On the monotonic reading. */
  due: number;
  wake: () => void;
}

export function fakeClock(start = FAKE_NOW): FakeClock {
  let wall = start;
  let monotonic = FAKE_MONOTONIC_START;
  const sleeps: number[] = [];
  const timers = new Set<Timer>();
  const pass = (ms: number): void => {
    wall += ms;
    monotonic += ms;
    for (const timer of [...timers].sort((a, b) => a.due - b.due)) if (timer.due <= monotonic) timer.wake();
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
        due: monotonic + ms,
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
    now: () => wall,
    monotonicNow: () => monotonic,
    sleep: (ms, signal, kind) => {
      if (signal && !maySkip(signal, kind)) return deadlineSleep(ms, signal);
      if (signal?.aborted) return Promise.reject(sleepCancelled(signal));
      sleeps.push(ms);
      pass(ms);
      return Promise.resolve();
    },
    advance: pass,
    set: (ms) => void (wall = ms),
    sleeps,
    pendingTimers: () => timers.size,
  };
}
