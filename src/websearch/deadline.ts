// Obsidian's requestUrl cannot be aborted, so a deadline is enforced by racing the work against a
// timer and ignoring whatever arrives afterwards. The timer is cleared as soon as either side wins
// so a finished run does not keep a process alive.

export class DeadlineMissed extends Error {
  constructor(readonly reason: "timeout" | "aborted") {
    super(reason === "timeout" ? "deadline passed" : "cancelled");
    this.name = "DeadlineMissed";
  }
}

export function withDeadline<T>(
  work: Promise<T>,
  ms: number,
  options: { signal?: AbortSignal; onLate?: () => void } = {},
): Promise<T> {
  const { signal, onLate } = options;
  if (signal?.aborted) {
    work.then(
      () => onLate?.(),
      () => onLate?.(),
    );
    return Promise.reject(new DeadlineMissed("aborted"));
  }
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const finish = (): boolean => {
      if (settled) return false;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      return true;
    };
    const onAbort = (): void => {
      if (finish()) reject(new DeadlineMissed("aborted"));
    };
    const timer = setTimeout(() => {
      if (finish()) reject(new DeadlineMissed("timeout"));
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        if (finish()) resolve(value);
        else onLate?.();
      },
      (error: unknown) => {
        if (finish()) reject(error instanceof Error ? error : new Error(String(error)));
        else onLate?.();
      },
    );
  });
}
