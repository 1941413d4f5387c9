// The one deadline: work raced against a timer from the Clock port and, optionally, a signal.
// Obsidian's requestUrl cannot be aborted and a stage may wait on work that ignores its signal,
// so a deadline does not stop the work: it stops *waiting* for it, and whatever arrives later is
// dropped (`onLate` hears of it). The timer is a cancellable `Clock.sleep`, cleared as soon as
// either side wins, so a finished run does not keep a process alive.
//
// It raises one error, `DeadlineMissed { kind: "timeout" | "aborted" }`; each caller turns it into
// its own domain's error (ModelError, HttpFailure, ProviderError, a stage timeout) and words.
//
// Beside it, the one pacing wait that a signal cuts short (`pacedUnlessAborted`, a rate turn), and
// the one abort listener per signal that every race and wait shares (`whenAborted`).
import type { Clock } from "./ports";

export type DeadlineMissedKind = "timeout" | "aborted";

export class DeadlineMissed extends Error {
  constructor(
    readonly kind: DeadlineMissedKind,
    message: string,
  ) {
    super(message);
    this.name = "DeadlineMissed";
  }
}

export interface Deadline {
  /** Whose timer runs the deadline. */
  clock: Pick<Clock, "sleep">;
  /** How long to wait for the work. */
  ms: number;
  /** Stops the wait at once when it aborts (already aborted: the wait never starts). */
  signal?: AbortSignal;
  /** Called once if the work settles after the wait gave up on it; its value or error is dropped. */
  onLate?: () => void;
}

type Outcome<T> = { kind: "value"; value: T } | { kind: "error"; error: unknown } | { kind: "missed"; missed: DeadlineMissed };

/** `work`'s value or error (as thrown), unless the deadline passes or the signal aborts first. */
export async function withDeadline<T>(work: Promise<T>, deadline: Deadline): Promise<T> {
  const outcome = await race(work, deadline);
  if (outcome.kind === "value") return outcome.value;
  throw outcome.kind === "error" ? outcome.error : outcome.missed;
}

/** Whichever comes first; never rejects. Everything it set up is undone as soon as one side wins. */
function race<T>(work: Promise<T>, { clock, ms, signal, onLate }: Deadline): Promise<Outcome<T>> {
  if (signal?.aborted) {
    work.then(
      () => onLate?.(),
      () => onLate?.(),
    );
    return Promise.resolve({ kind: "missed", missed: aborted() });
  }
  return new Promise((settle) => {
    const timer = new AbortController();
    let settled = false;
    let stopListening = (): void => undefined;
    const finish = (outcome: Outcome<T>): boolean => {
      if (settled) return false;
      settled = true;
      timer.abort();
      stopListening();
      settle(outcome);
      return true;
    };
    if (signal) stopListening = whenAborted(signal, () => void finish({ kind: "missed", missed: aborted() }));
    clock.sleep(ms, timer.signal).then(
      () => finish({ kind: "missed", missed: new DeadlineMissed("timeout", `No answer within ${describeMs(ms)}.`) }),
      // The sleep was cancelled because the race is over: nothing to do.
      () => undefined,
    );
    work.then(
      (value) => {
        if (!finish({ kind: "value", value })) onLate?.();
      },
      (error: unknown) => {
        if (!finish({ kind: "error", error })) onLate?.();
      },
    );
  });
}

/**
 * Waits `ms` of pacing (a rate turn) unless `signal` aborts first: true when the time passed, false
 * at once when the signal aborts (or had already), with the clock's timer cleared. Raced on the
 * signal too, so a clock that holds a sleep it was told to cancel cannot hold the caller. Left to
 * end on its own, a cancelled rate wait's timer kept a stopped CLI run alive until the turn came.
 * A pacing sleep (`SleepKind`): clocks that skip waits still skip it.
 */
export async function pacedUnlessAborted(clock: Pick<Clock, "sleep">, ms: number, signal?: AbortSignal): Promise<boolean> {
  if (!signal) {
    await clock.sleep(ms);
    return true;
  }
  if (signal.aborted) return false;
  // A timer of its own, cancelled through the one listener on the signal (`whenAborted`).
  const timer = new AbortController();
  let stopListening = (): void => undefined;
  const aborted = new Promise<false>((resolve) => {
    stopListening = whenAborted(signal, () => resolve(false));
  });
  try {
    return await Promise.race([clock.sleep(ms, timer.signal, "pacing").then(() => !signal.aborted), aborted]);
  } finally {
    stopListening();
    // Cleared now, whichever side won; its rejection is the race's, already heard.
    timer.abort();
  }
}

/** The callbacks waiting on each signal, and the one listener that calls them. */
const waitsOn = new WeakMap<AbortSignal, { callbacks: Set<() => void>; listener: () => void }>();

/**
 * Calls `callback` once when `signal` aborts; the function returned stops waiting. However many
 * waits share a signal, it holds one "abort" listener, gone once none waits. A run's stage signal is
 * shared by every source's deadline and every request's: with five free sources, one listener
 * each made Node print "Possible EventTarget memory leak detected" on every web run, over waits
 * that were all concurrent and all cleaned up. A signal already aborted calls back at once.
 */
export function whenAborted(signal: AbortSignal, callback: () => void): () => void {
  if (signal.aborted) {
    callback();
    return () => undefined;
  }
  let waits = waitsOn.get(signal);
  if (!waits) {
    const callbacks = new Set<() => void>();
    const listener = (): void => {
      waitsOn.delete(signal);
      // Each wait is called as if it held a listener of its own: one stopped by an earlier one's
      // callback is not called, and one that throws leaves the rest their call (a race not told of
      // the abort waits forever); its error is thrown afterwards, as a listener's would be reported.
      const errors: unknown[] = [];
      for (const call of [...callbacks]) {
        if (!callbacks.has(call)) continue;
        try {
          call();
        } catch (error) {
          errors.push(error);
        }
      }
      for (const error of errors) {
        queueMicrotask(() => {
          throw error;
        });
      }
    };
    waits = { callbacks, listener };
    waitsOn.set(signal, waits);
    signal.addEventListener("abort", listener, { once: true });
  }
  const entry = waits;
  // A wrapper of its own, so the same callback given twice is two waits, each stopped by its own call.
  const call = (): void => callback();
  entry.callbacks.add(call);
  return () => {
    if (!entry.callbacks.delete(call) || entry.callbacks.size > 0) return;
    signal.removeEventListener("abort", entry.listener);
    if (waitsOn.get(signal) === entry) waitsOn.delete(signal);
  };
}

function aborted(): DeadlineMissed {
  return new DeadlineMissed("aborted", "Cancelled before an answer came.");
}

/** A wait in words: "250 ms", "600 s". */
export function describeMs(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
}

/**
 * Runs `work` once every earlier work of `key` in `turns` has settled, failed or not, and keeps the
 * last of each key in `turns` until it settles: the one way work on one thing takes turns within a
 * process (two updates of one file, two promotions of one page).
 */
export async function inTurnOf<T>(turns: Map<string, Promise<void>>, key: string, work: () => Promise<T>): Promise<T> {
  const run = (turns.get(key) ?? Promise.resolve()).then(work);
  const done = run.then(
    () => undefined,
    () => undefined,
  );
  turns.set(key, done);
  try {
    return await run;
  } finally {
    if (turns.get(key) === done) turns.delete(key);
  }
}
