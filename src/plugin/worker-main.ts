// The code a Web Worker runs (web-workers.ts): its messages, in order, to one job; each taken
// acknowledged, and its one reply sent back (index/worker-jobs.ts).
// Bundled on its own by esbuild.config.mjs and carried by main.js as a string.
import { workerSession } from "../index/worker-jobs";

/** The worker's own scope, as much of it as is used (the plugin is typed for a window). */
interface WorkerScope {
  onmessage: ((event: MessageEvent<unknown>) => void) | null;
  postMessage(message: unknown, transfer: Transferable[]): void;
}

const scope = self as unknown as WorkerScope;
const session = workerSession((message, transfer) => scope.postMessage(message, transfer));
scope.onmessage = (event) => session(event.data);
