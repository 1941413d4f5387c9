// The `Workers` port in Node: each job in a worker thread of its own, started from the worker's
// bundled code (cli/worker-main.ts, put into this bundle as a string by esbuild.config.mjs) and
// ended when it answers, fails or is no longer wanted. A worker's heap is its own: the vault's
// language learned there makes no garbage for the thread that searches.
import { Worker } from "node:worker_threads";
import type { Workers } from "../ports";
import { unwrapWorkerReply } from "../index/worker-jobs";

/** The worker's code, defined by the build; absent when this file runs unbundled (tests). */
declare const __VAULT_RESEARCH_NODE_WORKER__: string | undefined;

export class NodeWorkers implements Workers {
  constructor(private readonly code: string) {}

  run(message: unknown, signal: AbortSignal): Promise<unknown> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(new Error("the work was no longer wanted"));
      let worker: Worker;
      try {
        worker = new Worker(this.code, { eval: true });
      } catch (error) {
        return reject(error instanceof Error ? error : new Error(String(error)));
      }
      let settled = false;
      const settle = (then: () => void): void => {
        if (settled) return;
        settled = true;
        signal.removeEventListener("abort", onAbort);
        void worker.terminate();
        then();
      };
      const onAbort = (): void => settle(() => reject(new Error("the work was no longer wanted")));
      signal.addEventListener("abort", onAbort, { once: true });
      worker.once("message", (reply: unknown) =>
        settle(() => {
          try {
            resolve(unwrapWorkerReply(reply));
          } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)));
          }
        }),
      );
      worker.once("error", (error) => settle(() => reject(error)));
      worker.once("exit", (code) => settle(() => reject(new Error(`the worker stopped (exit code ${code}) before it answered`))));
      worker.postMessage(message);
    });
  }
}

/** Workers running the code this bundle carries; null when it carries none (unbundled, in tests). */
export function bundledNodeWorkers(): NodeWorkers | null {
  return typeof __VAULT_RESEARCH_NODE_WORKER__ === "string" ? new NodeWorkers(__VAULT_RESEARCH_NODE_WORKER__) : null;
}
