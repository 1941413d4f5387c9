import { describe, expect, it } from "vitest";
import { rateCap } from "../../../src/llm/embeddings/rate-cap";
import { embeddingPrefixes } from "../../../src/llm/embeddings/embedding-prefixes";
import { fakeClock } from "../../support/fake-clock";

describe("rate cap", () => {
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
