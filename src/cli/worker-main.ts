// The code a Node worker runs (node-workers.ts): one message in, one reply out (index/worker-jobs.ts).
// Bundled on its own by esbuild.config.mjs and carried by the CLI as a string.
import { parentPort } from "node:worker_threads";
import { answerWorkerMessage } from "../index/worker-jobs";

const port = parentPort;
port?.once("message", (message: unknown) => {
  void answerWorkerMessage(message).then(({ reply, transfer }) => port.postMessage(reply, transfer));
});
