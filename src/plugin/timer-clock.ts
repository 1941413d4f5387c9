// The plugin's Clock. Unlike `systemClock` it remembers its timers, so unloading the plugin can
// cancel every pending sleep instead of leaving callbacks to fire into a dead plugin.
import { sleepCancelled, type Clock, type SleepKind } from "../ports";

export class TimerClock implements Clock {
  private readonly sleeping = new Map<number, () => void>();
  private disposed = false;

  now(): number {
    return Date.now();
  }

  /** What a run's durations are measured on: setting the device's clock does not move it (see `Clock`). */
  monotonicNow(): number {
    return window.performance.now();
  }

  /**
   * A sleep whose signal aborts clears its timer and rejects (see `Clock.sleep`). A real timer: a
   * pacing sleep (`_kind`) waits its time as a deadline does, and its signal cancels it the same way.
   */
  sleep(ms: number, signal?: AbortSignal, _kind?: SleepKind): Promise<void> {
    if (signal?.aborted) return Promise.reject(sleepCancelled(signal));
    if (this.disposed) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const wake = (): void => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      };
      const onAbort = (): void => {
        window.clearTimeout(id);
        this.sleeping.delete(id);
        reject(sleepCancelled(signal!));
      };
      const id = window.setTimeout(() => {
        this.sleeping.delete(id);
        wake();
      }, ms);
      this.sleeping.set(id, wake);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Clears every timer and wakes its sleeper at once; later sleeps return immediately. */
  dispose(): void {
    this.disposed = true;
    for (const [id, wake] of this.sleeping) {
      window.clearTimeout(id);
      wake();
    }
    this.sleeping.clear();
  }

  /** How many sleeps are still waiting on a timer. */
  get pending(): number {
    return this.sleeping.size;
  }
}
