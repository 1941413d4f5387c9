// Learning the words' meanings as a worker's job: the notes go in a batch at a time after the
// request, and the answer (here, in this thread, through the same structured clone a worker's
// messages pass) is exactly the meanings learned here from the same notes; either side refuses a
// message of the wrong shape rather than reading half of it.
import { describe, expect, it } from "vitest";
import { meaningsRequest, notesBatch, NOTES_END, readMeaningsAnswer } from "../../../src/index/vault-language/meanings-job";
import type { WordMeaningOptions } from "../../../src/index/vault-language/word-meanings";
import { isTaken, TAKEN, unwrapWorkerReply, workerSession } from "../../../src/index/worker-jobs";
import { laneVaultNotes, meaningsLearnedHere } from "../../support/lane-vault";
import { workerHere } from "../../support/worker-here";

const OPTIONS: WordMeaningOptions = { dimensions: 8, minPassages: 3, maxWords: 1000, smoothing: 0.75, oversample: 10, powerSteps: 2 };
const NOTES = laneVaultNotes();

/** The messages of one learning, each as a worker receives it (copied), and the one reply. */
async function askWorker(messages: unknown[]) {
  const worker = workerHere();
  for (const m of messages) worker.send(m);
  if (!worker.answering()) {
    // Every message was taken, and said so.
    expect(worker.posted).toEqual(messages.map(() => TAKEN));
    return null;
  }
  const reply = await worker.reply;
  expect(worker.posted.filter((p) => !isTaken(p))).toEqual([reply]);
  return reply;
}

const batches = (size: number) => Array.from({ length: Math.ceil(NOTES.length / size) }, (_, i) => notesBatch(NOTES.slice(i * size, (i + 1) * size)));

describe("the meanings job", () => {
  it("answers, after the notes in batches and the end, exactly the meanings learned here, and nothing before the end", async () => {
    for (const maxPassages of [60_000, 500]) {
      const here = (await meaningsLearnedHere(NOTES, OPTIONS, maxPassages))!;
      expect(await askWorker([meaningsRequest(true, maxPassages, 100, OPTIONS), ...batches(64)])).toBeNull();
      const reply = await askWorker([meaningsRequest(true, maxPassages, 100, OPTIONS), ...batches(64), NOTES_END]);
      const there = readMeaningsAnswer(structuredClone(unwrapWorkerReply(reply)), OPTIONS)!;
      expect(there.words).toEqual(here.words);
      expect(Array.from(there.vectors)).toEqual(Array.from(here.vectors));
      expect(here.words).toContain("kestrel");
    }
  });

  it("answers null (too little to learn from), not an error, below minPassages; and ignores what comes after its reply", async () => {
    const request = meaningsRequest(true, 60_000, 100_000, OPTIONS);
    const reply = await askWorker([request, ...batches(100), NOTES_END, NOTES_END, "late"]);
    expect(readMeaningsAnswer(unwrapWorkerReply(reply), OPTIONS)).toBeNull();
  });

  it("says it failed when its answer cannot be sent, rather than leave the other side waiting", async () => {
    const posted: unknown[] = [];
    const failed = new Promise<unknown>((resolve) => {
      const session = workerSession((message) => {
        if (typeof message === "object" && message !== null && "ok" in message && message.ok === true) throw new Error("DataCloneError: could not be cloned");
        posted.push(message);
        if (!isTaken(message)) resolve(message);
      });
      for (const m of [meaningsRequest(true, 60_000, 100, OPTIONS), ...batches(200), NOTES_END]) session(structuredClone(m));
    });
    expect(await failed).toEqual({ ok: false, error: "DataCloneError: could not be cloned" });
    expect(posted.filter((p) => !isTaken(p))).toHaveLength(1);
  });

  it("refuses a request, or a later message, of the wrong shape with a reason", async () => {
    const good = meaningsRequest(true, 60_000, 100, OPTIONS);
    const badRequests: [string, unknown][] = [
      ["another version", { ...good, version: 1 }],
      ["no stemming flag", { ...good, stemming: "yes" }],
      ["a sample of no passages", { ...good, maxPassages: 0 }],
      ["no dimensions", { ...good, options: { ...OPTIONS, dimensions: 0 } }],
      ["a smoothing of NaN", { ...good, options: { ...OPTIONS, smoothing: Number.NaN } }],
      ["no options", { ...good, options: undefined }],
    ];
    for (const [what, message] of badRequests) expect(await askWorker([message]), what).toEqual({ ok: false, error: "not a request to learn meanings this worker can read" });
    expect(await askWorker(["learn"])).toEqual({ ok: false, error: "the worker was sent a job it does not know" });
    const badBatches: [string, unknown][] = [
      ["a note without text", notesBatch([["a.md", 5 as unknown as string]])],
      ["notes not in pairs", { job: "learn-meanings", notes: [["a.md"]] }],
      ["no notes", { job: "learn-meanings" }],
    ];
    for (const [what, message] of badBatches) expect(await askWorker([good, message]), what).toEqual({ ok: false, error: "not a batch of notes this worker can read" });
    expect(await askWorker([good, { job: "other", end: true }])).toEqual({ ok: false, error: "not a message of this learning" });
    expect(() => unwrapWorkerReply({ ok: false, error: "x" })).toThrow("the worker failed: x");
  });

  it("reads no answer of the wrong shape (the meanings are then learned here)", async () => {
    const reply = await askWorker([meaningsRequest(true, 60_000, 100, OPTIONS), ...batches(200), NOTES_END]);
    const good = unwrapWorkerReply(reply) as { meanings: { words: string; dimensions: number; vectors: Float32Array } };
    const m = good.meanings;
    expect(readMeaningsAnswer(good, OPTIONS)).toBeTruthy();
    const bad: [string, unknown][] = [
      ["nothing", undefined],
      ["another job", { ...good, job: "other" }],
      ["an older version", { ...good, version: 1 }],
      ["no meanings field", { job: "learn-meanings", version: 2 }],
      ["too many dimensions", { ...good, meanings: { ...m, dimensions: 9 } }],
      ["vectors one short", { ...good, meanings: { ...m, vectors: m.vectors.subarray(1) } }],
      ["vectors as numbers", { ...good, meanings: { ...m, vectors: Array.from(m.vectors) } }],
      ["a word twice", { ...good, meanings: { ...m, words: m.words.replace(/^([^\n]+)\n[^\n]+/, "$1\n$1") } }],
      ["an empty word", { ...good, meanings: { ...m, words: m.words.replace(/^[^\n]+/, "") } }],
    ];
    for (const [what, answer] of bad) expect(readMeaningsAnswer(answer, OPTIONS), what).toBeUndefined();
    expect(() => unwrapWorkerReply("learned")).toThrow(/not one this side can read/);
    expect(() => unwrapWorkerReply({ ok: false })).toThrow("the worker failed: no reason given");
  });
});
