// The parse cache of recently shown notes: a parse is reused only for the very same text, and the
// cache stays within its character budget by dropping the least recently shown.
import { describe, expect, it } from "vitest";
import { ShownNotes } from "../../src/index/shown-notes";

const sectionText = (note: string, heading: string) => new ShownNotes().parse("n.md", note).sections.find((s) => s.heading === heading)!.text;

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

  it("keeps where a shown note's blocks end: a blank line between them, a wrapped paragraph's lines together", () => {
    const note = ["# Relay", "", "## Running it", "The server that forwards", "and stores changes.", "", "1. Accept connections.", "2. Forward messages.", "", "| Question | Automerge |", "|---|---|", "| Data model | JSON |", "> Quoted words.", "Design review."].join("\n");
    expect(sectionText(note, "Running it")).toBe(
      "The server that forwards\nand stores changes.\n\nAccept connections.\n\nForward messages.\n\nQuestion   Automerge\n\nData model   JSON\n\nQuoted words.\nDesign review.",
    );
  });

  it("shows a fenced code block as one code span, apart from the prose around it", () => {
    const note = ["# Relay", "", "## Running it", "```bash", "RELAY_PORT=8787 node dist/relay.js", "echo `date`", "```", "Design review. #sync"].join("\n");
    expect(sectionText(note, "Running it")).toBe("`` RELAY_PORT=8787 node dist/relay.js\necho `date` ``\n\nDesign review. sync");
  });
});
