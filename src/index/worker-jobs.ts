// What a worker (ports.ts `Workers`) answers, and how: the one job table both worker entries
// (cli/worker-main.ts, plugin/worker-main.ts) run, message by message. A job is answered with
// `{ ok: true, answer }` or `{ ok: false, error }`, never by throwing: the adapter turns the second
// into a rejection.
import { isMeaningsRequest, MeaningsJob } from "./vault-language/meanings-job";

export type WorkerReply = { ok: true; answer: unknown } | { ok: false; error: string };

/** A worker's messages, taken in the order they come: the first says the job, the rest feed it. */
export type WorkerSession = (message: unknown) => Promise<{ reply: WorkerReply; transfer: ArrayBuffer[] }> | null;

/** What a worker does with each message it is sent: null while the job has no reply yet; after
 * its one reply (an answer or a failure), later messages are ignored. */
export function workerSession(): WorkerSession {
  let job: MeaningsJob | null = null;
  let replied = false;
  const failure = (error: unknown) => ({ reply: { ok: false as const, error: error instanceof Error ? error.message : String(error) }, transfer: [] });
  return (message) => {
    if (replied) return null;
    try {
      if (!job) {
        if (!isMeaningsRequest(message)) throw new Error("the worker was sent a job it does not know");
        job = MeaningsJob.start(message);
        return null;
      }
      const answered = job.take(message);
      if (!answered) return null;
      replied = true;
      return answered.then(({ answer, transfer }) => ({ reply: { ok: true as const, answer }, transfer }), failure);
    } catch (error) {
      replied = true;
      return Promise.resolve(failure(error));
    }
  };
}

/** What the worker replied: its answer, or an error that says what went wrong. */
export function unwrapWorkerReply(reply: unknown): unknown {
  if (typeof reply === "object" && reply !== null) {
    const r = reply as Partial<{ ok: boolean; answer: unknown; error: unknown }>;
    if (r.ok === true) return r.answer;
    if (r.ok === false) throw new Error(`the worker failed: ${typeof r.error === "string" ? r.error : "no reason given"}`);
  }
  throw new Error("the worker's reply is not one this side can read");
}

/** A started worker, as `workerJob` drives it. */
export interface StartedWorker {
  post(message: unknown): void;
  /** Ends the worker (and frees what it was started from). */
  end(): void;
}

/** What a worker adapter tells `workerJob`: the worker's reply came, or it failed (with a reason). */
export interface WorkerEvents {
  replied(reply: unknown): void;
  failed(error: Error): void;
}

/**
 * One job's life in a worker, for both adapters (cli/node-workers.ts, plugin/web-workers.ts): not
 * started for work already unwanted; started by `start`, which wires the worker's events to
 * `WorkerEvents`; handed `message`, then each of `more` as it comes (a failure to give the next is the
 * job's failure); settled once, by the first of its reply, its failure or the abort, and the worker
 * ended then, whichever it was.
 */
export function workerJob(start: (events: WorkerEvents) => StartedWorker, message: unknown, signal: AbortSignal, more?: AsyncIterable<unknown>): Promise<unknown> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Error("the work was no longer wanted"));
    let worker: StartedWorker | null = null;
    let settled = false;
    const settle = (then: () => void): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", onAbort);
      worker?.end();
      then();
    };
    const onAbort = (): void => settle(() => reject(new Error("the work was no longer wanted")));
    const events: WorkerEvents = {
      replied: (reply) =>
        settle(() => {
          try {
            resolve(unwrapWorkerReply(reply));
          } catch (error) {
            reject(asError(error));
          }
        }),
      failed: (error) => settle(() => reject(error)),
    };
    try {
      worker = start(events);
    } catch (error) {
      return reject(asError(error));
    }
    // A worker that failed while it started was ended by `settle` before it was known: end it now.
    if (settled) return worker.end();
    signal.addEventListener("abort", onAbort, { once: true });
    const started = worker;
    started.post(message);
    if (more)
      void (async () => {
        try {
          for await (const next of more) {
            // Settled (an answer, a failure, the abort): what is left is not read.
            if (settled) return;
            started.post(next);
          }
        } catch (error) {
          events.failed(asError(error));
        }
      })();
  });
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
