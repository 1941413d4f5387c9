// The `Workers` port in Node: each job in a worker thread of its own, started from the worker's
// bundled code (cli/worker-main.ts, put into this bundle as a string by esbuild.config.mjs, in a
// part of its own: node-worker-code.ts), fed as fast as it takes its messages, and ended when it
// answers, fails, goes quiet or is no longer wanted (index/worker-jobs.ts `workerJob`). A worker's
// heap is its own: the vault's language learned there makes no garbage for the thread that searches.
import { Worker } from "node:worker_threads";
import type { Workers } from "../ports";
import { DEFAULT_WORKER_WATCH, workerJob, type WorkerWatch } from "../index/worker-jobs";

export class NodeWorkers implements Workers {
  constructor(
    private readonly code: string,
    private readonly watch: WorkerWatch = DEFAULT_WORKER_WATCH,
  ) {}

  run(message: unknown, signal: AbortSignal, more?: AsyncIterable<unknown>): Promise<unknown> {
    return workerJob(
      (events) => {
        const worker = new Worker(this.code, { eval: true });
        worker.on("message", (data: unknown) => events.message(data));
        worker.once("error", (error) => events.failed(error));
        worker.once("exit", (code) => events.failed(new Error(`the worker stopped (exit code ${code}) before it answered`)));
        return { post: (m) => worker.postMessage(m), end: () => void worker.terminate() };
      },
      message,
      signal,
      more,
      this.watch,
    );
  }
}

/** Workers running the code this bundle carries, loaded when the first is started; where it carries
 * none (unbundled, in tests), a run rejects, and the caller does the work itself. */
export function bundledNodeWorkers(): Workers {
  let workers: Promise<NodeWorkers> | null = null;
  return {
    run: async (message, signal, more) => {
      workers ??= import("./node-worker-code").then(({ NODE_WORKER_CODE }) => {
        if (NODE_WORKER_CODE === null) throw new Error("this build carries no worker code");
        return new NodeWorkers(NODE_WORKER_CODE);
      });
      return (await workers).run(message, signal, more);
    },
  };
}
