// What a worker (ports.ts `Workers`) answers, and how: the one job table both worker entries
// (cli/worker-main.ts, plugin/worker-main.ts) run. A message is answered with `{ ok: true, answer }`
// or `{ ok: false, error }`, never by throwing: the adapter turns the second into a rejection.
import { answerMeaningsRequest, isMeaningsRequest } from "./vault-language/meanings-job";

export type WorkerReply = { ok: true; answer: unknown } | { ok: false; error: string };

/** The reply to one message, and the buffers to move (not copy) with it. */
export async function answerWorkerMessage(message: unknown): Promise<{ reply: WorkerReply; transfer: ArrayBuffer[] }> {
  try {
    if (!isMeaningsRequest(message)) return { reply: { ok: false, error: "the worker was sent a job it does not know" }, transfer: [] };
    const { answer, transfer } = await answerMeaningsRequest(message);
    return { reply: { ok: true, answer }, transfer };
  } catch (error) {
    return { reply: { ok: false, error: error instanceof Error ? error.message : String(error) }, transfer: [] };
  }
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
 * `WorkerEvents`; settled once, by the first of its reply, its failure or the abort, and the worker
 * ended then, whichever it was.
 */
export function workerJob(start: (events: WorkerEvents) => StartedWorker, message: unknown, signal: AbortSignal): Promise<unknown> {
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
    worker.post(message);
  });
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
