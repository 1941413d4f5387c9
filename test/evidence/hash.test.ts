import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { fnv1a64Hex, shortHash } from "../../src/evidence/hash";

describe("fnv1a64Hex", () => {
  // Published FNV-1a 64-bit test vectors: if these move, every stored key in every vault breaks.
  it.each([
    ["", "cbf29ce484222325"],
    ["a", "af63dc4c8601ec8c"],
    ["foobar", "85944171f73967e8"],
  ])("matches the published FNV-1a 64 vector for %j", (input, expected) => {
    expect(fnv1a64Hex(input)).toBe(expected);
  });

  it("hashes the UTF-8 bytes, so composed and decomposed accents differ", () => {
    expect(fnv1a64Hex("é")).not.toBe(fnv1a64Hex("e\u0301"));
  });

  it("always gives 16 lower-case hex digits and the same answer twice", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), (text) => {
        const first = fnv1a64Hex(text);
        expect(first).toMatch(/^[0-9a-f]{16}$/);
        expect(fnv1a64Hex(text)).toBe(first);
      }),
    );
  });
});

describe("shortHash", () => {
  it("is the prefix of the full hash, of the requested length", () => {
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 1, max: 16 }), (text, length) => {
        const short = shortHash(text, length);
        expect(short).toHaveLength(length);
        expect(fnv1a64Hex(text).startsWith(short)).toBe(true);
      }),
    );
  });

  it("spreads distinct inputs: no collisions among 5000 similar paths", () => {
    const hashes = new Set(Array.from({ length: 5000 }, (_, i) => shortHash(`Notes/Daily/2024-01-${i}.md`)));
    expect(hashes.size).toBe(5000);
  });

  it("refuses lengths outside 1–16", () => {
    expect(() => shortHash("x", 0)).toThrow(RangeError);
    expect(() => shortHash("x", 17)).toThrow(RangeError);
  });
});
