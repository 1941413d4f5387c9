// The 32-bit string hash: FNV-1a's published test values (ASCII, where UTF-16 code units are the
// bytes), unsigned results, and a finaliser that spreads neighbouring numbers apart.
import { describe, expect, it } from "vitest";
import { fnv1a32, mix32 } from "../../src/text/string-hash";

describe("fnv1a32", () => {
  it("gives FNV-1a's published 32-bit values", () => {
    expect(fnv1a32("")).toBe(0x811c9dc5);
    expect(fnv1a32("a")).toBe(0xe40c292c);
    expect(fnv1a32("foobar")).toBe(0xbf9cf968);
  });

  it("is unsigned, starts where asked, and reads every code unit", () => {
    for (const text of ["x", "path/to/note.md", "日本語", "\u{1F600}"]) {
      const hash = fnv1a32(text);
      expect(Number.isInteger(hash) && hash >= 0 && hash < 2 ** 32).toBe(true);
      expect(fnv1a32(text, 0x01234567)).not.toBe(hash);
    }
    expect(fnv1a32("ab")).not.toBe(fnv1a32("ba"));
  });
});

describe("mix32", () => {
  it("keeps 0, is unsigned, and sends neighbouring numbers far apart", () => {
    expect(mix32(0)).toBe(0);
    const mixed = Array.from({ length: 256 }, (_, i) => mix32(i + 1));
    expect(new Set(mixed).size).toBe(256);
    for (const m of mixed) expect(m >= 0 && m < 2 ** 32).toBe(true);
    // Neighbours differ in about half their 32 bits.
    let bits = 0;
    for (let i = 1; i < mixed.length; i++) bits += (mixed[i] ^ mixed[i - 1]).toString(2).replace(/0/g, "").length;
    expect(bits / (mixed.length - 1)).toBeGreaterThan(12);
    expect(bits / (mixed.length - 1)).toBeLessThan(20);
  });
});
