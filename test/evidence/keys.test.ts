import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { isSourceKey, noteSourceKey, outsideSourceKey, parseSourceKey } from "../../src/evidence/keys";
import { fnv1a64Hex } from "../../src/evidence/hash";

describe("source keys", () => {
  it("names a note by src: and the first 10 hex digits of its path's hash", () => {
    expect(noteSourceKey("foobar")).toBe(`src:${fnv1a64Hex("foobar").slice(0, 10)}`);
    expect(noteSourceKey("Projects/Plan.md")).toMatch(/^src:[0-9a-f]{10}$/);
  });

  it("gives the same key to a path whether its accents are composed or decomposed", () => {
    expect(noteSourceKey("Notes/Caf\u00e9.md")).toBe(noteSourceKey("Notes/Cafe\u0301.md"));
  });

  it("gives two files whose names differ only in composition two keys, keeping the composed one's", () => {
    const composed = "Notes/Caf\u00e9.md";
    const decomposed = "Notes/Cafe\u0301.md";
    const vault = [decomposed, "Home.md", composed];
    expect(noteSourceKey(composed, vault)).toBe(noteSourceKey(composed));
    expect(noteSourceKey(decomposed, vault)).not.toBe(noteSourceKey(composed, vault));
    // Alone in its vault (a Mac's), the decomposed spelling keeps the key it always had.
    expect(noteSourceKey(decomposed, [decomposed, "Home.md"])).toBe(noteSourceKey(composed));
  });

  it("never gives two distinct paths of one vault the same key, however their names are spelled", () => {
    const spellings = fc.array(fc.constantFrom("e\u0301", "\u00e9", "a\u0301\u0323", "a\u0323\u0301", "\u1ea1\u0301", "x", "/"), { minLength: 1, maxLength: 4 }).map((parts) => `${parts.join("")}.md`);
    fc.assert(
      fc.property(fc.uniqueArray(spellings, { maxLength: 6 }), (paths) => {
        const keys = paths.map((p) => noteSourceKey(p, paths));
        expect(new Set(keys).size).toBe(paths.length);
      }),
    );
  });

  it("names an outside result by provider and the hash of its canonical URL", () => {
    const key = outsideSourceKey("brave", "https://example.com/a");
    expect(key).toBe(`ext:brave:${fnv1a64Hex("https://example.com/a").slice(0, 10)}`);
    expect(outsideSourceKey("brave-web", "https://example.com/a")).toMatch(/^ext:brave-web:[0-9a-f]{10}$/);
  });

  it("refuses provider names that would make the key ambiguous", () => {
    expect(() => outsideSourceKey("Brave", "https://x.org")).toThrow(/Provider name/);
    expect(() => outsideSourceKey("a:b", "https://x.org")).toThrow(/Provider name/);
  });

  it("parses what it makes, for any path or URL", () => {
    fc.assert(
      fc.property(fc.string(), fc.constantFrom("brave", "brave-web", "exa"), (text, provider) => {
        const note = noteSourceKey(text);
        const outside = outsideSourceKey(provider, text);
        expect(isSourceKey(note) && isSourceKey(outside)).toBe(true);
        expect(parseSourceKey(note)).toEqual({ origin: "vault", hash: note.slice(4) });
        expect(parseSourceKey(outside)).toEqual({ origin: "outside_vault", provider, hash: outside.slice(-10) });
      }),
    );
  });

  it.each(["src:12345", "src:0123456789a", "SRC:0123456789", "ext:0123456789", "ext:brave:xyz0123456", "src:0123456789 ", "note:0123456789"])(
    "rejects the malformed key %j",
    (text) => {
      expect(isSourceKey(text)).toBe(false);
      expect(parseSourceKey(text)).toBeNull();
    },
  );
});
