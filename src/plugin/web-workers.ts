// The `Workers` port in Obsidian: each job in a Web Worker of its own, started from the worker's
// bundled code (plugin/worker-main.ts, put into main.js as a string by esbuild.config.mjs, since a
// plugin ships one script) through a blob URL, and ended when it answers, fails or is no longer
// wanted. Learning the vault's language there keeps its arithmetic and its garbage off the thread
// the user types on. Where workers cannot start, the caller does the work itself.
import type { Workers } from "../ports";
import { unwrapWorkerReply } from "../index/worker-jobs";

/** The worker's code, defined by the build; absent when this file runs unbundled (tests). */
declare const __VAULT_RESEARCH_WEB_WORKER__: string | undefined;

export class WebWorkers implements Workers {
  constructor(private readonly code: string) {}

  run(message: unknown, signal: AbortSignal): Promise<unknown> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(new Error("the work was no longer wanted"));
      let url: string;
      let worker: Worker;
      try {
        url = URL.createObjectURL(new Blob([this.code], { type: "text/javascript" }));
        worker = new Worker(url);
      } catch (error) {
        return reject(error instanceof Error ? error : new Error(String(error)));
      }
      let settled = false;
      const settle = (then: () => void): void => {
        if (settled) return;
        settled = true;
        signal.removeEventListener("abort", onAbort);
        worker.terminate();
        URL.revokeObjectURL(url);
        then();
      };
      const onAbort = (): void => settle(() => reject(new Error("the work was no longer wanted")));
      signal.addEventListener("abort", onAbort, { once: true });
      worker.onmessage = (event: MessageEvent<unknown>) =>
        settle(() => {
          try {
            resolve(unwrapWorkerReply(event.data));
          } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)));
          }
        });
      worker.onmessageerror = () => settle(() => reject(new Error("the worker's reply could not be read")));
      worker.onerror = (event: ErrorEvent) => {
        // Handled here: not an uncaught error of the page.
        event.preventDefault();
        settle(() => reject(new Error(`the worker failed: ${event.message || "no reason given"}`)));
      };
      worker.postMessage(message);
    });
  }
}

/** Workers running the code main.js carries; null when it carries none or this place has no Web Workers. */
export function bundledWebWorkers(): WebWorkers | null {
  if (typeof __VAULT_RESEARCH_WEB_WORKER__ !== "string" || typeof Worker !== "function" || typeof Blob !== "function") return null;
  return new WebWorkers(__VAULT_RESEARCH_WEB_WORKER__);
}
