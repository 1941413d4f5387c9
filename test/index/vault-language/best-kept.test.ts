// The best few of many: whatever order items come in, the ones kept are the best `limit` by the
// order given; the worst kept is known once the limit is reached; a limit of 0 keeps nothing.
import { describe, expect, it } from "vitest";
import { BestKept } from "../../../src/index/vault-language/best-kept";
import { seededRandom } from "../../../src/index/vault-language/top-eigenvectors";

const ascending = (a: number, b: number) => a - b;

describe("BestKept", () => {
  it("keeps the best `limit` items by its order, however they come", () => {
    const random = seededRandom(3);
    const values = Array.from({ length: 2000 }, () => Math.floor(random() * 1e9));
    for (const limit of [1, 7, 50, 1999, 2000, 2500]) {
      const kept = new BestKept<number>(limit, ascending);
      values.forEach((v) => kept.offer(v));
      expect(kept.items().sort(ascending)).toEqual([...values].sort(ascending).slice(0, limit));
    }
  });

  it("gives the worst kept once full, and nothing before", () => {
    const kept = new BestKept<number>(3, ascending);
    kept.offer(5);
    kept.offer(1);
    expect(kept.worst()).toBeUndefined();
    kept.offer(9);
    expect(kept.worst()).toBe(9);
    kept.offer(4);
    expect(kept.worst()).toBe(5);
    kept.offer(6);
    expect(kept.worst()).toBe(5);
    expect(kept.items().sort(ascending)).toEqual([1, 4, 5]);
  });

  it("keeps items in the order offered while under its limit, and none at a limit of 0", () => {
    const kept = new BestKept<number>(10, ascending);
    [8, 2, 6].forEach((v) => kept.offer(v));
    expect(kept.items()).toEqual([8, 2, 6]);
    const none = new BestKept<number>(0, ascending);
    none.offer(1);
    expect(none.items()).toEqual([]);
    expect(none.worst()).toBeUndefined();
  });
});
