// A page that learns word meanings twice (from the notes of test/support/lane-vault.ts, handed to the
// worker a batch at a time), in its own thread and in a Web Worker started the way the
// plugin starts one (`bundledWebWorkers()`, the worker's code carried as a string and run from a blob
// URL), and says how the two compare; then fails a worker in each way the adapter must survive, a
// silent one among them.
// Built by web-workers.ts into dist/workbench/ with the worker's real minified bundle defined.
import { bundledWebWorkers, WebWorkers } from "../../../src/plugin/web-workers";
import { systemClock } from "../../../src/ports";
import { meaningsRequest, readMeaningsAnswer } from "../../../src/index/vault-language/meanings-job";
import type { WordMeaningOptions } from "../../../src/index/vault-language/word-meanings";
import { laneVaultNotes, meaningsLearnedHere, notesAsHanded } from "../../support/lane-vault";

const OPTIONS: WordMeaningOptions = { dimensions: 8, minPassages: 3, maxWords: 1000, smoothing: 0.75, oversample: 10, powerSteps: 2 };

const failure = (run: Promise<unknown>) =>
  run.then(
    () => "answered",
    (error: unknown) => (error instanceof Error ? error.message : String(error)),
  );

async function learnBoth() {
  const workers = bundledWebWorkers();
  if (!workers) return { workers: false };
  const notes = laneVaultNotes();
  const here = (await meaningsLearnedHere(notes, OPTIONS))!;
  const there = readMeaningsAnswer(await workers.run(meaningsRequest(true, 60_000, 100, OPTIONS), new AbortController().signal, notesAsHanded(notes)), OPTIONS);
  return {
    workers: true,
    words: here.words.length,
    sameWords: JSON.stringify(there?.words) === JSON.stringify(here.words),
    sameVectors: there !== null && there !== undefined && there.vectors.length === here.vectors.length && here.vectors.every((v, i) => there.vectors[i] === v),
  };
}

async function failures() {
  const never = () => new AbortController().signal;
  const workers = bundledWebWorkers()!;
  const aborting = new AbortController();
  const stopped = failure(new WebWorkers("setInterval(() => {}, 1000)").run({}, aborting.signal));
  setTimeout(() => aborting.abort(), 50);
  return {
    refused: await failure(workers.run({ job: "learn-meanings", version: 1 }, never())),
    badBatch: await failure(
      workers.run(
        meaningsRequest(true, 100, 10, OPTIONS),
        never(),
        (async function* () {
          yield { job: "learn-meanings", notes: "not a list" };
        })(),
      ),
    ),
    throws: await failure(new WebWorkers("throw new Error('broken bundle')").run({}, never())),
    notJavaScript: await failure(new WebWorkers("this is not javascript").run({}, never())),
    aborted: await stopped,
    // Stuck in a loop, never exiting and never answering: given up on after its silence.
    quiet: await failure(new WebWorkers("while (true) {}", { clock: systemClock, quietMs: 300 }).run({}, never())),
  };
}

(window as unknown as { webWorkersCheck: unknown }).webWorkersCheck = { learnBoth, failures, ready: true };
