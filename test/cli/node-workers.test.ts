// The `Workers` port in Node, with real worker threads running the worker's real bundled code:
// meanings learned there are exactly those learned here; a failing job, a worker that dies, cannot
// start or goes quiet, and an abort each reject (the lane then learns in its own thread).
import { beforeAll, describe, expect, it } from "vitest";
import { workerBundle } from "../../scripts/worker-bundle.mjs";
import { bundledNodeWorkers, NodeWorkers } from "../../src/cli/node-workers";
import { DEFAULT_WORKER_WATCH } from "../../src/index/worker-jobs";
import { systemClock } from "../../src/ports";
import { meaningsRequest, NOTES_END, readMeaningsAnswer } from "../../src/index/vault-language/meanings-job";
import type { WordMeaningOptions } from "../../src/index/vault-language/word-meanings";
import { laneVaultNotes, meaningsLearnedHere, notesAsHanded } from "../support/lane-vault";

const OPTIONS: WordMeaningOptions = { dimensions: 8, minPassages: 3, maxWords: 1000, smoothing: 0.75, oversample: 10, powerSteps: 2 };

let code = "";
beforeAll(async () => {
  code = await workerBundle("node");
}, 30_000);

const never = () => new AbortController().signal;

describe("NodeWorkers", () => {
  it("learns in a worker thread, from the notes handed to it a batch at a time, exactly the meanings learned here", async () => {
    const notes = laneVaultNotes();
    const here = (await meaningsLearnedHere(notes, OPTIONS))!;
    const answer = await new NodeWorkers(code).run(meaningsRequest(true, 60_000, 100, OPTIONS), never(), notesAsHanded(notes));
    const there = readMeaningsAnswer(answer, OPTIONS)!;
    expect(there.words).toEqual(here.words);
    expect(Array.from(there.vectors)).toEqual(Array.from(here.vectors));
  });

  it("rejects with the worker's reason when the job is refused", async () => {
    await expect(new NodeWorkers(code).run({ job: "learn-meanings", version: 2 }, never(), (async function* () {
      yield NOTES_END;
    })())).rejects.toThrow("the worker failed: not a request to learn meanings this worker can read");
  });

  it("rejects when the worker throws, exits without answering, or cannot be started", async () => {
    await expect(new NodeWorkers("throw new Error('broken bundle')").run({}, never())).rejects.toThrow("broken bundle");
    await expect(new NodeWorkers("process.exit(3)").run({}, never())).rejects.toThrow("the worker stopped (exit code 3) before it answered");
    await expect(new NodeWorkers("this is not javascript").run({}, never())).rejects.toThrow();
  });

  it("ends the worker when the work is no longer wanted, and does not start one for work already unwanted", async () => {
    const controller = new AbortController();
    // A worker that never answers: only the abort ends this run.
    const running = new NodeWorkers("setInterval(() => {}, 1000)").run({}, controller.signal);
    setTimeout(() => controller.abort(), 50);
    await expect(running).rejects.toThrow("the work was no longer wanted");
    await expect(new NodeWorkers(code).run({}, controller.signal)).rejects.toThrow("the work was no longer wanted");
  });

  it("ends a worker that holds work and says nothing (stuck in a loop, never exiting), and rejects saying so", async () => {
    const quiet = { clock: systemClock, quietMs: 300 };
    await expect(new NodeWorkers("while (true) {}", quiet).run({}, never())).rejects.toThrow("the worker said nothing for 300 ms while it held work, and was ended");
    // One that took its message and then hangs, with more to be fed: the same.
    const taken = "const { parentPort } = require('node:worker_threads'); parentPort.once('message', () => parentPort.postMessage({ taken: true })); setInterval(() => {}, 1000);";
    const more = (async function* () {
      yield "batch 1";
      yield "batch 2";
    })();
    await expect(new NodeWorkers(taken, quiet).run({}, never(), more)).rejects.toThrow("said nothing for 300 ms");
  });

  it("carries no worker code when unbundled (the tests): a run rejects, and the lane then learns in its own thread", async () => {
    const workers = bundledNodeWorkers();
    expect(workers.lastOutcome()).toBeNull();
    await expect(workers.run({}, never())).rejects.toThrow("this build carries no worker code");
    expect(workers.lastOutcome()).toEqual({ kind: "not_started", reason: "this build carries no worker code" });
  });
});

describe("NodeWorkers' last outcome", () => {
  // The index command said "no worker could be started" of a worker that had started and then
  // crashed or thrown: the person looked for a missing thread, not for the failure.
  it("tells a worker that started and then threw or stopped from one that could not start, and keeps an answer", async () => {
    const threw = new NodeWorkers("throw new Error('broken bundle')");
    await expect(threw.run({}, never())).rejects.toThrow();
    expect(threw.lastOutcome()).toEqual({ kind: "failed", reason: "broken bundle" });
    const stopped = new NodeWorkers("process.exit(3)");
    await expect(stopped.run({}, never())).rejects.toThrow();
    expect(stopped.lastOutcome()).toEqual({ kind: "failed", reason: "the worker stopped (exit code 3) before it answered" });
    const refused = new NodeWorkers(code);
    await expect(refused.run({ job: "learn-meanings", version: 2 }, never(), (async function* () {
      yield NOTES_END;
    })())).rejects.toThrow();
    expect(refused.lastOutcome()).toEqual({ kind: "failed", reason: "the worker failed: not a request to learn meanings this worker can read" });
    const answered = new NodeWorkers(code);
    await answered.run(meaningsRequest(true, 60_000, 100, OPTIONS), never(), notesAsHanded(laneVaultNotes()));
    expect(answered.lastOutcome()).toEqual({ kind: "answered" });
  });

  it("says a worker Node would not start (out of memory before its first line) was not started, and leaves an abandoned job out", async () => {
    // Node refuses to start a worker whose heap limit is too small for its first line.
    const tooSmall = new NodeWorkers("", DEFAULT_WORKER_WATCH, { maxOldGenerationSizeMb: 1, maxYoungGenerationSizeMb: 1 });
    await expect(tooSmall.run({}, never())).rejects.toThrow();
    expect(tooSmall.lastOutcome()?.kind).toBe("not_started");
    const controller = new AbortController();
    const unwanted = new NodeWorkers("setInterval(() => {}, 1000)");
    const running = unwanted.run({}, controller.signal);
    setTimeout(() => controller.abort(), 50);
    await expect(running).rejects.toThrow("no longer wanted");
    expect(unwanted.lastOutcome()).toBeNull();
  });
});
