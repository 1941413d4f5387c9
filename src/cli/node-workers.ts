// The `Workers` port in Node: each job in a worker thread of its own, started from the worker's
// bundled code (cli/worker-main.ts, put into this bundle as a string by esbuild.config.mjs, in a
// part of its own: node-worker-code.ts), fed as fast as it takes its messages, and ended when it
// answers, fails, goes quiet or is no longer wanted (index/worker-jobs.ts `workerJob`). A worker's
// heap is its own: the vault's language learned there makes no garbage for the thread that searches.
// Each keeps what became of its last job (`lastOutcome`): a worker that never started and one that
// started and then failed are different news for the person told where the language was learned.
import { Worker, type ResourceLimits } from "node:worker_threads";
import type { Workers } from "../ports";
import { errorMessage } from "../text/error-message";
import { DEFAULT_WORKER_WATCH, workerJob, type StartedWorker, type WorkerEvents, type WorkerWatch } from "../index/worker-jobs";

/** What became of the last job handed to a worker thread (an abandoned one is not counted). */
export type WorkerOutcome = { kind: "answered" } | { kind: "not_started"; reason: string } | { kind: "failed"; reason: string };

/** `Workers` that say what became of their last job. */
export interface ReportingWorkers extends Workers {
  lastOutcome(): WorkerOutcome | null;
}

/** A worker thread that could not be started (no code, or Node refused it before it ran a line). */
class WorkerNotStarted extends Error {}

export class NodeWorkers implements ReportingWorkers {
  private outcome: WorkerOutcome | null = null;

  /** `limits`: Node's resource limits for each worker thread (none by default). */
  constructor(
    private readonly code: string,
    private readonly watch: WorkerWatch = DEFAULT_WORKER_WATCH,
    private readonly limits?: ResourceLimits,
  ) {}

  run(message: unknown, signal: AbortSignal, more?: AsyncIterable<unknown>): Promise<unknown> {
    const job = workerJob((events) => this.start(events), message, signal, more, this.watch);
    return job.then(
      (answer) => {
        this.outcome = { kind: "answered" };
        return answer;
      },
      (error: unknown) => {
        if (!signal.aborted) this.outcome = outcomeOf(error);
        throw error;
      },
    );
  }

  lastOutcome(): WorkerOutcome | null {
    return this.outcome;
  }

  /** A worker thread wired to `events`; what fails before it runs its first line failed to start. */
  private start(events: WorkerEvents): StartedWorker {
    let worker: Worker;
    try {
      worker = new Worker(this.code, { eval: true, ...(this.limits ? { resourceLimits: this.limits } : {}) });
    } catch (error) {
      throw new WorkerNotStarted(errorMessage(error));
    }
    let online = false;
    worker.once("online", () => (online = true));
    const failed = (error: Error) => events.failed(online ? error : new WorkerNotStarted(error.message));
    worker.on("message", (data: unknown) => events.message(data));
    worker.once("error", failed);
    worker.once("exit", (code) => failed(new Error(`the worker stopped (exit code ${code}) before it answered`)));
    return { post: (m) => worker.postMessage(m), end: () => void worker.terminate() };
  }
}

function outcomeOf(error: unknown): WorkerOutcome {
  return error instanceof WorkerNotStarted ? { kind: "not_started", reason: error.message } : { kind: "failed", reason: errorMessage(error) };
}

/** Workers running the code this bundle carries, loaded when the first is started; where it carries
 * none (unbundled, in tests), a run rejects, and the caller does the work itself. */
export function bundledNodeWorkers(): ReportingWorkers {
  let loading: Promise<NodeWorkers> | null = null;
  let loaded: NodeWorkers | null = null;
  let notLoaded: WorkerOutcome | null = null;
  return {
    run: async (message, signal, more) => {
      loading ??= import("./node-worker-code").then(({ NODE_WORKER_CODE }) => {
        if (NODE_WORKER_CODE === null) throw new Error("this build carries no worker code");
        return (loaded = new NodeWorkers(NODE_WORKER_CODE));
      });
      let workers: NodeWorkers;
      try {
        workers = await loading;
      } catch (error) {
        notLoaded = { kind: "not_started", reason: errorMessage(error) };
        throw error;
      }
      return workers.run(message, signal, more);
    },
    lastOutcome: () => loaded?.lastOutcome() ?? notLoaded,
  };
}
