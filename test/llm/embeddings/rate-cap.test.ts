import { afterEach, describe, expect, it, vi } from "vitest";
import { rateCap } from "../../../src/llm/embeddings/rate-cap";
import { systemClock } from "../../../src/ports";
import { embeddingPrefixes } from "../../../src/llm/embeddings/embedding-prefixes";
import { fakeClock } from "../../support/fake-clock";

describe("rate cap", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("spaces request starts by 1 / rate, and lets a request through at once after a quiet spell", async () => {
    const clock = fakeClock();
    const cap = rateCap(4, clock);
    await cap.wait();
    await cap.wait();
    await cap.wait();
    expect(clock.sleeps).toEqual([250, 250]);
    clock.advance(10_000);
    await cap.wait();
    expect(clock.sleeps).toEqual([250, 250]);
  });

  it("spaces starts on the monotonic reading: a wall clock set back an hour does not make the next wait an hour", async () => {
    const clock = fakeClock();
    const cap = rateCap(2, clock);
    await cap.wait();
    clock.set(clock.now() - 3_600_000);
    await cap.wait();
    expect(clock.sleeps).toEqual([500]);
  });

  it("queues concurrent callers instead of letting them burst", async () => {
    // A clock standing still, as a real one nearly does while three callers arrive together.
    const waits: number[] = [];
    const still = { now: () => 1_000, sleep: (ms: number) => (waits.push(ms), Promise.resolve()) };
    const cap = rateCap(2, still);
    await Promise.all([cap.wait(), cap.wait(), cap.wait()]);
    expect(waits).toEqual([500, 1000]);
  });

  it("a stop during a turn's wait ends it at once, its timer cleared (an embed run's Ctrl-C at 0.1 a second)", async () => {
    vi.useFakeTimers();
    const cap = rateCap(0.1, systemClock);
    expect(await cap.wait()).toBe(true);
    const stop = new AbortController();
    let outcome: boolean | "waiting" = "waiting";
    void cap.wait(stop.signal).then((turnCame) => (outcome = turnCame));
    expect(vi.getTimerCount()).toBe(1);
    stop.abort();
    // A millisecond on, not ten seconds: with a plain sleep the caller was still waiting its turn.
    await vi.advanceTimersByTimeAsync(1);
    expect(outcome).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("a turn a stopped caller never used is given back, unless a later caller already queued behind it", async () => {
    const clock = fakeClock();
    const waits: number[] = [];
    // Pacing sleeps that end only at their signal, so the test decides which turn is stopped.
    const holding = { now: () => clock.now(), monotonicNow: () => clock.monotonicNow(), sleep: (ms: number, signal?: AbortSignal) => (waits.push(ms), new Promise<void>((_, reject) => signal?.addEventListener("abort", () => reject(new Error("stopped"))))) };
    const cap = rateCap(1, holding);
    await cap.wait();
    const first = new AbortController();
    const stopped = cap.wait(first.signal);
    first.abort();
    expect(await stopped).toBe(false);
    // The next caller takes the turn the stopped one left, not the one after it.
    const second = new AbortController();
    void cap.wait(second.signal);
    const third = new AbortController();
    void cap.wait(third.signal);
    second.abort();
    await Promise.resolve();
    const fourth = new AbortController();
    void cap.wait(fourth.signal);
    expect(waits).toEqual([1000, 1000, 2000, 3000]);
    third.abort();
    fourth.abort();
  });

  it("an already stopped caller is refused without a wait", async () => {
    const clock = fakeClock();
    const cap = rateCap(2, clock);
    await cap.wait();
    const stop = new AbortController();
    stop.abort();
    expect(await cap.wait(stop.signal)).toBe(false);
    expect(await rateCap(0, clock).wait(stop.signal)).toBe(false);
    expect(clock.sleeps).toEqual([]);
  });

  it("0 (or nonsense) means no cap", async () => {
    const clock = fakeClock();
    for (const rate of [0, -1, Number.NaN, Infinity]) await rateCap(rate, clock).wait();
    expect(clock.sleeps).toEqual([]);
  });
});

describe("embedding prefixes", () => {
  it("knows nomic, mxbai and e5, whatever the server calls them, and gives others none", () => {
    expect(embeddingPrefixes("nomic-embed-text:latest")).toEqual({ document: "search_document: ", query: "search_query: " });
    expect(embeddingPrefixes("text-embedding-nomic-embed-text-v1.5")).toEqual({ document: "search_document: ", query: "search_query: " });
    expect(embeddingPrefixes("mxbai-embed-large").document).toBe("");
    expect(embeddingPrefixes("mxbai-embed-large").query).toMatch(/^Represent this sentence/);
    expect(embeddingPrefixes("intfloat/multilingual-e5-large")).toEqual({ document: "passage: ", query: "query: " });
    expect(embeddingPrefixes("text-embedding-3-small")).toEqual({ document: "", query: "" });
  });
});
