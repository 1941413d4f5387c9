// What a worker (ports.ts `Workers`) answers, and how: the one job table both worker entries
// (cli/worker-main.ts, plugin/worker-main.ts) run, message by message. A job is answered with
// `{ ok: true, answer }` or `{ ok: false, error }`, never by throwing: the adapter turns the second
// into a rejection. Until then, each message the worker has taken and is done with is acknowledged
// (`TAKEN`), and `workerJob` keeps at most `IN_FLIGHT` messages unacknowledged: a worker slower than
// the thread that feeds it slows the feeding, rather than letting the messages pile up in its inbox.
// A worker that holds work and says nothing for `WORKER_QUIET_MS` is given up on: a worker killed
// without a word (a WebView out of memory ends it so) would otherwise be waited on for ever. The
// silence is counted in `QUIET_STEPS` timer steps, each one step however late it fires: a phone
// that stopped the app's timers (and its worker) in the background counts that stretch as one.
import { describeMs } from "../deadline";
import { systemClock, type Clock } from "../ports";
import { isMeaningsRequest, MeaningsJob } from "./vault-language/meanings-job";

export type WorkerReply = { ok: true; answer: unknown } | { ok: false; error: string };

/** The worker's word that it has taken a message and is done with it: the next may come. */
export const TAKEN = { taken: true } as const;

/** How many messages `workerJob` hands a worker before it waits for one to be taken. */
export const IN_FLIGHT = 4;

/** How long a worker holding work may say nothing (no `TAKEN`, no reply) before the job fails. Its
 * longest silent step, the learning after the last notes, took 7 s for 100,000 notes here (between
 * two words, 0.15 s); ten minutes leaves a slow phone eighty times that, and still ends a wait that
 * would never end. */
export const WORKER_QUIET_MS = 10 * 60_000;

/** How many timer steps make up a worker's allowed silence (30 s each by default). */
export const QUIET_STEPS = 20;

/** Whose timer measures a worker's silence, and how long it may last. */
export interface WorkerWatch {
  clock: Pick<Clock, "sleep">;
  quietMs: number;
}

export const DEFAULT_WORKER_WATCH: WorkerWatch = { clock: systemClock, quietMs: WORKER_QUIET_MS };

/** A worker that held work and said nothing for its watch's `quietMs`: it was ended. */
export class WorkerWentQuiet extends Error {
  constructor(quietMs: number) {
    super(`the worker said nothing for ${describeMs(quietMs)} while it held work, and was ended`);
    this.name = "WorkerWentQuiet";
  }
}

/** A worker's way to send: a message, and the buffers to move (not copy) with it. */
export type WorkerPost = (message: unknown, transfer: ArrayBuffer[]) => void;

/** What a worker does with each message it is sent, in the order they come: the first says the job,
 * the rest feed it. Each message taken without a reply is acknowledged with `TAKEN`; the job's one
 * reply (an answer or a failure) is posted when it is ready, and later messages are ignored. */
export function workerSession(post: WorkerPost): (message: unknown) => void {
  let job: MeaningsJob | null = null;
  let replied = false;
  const fail = (error: unknown): void => post({ ok: false, error: error instanceof Error ? error.message : String(error) }, []);
  return (message) => {
    if (replied) return;
    let answered: ReturnType<MeaningsJob["take"]>;
    try {
      if (!job) {
        if (!isMeaningsRequest(message)) throw new Error("the worker was sent a job it does not know");
        job = MeaningsJob.start(message);
        answered = null;
      } else answered = job.take(message);
    } catch (error) {
      replied = true;
      return fail(error);
    }
    if (!answered) return post(TAKEN, []);
    replied = true;
    // An answer that cannot be sent (it cannot be cloned) is a failure the other side still hears of.
    answered.then(({ answer, transfer }) => post({ ok: true, answer }, transfer)).catch(fail);
  };
}

/** Whether a worker's message is its `TAKEN`, not its reply. */
export function isTaken(message: unknown): boolean {
  return typeof message === "object" && message !== null && (message as { taken?: unknown }).taken === true && !("ok" in message);
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

/** What a worker adapter tells `workerJob`: each message the worker sent (a `TAKEN`, or its
 * reply), or that it failed (with a reason). */
export interface WorkerEvents {
  message(data: unknown): void;
  failed(error: Error): void;
}

/**
 * One job's life in a worker, for both adapters (cli/node-workers.ts, plugin/web-workers.ts): not
 * started for work already unwanted; started by `start`, which wires the worker's events to
 * `WorkerEvents`; handed `message`, then each of `more` as it comes, never more than `IN_FLIGHT` of
 * them not yet taken (a failure to give the next is the job's failure); settled once, by the first of
 * its reply, its failure, the abort or its silence (nothing from it for `watch.quietMs` while it
 * holds a message not taken or owes its reply), and the worker ended then, whichever it was.
 */
export function workerJob(
  start: (events: WorkerEvents) => StartedWorker,
  message: unknown,
  signal: AbortSignal,
  more?: AsyncIterable<unknown>,
  watch: WorkerWatch = DEFAULT_WORKER_WATCH,
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Error("the work was no longer wanted"));
    let worker: StartedWorker | null = null;
    let settled = false;
    let inFlight = 0;
    // Resolved when a message is taken or the job settles: the feeding of `more` waits on it.
    let room: (() => void) | null = null;
    const makeRoom = (): void => {
      room?.();
      room = null;
    };
    // The wait for the worker's next word: started when it is handed work with none outstanding,
    // started again at each word from it, and stopped when it holds nothing or the job settles.
    let quiet: AbortController | null = null;
    const listen = (): void => {
      quiet?.abort();
      quiet = null;
      if (settled || inFlight === 0) return;
      const timer = new AbortController();
      quiet = timer;
      const steps = async (): Promise<void> => {
        for (let step = 0; step < QUIET_STEPS; step++) await watch.clock.sleep(watch.quietMs / QUIET_STEPS, timer.signal);
      };
      steps().then(
        () => settle(() => reject(new WorkerWentQuiet(watch.quietMs))),
        // Cancelled: the worker spoke, or the job settled.
        () => undefined,
      );
    };
    const handOver = (next: unknown, worker: StartedWorker): void => {
      worker.post(next);
      if (inFlight++ === 0) listen();
    };
    const settle = (then: () => void): void => {
      if (settled) return;
      settled = true;
      quiet?.abort();
      signal.removeEventListener("abort", onAbort);
      worker?.end();
      makeRoom();
      then();
    };
    const onAbort = (): void => settle(() => reject(new Error("the work was no longer wanted")));
    const events: WorkerEvents = {
      message: (data) => {
        if (isTaken(data)) {
          inFlight = Math.max(0, inFlight - 1);
          listen();
          return makeRoom();
        }
        settle(() => {
          try {
            resolve(unwrapWorkerReply(data));
          } catch (error) {
            reject(asError(error));
          }
        });
      },
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
    handOver(message, started);
    if (more)
      void (async () => {
        try {
          for await (const next of more) {
            while (!settled && inFlight >= IN_FLIGHT) await new Promise<void>((resolve) => (room = resolve));
            // Settled (an answer, a failure, the abort): what is left is not read.
            if (settled) return;
            handOver(next, started);
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
