import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TopK } from "../../../src/index/embeddings/top-k";

describe("top-k heap", () => {
  it("keeps the same k best scores a full sort would", () => {
    fc.assert(
      fc.property(fc.array(fc.double({ noNaN: true, min: -1, max: 1 })), fc.integer({ min: 0, max: 20 }), (scores, k) => {
        const heap = new TopK<number>(k);
        scores.forEach((s, i) => heap.push(s, i));
        // 0 and -0 tie, and either may be kept: compared as numbers, not as bit patterns.
        const asNumber = (s: number) => s + 0;
        const kept = heap.sorted().map((e) => asNumber(e.score));
        expect(kept).toEqual([...scores].sort((a, b) => b - a).slice(0, k).map(asNumber));
      }),
    );
  });

  it("says what a newcomer must beat once full", () => {
    const heap = new TopK<string>(2);
    expect(heap.threshold).toBe(-Infinity);
    heap.push(0.5, "a");
    heap.push(0.9, "b");
    expect(heap.threshold).toBe(0.5);
    heap.push(0.7, "c");
    expect(heap.threshold).toBe(0.7);
    expect(heap.sorted()).toEqual([
      { score: 0.9, item: "b" },
      { score: 0.7, item: "c" },
    ]);
  });
});
