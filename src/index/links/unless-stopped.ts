// Waiting on link work (store reads, which take no signal) until the caller's signal aborts: the caller
// stops waiting at once, with the error every deadline raises, `DeadlineMissed { kind: "aborted" }`.
// The work itself is not stopped here: what it does with a caller gone is its own business.
import { DeadlineMissed, whenAborted } from "../../deadline";

/** What a caller that stopped waiting gets. */
export function stoppedWaiting(): DeadlineMissed {
  return new DeadlineMissed("aborted", "Stopped before the notes were read.");
}

/** `work`'s value or error, unless `signal` aborts first (`left` then hears that the caller went). */
export function unlessStopped<T>(work: Promise<T>, signal: AbortSignal | undefined, left: () => void = () => undefined): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const stopWaiting = whenAborted(signal, () => {
      left();
      reject(stoppedWaiting());
    });
    work.finally(stopWaiting).then(resolve, reject);
  });
}
