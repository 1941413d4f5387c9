// The `Workers` port in Obsidian: each job in a Web Worker of its own, started from the worker's
// bundled code (plugin/worker-main.ts, put into main.js as a string by esbuild.config.mjs, since a
// plugin ships one script) through a blob URL, and ended when it answers, fails, goes quiet or is no
// longer wanted (index/worker-jobs.ts `workerJob`). Learning the vault's language there keeps its
// arithmetic and its garbage off the thread the user types on. Where workers cannot start, the
// caller does the work itself.
import type { Workers } from "../ports";
import { DEFAULT_WORKER_WATCH, workerJob, type WorkerWatch } from "../index/worker-jobs";

/** The worker's code, defined by the build; absent when this file runs unbundled (tests). */
declare const __VAULT_RESEARCH_WEB_WORKER__: string | undefined;

export class WebWorkers implements Workers {
  constructor(
    private readonly code: string,
    private readonly watch: WorkerWatch = DEFAULT_WORKER_WATCH,
  ) {}

  run(message: unknown, signal: AbortSignal, more?: AsyncIterable<unknown>): Promise<unknown> {
    return workerJob(
      (events) => {
        const url = URL.createObjectURL(new Blob([this.code], { type: "text/javascript" }));
        let worker: Worker;
        try {
          worker = new Worker(url);
        } catch (error) {
          URL.revokeObjectURL(url);
          throw error;
        }
        worker.onmessage = (event: MessageEvent<unknown>) => events.message(event.data);
        worker.onmessageerror = () => events.failed(new Error("the worker's reply could not be read"));
        worker.onerror = (event: ErrorEvent) => {
          // Handled here: not an uncaught error of the page.
          event.preventDefault();
          events.failed(new Error(`the worker failed: ${event.message || "no reason given"}`));
        };
        return {
          post: (m) => worker.postMessage(m),
          end: () => {
            worker.terminate();
            URL.revokeObjectURL(url);
          },
        };
      },
      message,
      signal,
      more,
      this.watch,
    );
  }
}

/** Workers running the code main.js carries; null when it carries none or this place has no Web Workers. */
export function bundledWebWorkers(): WebWorkers | null {
  if (typeof __VAULT_RESEARCH_WEB_WORKER__ !== "string" || typeof Worker !== "function" || typeof Blob !== "function") return null;
  return new WebWorkers(__VAULT_RESEARCH_WEB_WORKER__);
}
