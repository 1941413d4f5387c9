// How many tool calls run at once. An agent may send hundreds of calls together (or a careless loop,
// thousands): run all at once, their work interleaved on the one thread, so each answer waited for
// all of them — 2,000 searches of a 6,000-note vault were none answered after 30 s, and 20,000 held
// 3 GB without an answer for minutes. Here a few run and the rest wait their turn, in the order
// they came, so the first are answered first; a call cancelled while it waits (or the server closing,
// which cancels every call) leaves the line without running.

/** A call cancelled, or its server closed, before its turn came: it does no work, and the SDK sends no answer for it. */
export class CallCancelled extends Error {
  constructor() {
    super("The call was cancelled before it ran.");
  }
}

export class CallTurns {
  private running = 0;
  private readonly waiting: { start: () => void }[] = [];

  constructor(private readonly atOnce: number) {}

  /** Runs `work` once fewer than `atOnce` calls are running; never once `signal` is aborted. */
  async run<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> {
    await this.turn(signal);
    try {
      // Cancelled as its turn came (or the work before it, settling the index, took that long).
      if (signal.aborted) throw new CallCancelled();
      return await work();
    } finally {
      this.running--;
      this.startNext();
    }
  }

  private turn(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(new CallCancelled());
    if (this.running < this.atOnce) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const entry = {
        start: () => {
          signal.removeEventListener("abort", leave);
          this.running++;
          resolve();
        },
      };
      const leave = (): void => {
        const at = this.waiting.indexOf(entry);
        if (at !== -1) this.waiting.splice(at, 1);
        reject(new CallCancelled());
      };
      signal.addEventListener("abort", leave, { once: true });
      this.waiting.push(entry);
    });
  }

  private startNext(): void {
    while (this.running < this.atOnce) {
      const next = this.waiting.shift();
      if (!next) return;
      next.start();
    }
  }
}
