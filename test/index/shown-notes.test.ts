// The parse cache of recently shown notes: a parse is reused only for the very same text, and the
// cache stays within its character budget by dropping the least recently shown.
import { describe, expect, it } from "vitest";
import { ShownNotes } from "../../src/index/shown-notes";

describe("ShownNotes", () => {
  it("reuses a parse while the text is unchanged and parses again when it changed", () => {
    const shown = new ShownNotes();
    const first = shown.parse("a.md", "# Garden\n\ncompost\n");
    expect(shown.parse("a.md", "# Garden\n\ncompost\n")).toBe(first);
    const changed = shown.parse("a.md", "# Garden\n\nseeds\n");
    expect(changed).not.toBe(first);
    expect(changed.sections.map((s) => s.text).join(" ")).toContain("seeds");
  });

  it("drops the least recently shown notes beyond its budget, never the one just shown", () => {
    const shown = new ShownNotes(25);
    shown.parse("a.md", "a".repeat(10));
    shown.parse("b.md", "b".repeat(10));
    shown.parse("a.md", "a".repeat(10)); // shown again: now the newest
    shown.parse("c.md", "c".repeat(10));
    expect(shown.paths()).toEqual(["a.md", "c.md"]);
    shown.parse("huge.md", "h".repeat(100));
    expect(shown.paths()).toEqual(["huge.md"]);
  });

  it("counts a changed note as just shown", () => {
    const shown = new ShownNotes(25);
    shown.parse("a.md", "a".repeat(10));
    shown.parse("b.md", "b".repeat(10));
    shown.parse("a.md", "A".repeat(10));
    shown.parse("c.md", "c".repeat(10));
    expect(shown.paths()).toEqual(["a.md", "c.md"]);
  });
});
