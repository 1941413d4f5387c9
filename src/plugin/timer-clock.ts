// The plugin's Clock. Unlike `systemClock` it remembers its timers, so unloading the plugin can
// cancel every pending sleep instead of leaving callbacks to fire into a dead plugin.
import type { Clock } from "../ports";

export class TimerClock implements Clock {
  private readonly sleeping = new Map<number, () => void>();
  private disposed = false;

  now(): number {
    return Date.now();
  }

  sleep(ms: number): Promise<void> {
    if (this.disposed) return Promise.resolve();
    return new Promise((resolve) => {
      const id = window.setTimeout(() => {
        this.sleeping.delete(id);
        resolve();
      }, ms);
      this.sleeping.set(id, resolve);
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
