import { describe, expect, it } from "vitest";
import { digestOfValue, sameDigest } from "../../src/plugin/part-digest";

async function same(a: unknown, b: unknown): Promise<boolean> {
  return sameDigest(await digestOfValue(a), await digestOfValue(b));
}

/** A segment-like part: rows, terms and postings, big enough to outgrow the writer's first buffer. */
function segmentLike(): Record<string, unknown> {
  const terms = Array.from({ length: 5_000 }, (_, i) => `term${i}`);
  return { format: "segment", first: 0, end: 3, notes: [[0, "A.md", 1.5, 10, "A", [], ["tag"], [], [], [1, 2]]], terms, postings: Uint32Array.from({ length: 40_000 }, (_, i) => i) };
}

describe("the digest of a stored part", () => {
  it("is the same for a part and its copy, as IndexedDB gives it back", async () => {
    const part = segmentLike();
    expect(await same(part, structuredClone(part))).toBe(true);
    // A hole (an array made with a length) and NaN come back as a copy gives them.
    const holey = { a: new Array<number>(3), b: NaN };
    holey.a[0] = 1;
    expect(await same(holey, structuredClone(holey))).toBe(true);
  });

  it("changes when any one value, kind or place changes", async () => {
    const part = segmentLike();
    const flipped = structuredClone(part);
    (flipped.postings as Uint32Array)[39_999] ^= 1;
    expect(await same(part, flipped)).toBe(false);
    const renamed = structuredClone(part);
    (renamed.terms as string[])[4_999] = "term4998";
    expect(await same(part, renamed)).toBe(false);
    expect(await same({ a: 1 }, { a: "1" })).toBe(false);
    expect(await same(["ab", "c"], ["a", "bc"])).toBe(false);
    expect(await same({ a: [1], b: [] }, { a: [], b: [1] })).toBe(false);
    expect(await same(Uint32Array.of(1), Int32Array.of(1))).toBe(false);
    expect(await same([undefined], [null])).toBe(false);
  });

  it("refuses what IndexedDB could not store as plain data rather than hash it as something else", async () => {
    await expect(digestOfValue({ f: () => 1 })).rejects.toThrow(/function/);
    await expect(digestOfValue(new (class Note {})())).rejects.toThrow(/class Note cannot be stored/);
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    await expect(digestOfValue(loop)).rejects.toThrow(/holds itself/);
  });
});
