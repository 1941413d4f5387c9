// The code a Node worker runs (node-workers.ts): its messages, in order, to one job; each taken
// acknowledged, and its one reply sent back (index/worker-jobs.ts). Bundled on its own by
// esbuild.config.mjs and carried by the CLI as a string.
import { parentPort } from "node:worker_threads";
import { workerSession } from "../index/worker-jobs";

const port = parentPort;
if (port) port.on("message", workerSession((message, transfer) => port.postMessage(message, transfer)));
