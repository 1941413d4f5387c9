// The code a Node worker runs (node-workers.ts): its messages, in order, to one job; its one reply
// back (index/worker-jobs.ts). Bundled on its own by esbuild.config.mjs and carried by the CLI as a string.
import { parentPort } from "node:worker_threads";
import { workerSession } from "../index/worker-jobs";

const port = parentPort;
const session = workerSession();
port?.on("message", (message: unknown) => {
  void session(message)?.then(({ reply, transfer }) => port.postMessage(reply, transfer));
});
