// Learning the words' meanings as a worker's job: the passage book keeps each passage's distinct
// topic terms; a request answered (here, in this thread, through the same structured clone a
// worker's messages pass) gives exactly the meanings learned here; and either side refuses a
// message of the wrong shape rather than reading half of it.
import { describe, expect, it } from "vitest";
import { isTopicTerm } from "../../../src/index/stopwords";
import { answerMeaningsRequest, meaningsRequest, readMeaningsAnswer, type MeaningsRequest } from "../../../src/index/vault-language/meanings-job";
import { learnFromBook, passageBook, type WordMeaningOptions } from "../../../src/index/vault-language/word-meanings";
import { answerWorkerMessage, unwrapWorkerReply } from "../../../src/index/worker-jobs";
import { NO_SLICES, type WorkSlice } from "../../../src/index/work-slice";
import { meaningCorpus } from "../../support/meaning-corpus";

const OPTIONS: WordMeaningOptions = { dimensions: 8, minPassages: 3, maxWords: 1000, smoothing: 0.75, oversample: 10, powerSteps: 2 };

async function bookOf(passages: string[][]) {
  return passageBook(passages, isTopicTerm, NO_SLICES);
}

/** A request as a worker receives it: copied by the structured clone algorithm. */
async function request(options = OPTIONS): Promise<MeaningsRequest> {
  return structuredClone(meaningsRequest(await bookOf(meaningCorpus()), options)!);
}

describe("passageBook", () => {
  it("keeps each passage's distinct topic terms in the order first met, one place per term across passages", async () => {
    let pauses = 0;
    const slice: WorkSlice = { over: () => true, pause: async () => void pauses++, restart: () => undefined };
    const passages = [["gamma", "the", "delta", "gamma"], [], ["delta", "2024", "omega"]];
    const book = await passageBook(passages, isTopicTerm, slice);
    const rows = Array.from({ length: 3 }, (_, i) => Array.from(book.entries.subarray(book.start[i], book.start[i + 1]), (place) => book.terms[place]));
    expect(rows).toEqual([["gamma", "delta"], [], ["delta", "omega"]]);
    expect(book.terms).toEqual(["gamma", "delta", "omega"]);
    expect(pauses).toBeGreaterThan(0);
  });

  it("grows past its first guess of room (passages longer than 16 terms)", async () => {
    const long = Array.from({ length: 3 }, (_, p) => Array.from({ length: 600 }, (_, i) => `word${p}x${i}`));
    const book = await bookOf(long);
    expect(book.entries.length).toBe(1800);
    expect(book.terms[1799]).toBe("word2x599");
  });
});

describe("the meanings job", () => {
  it("answers with exactly the meanings learned here", async () => {
    const here = (await learnFromBook(await bookOf(meaningCorpus()), NO_SLICES, OPTIONS))!;
    const { reply, transfer } = await answerWorkerMessage(await request());
    expect(reply.ok).toBe(true);
    expect(transfer).toHaveLength(1);
    const answer = structuredClone(unwrapWorkerReply(reply));
    const there = readMeaningsAnswer(answer, OPTIONS)!;
    expect(there.words).toEqual(here.words);
    expect(there.dimensions).toBe(here.dimensions);
    expect(Array.from(there.vectors)).toEqual(Array.from(here.vectors));
    expect(here.words).toContain("alpha");
  });

  it("answers 'too few words' as null, not as an error", async () => {
    const { reply } = await answerWorkerMessage(await request({ ...OPTIONS, dimensions: 28 }));
    expect(readMeaningsAnswer(unwrapWorkerReply(reply), { ...OPTIONS, dimensions: 28 })).toBeNull();
  });

  it("is not asked for when a term would not survive the joining", async () => {
    const book = await bookOf(meaningCorpus());
    expect(meaningsRequest({ ...book, terms: [...book.terms, "two\nlines"] }, OPTIONS)).toBeNull();
    expect(meaningsRequest(book, OPTIONS)).not.toBeNull();
  });

  it("refuses a request of the wrong shape with a reason, and never learns from half of it", async () => {
    const good = await request();
    const bad: [string, unknown][] = [
      ["not an object", "learn"],
      ["another version", { ...good, version: 2 }],
      ["a place past the terms", { ...good, entries: Uint32Array.from(good.entries, (e, i) => (i === 3 ? 10_000 : e)) }],
      ["starts that go back", { ...good, start: Uint32Array.from(good.start, (s, i) => (i === 5 ? 0 : s)) }],
      ["starts that end short", { ...good, start: good.start.subarray(0, 10) }],
      ["entries as a plain array", { ...good, entries: Array.from(good.entries) }],
      ["no dimensions", { ...good, options: { ...OPTIONS, dimensions: 0 } }],
      ["a smoothing of NaN", { ...good, options: { ...OPTIONS, smoothing: Number.NaN } }],
      ["no options", { ...good, options: undefined }],
    ];
    for (const [what, message] of bad) {
      await expect(answerMeaningsRequest(message), what).rejects.toThrow(/not a request to learn meanings/);
      const { reply } = await answerWorkerMessage(message);
      if (what === "not an object") expect(reply).toEqual({ ok: false, error: "the worker was sent a job it does not know" });
      else expect(reply, what).toEqual({ ok: false, error: "not a request to learn meanings this worker can read" });
      expect(() => unwrapWorkerReply(reply)).toThrow(/^the worker failed: /);
    }
  });

  it("reads no answer of the wrong shape (the meanings are then learned here)", async () => {
    const { reply } = await answerWorkerMessage(await request());
    const good = unwrapWorkerReply(reply) as { meanings: { words: string; dimensions: number; vectors: Float32Array } };
    const m = good.meanings;
    expect(readMeaningsAnswer(good, OPTIONS)).toBeTruthy();
    const bad: [string, unknown][] = [
      ["nothing", undefined],
      ["another job", { ...good, job: "other" }],
      ["no meanings field", { job: "learn-meanings", version: 1 }],
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
