import { describe, expect, it } from "vitest";
import type { EmbeddingProgress } from "../../../src/index/embeddings/embedding-job";
import { durationWords, embeddingProgressWords } from "../../../src/index/embeddings/progress-words";
import { maxRetryAfterMs } from "../../../src/text/retry-after";

const base: EmbeddingProgress = { state: "running", notesDone: 1200, notesTotal: 12_000, notesUnchanged: 0, notesRechecked: 0, checksLeft: 0, notesUnreadable: 0, unitsDone: 0, notesPerSecond: 4.24, etaMs: 2_547_000, resets: [] };

describe("embedding progress in words", () => {
  it.each([
    [{}, "Embedding notes: 1,200 of 12,000 · 4.2 notes/s · about 42 min left"],
    [{ notesPerSecond: 31.6, etaMs: 30_000 }, "Embedding notes: 1,200 of 12,000 · 32 notes/s · under a minute left"],
    [{ etaMs: 2 * 3_600_000 + 5 * 60_000 }, "Embedding notes: 1,200 of 12,000 · 4.2 notes/s · about 2 h 5 min left"],
    [{ etaMs: 3_600_000 }, "Embedding notes: 1,200 of 12,000 · 4.2 notes/s · about 1 h left"],
    [{ notesDone: 0, notesPerSecond: null, etaMs: null }, "Embedding notes: 0 of 12,000"],
    [{ notesDone: 0, checksLeft: 9_282, notesPerSecond: null, etaMs: null }, "Checking notes after an update: 9,282 to go"],
    [{ state: "paused" }, "Embedding paused at 1,200 of 12,000 notes."],
    // Vectors carried to renamed notes come first, and are said as such: "0 of" a falling total read as stuck.
    [{ notesDone: 0, notesTotal: 3_000, movesLeft: 2_640, notesPerSecond: null, etaMs: null }, "Moving the vectors of renamed notes: 2,640 to go"],
    [{ notesDone: 0, notesTotal: 3_000, movesLeft: 2_640, checksLeft: 10 }, "Moving the vectors of renamed notes: 2,640 to go"],
    [{ state: "paused", notesDone: 0, movesLeft: 12 }, "Paused while moving the vectors of renamed notes: 12 to go."],
    [{ state: "done", notesDone: 2, notesUnchanged: 3_040, notesMoved: 3_000 }, "Embedded 2 notes; 3,040 already up to date (3,000 renamed, their vectors moved with them)."],
    [{ state: "done", notesDone: 2, notesUnchanged: 40, notesMoved: 0 }, "Embedded 2 notes; 40 already up to date."],
    [{ state: "cancelled" }, "Embedding stopped at 1,200 of 12,000 notes; what was embedded is kept."],
    [{ state: "failed", error: { kind: "network", message: "Could not reach Ollama at http://localhost:11434: connection refused" } }, "Embedding stopped at 1,200 of 12,000 notes: Could not reach Ollama at http://localhost:11434: connection refused"],
    [{ state: "done", notesDone: 12_000, notesUnchanged: 300, notesUnreadable: 2 }, "Embedded 12,000 notes; 300 already up to date; 2 could not be read and will be tried again."],
    [{ state: "done", notesDone: 1 }, "Embedded 1 note."],
    [{ state: "done", notesDone: 3, notesUnchanged: 40, notesRechecked: 43 }, "Embedded 3 notes; 40 already up to date; 43 read again because this version cuts notes differently."],
    // Vectors that could not be saved are not kept: the words never say they are.
    [{ state: "done", notesDone: 12_000, saveProblem: "The vectors could not be saved: disk full" }, "Embedded 12,000 notes, but their vectors could not be saved."],
    [{ state: "cancelled", saveProblem: "The vectors could not be saved: disk full" }, "Embedding stopped at 1,200 of 12,000 notes; the vectors could not be saved."],
    [{ state: "idle" }, "Embedding has not started."],
    [{ etaMs: 30 * 3_600_000 }, "Embedding notes: 1,200 of 12,000 · 4.2 notes/s · a day or more left"],
  ] as [Partial<EmbeddingProgress>, string][])("%j → %s", (change, words) => {
    expect(embeddingProgressWords({ ...base, ...change })).toBe(words);
  });
});

// Nothing hands it such a value today; a Retry-After of 400 nines once read "about Infinity h NaN min".
describe("a stretch of time in words", () => {
  it.each([
    [59_999, "under a minute"],
    [7 * 60_000, "about 7 min"],
    [2 * 3_600_000 + 5 * 60_000, "about 2 h 5 min"],
    [86_399_999, "about 24 h"],
    [86_400_000, "a day or more"],
    [30 * 86_400_000, "a day or more"],
    [Number.POSITIVE_INFINITY, "a day or more"],
    [Number.NaN, "a day or more"],
  ])("%d ms → %s", (ms, words) => {
    expect(durationWords(ms)).toBe(words);
  });

  it("says the longest wait a Retry-After is believed for as a day or more", () => {
    expect(durationWords(maxRetryAfterMs)).toBe("a day or more");
  });
});
