// The `Workers` port in Node: each job in a worker thread of its own, started from the worker's
// bundled code (cli/worker-main.ts, put into this bundle as a string by esbuild.config.mjs), fed
// as fast as it takes its messages, and ended when it answers, fails or is no longer wanted (index/worker-jobs.ts `workerJob`). A
// worker's heap is its own: the vault's language learned there makes no garbage for the thread
// that searches.
import { Worker } from "node:worker_threads";
import type { Workers } from "../ports";
import { workerJob } from "../index/worker-jobs";

/** The worker's code, defined by the build; absent when this file runs unbundled (tests). */
declare const __VAULT_RESEARCH_NODE_WORKER__: string | undefined;

export class NodeWorkers implements Workers {
  constructor(private readonly code: string) {}

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
    );
  }
}

/** Workers running the code this bundle carries; null when it carries none (unbundled, in tests). */
export function bundledNodeWorkers(): NodeWorkers | null {
  return typeof __VAULT_RESEARCH_NODE_WORKER__ === "string" ? new NodeWorkers(__VAULT_RESEARCH_NODE_WORKER__) : null;
}
