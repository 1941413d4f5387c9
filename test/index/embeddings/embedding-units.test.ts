import { describe, expect, it } from "vitest";
import { embeddingUnits, MAX_UNIT_CHARS } from "../../../src/index/embeddings/embedding-units";
import { parseNote } from "../../../src/index/markdown";

describe("what of a note is embedded", () => {
  it("the title with aliases, the outline, and each section with its title and heading path in front (a first heading repeating the title left out)", () => {
    const note = parseNote(
      "Cars/Brakes.md",
      "---\naliases: [Stopping]\n---\nIntro words.\n\n# Brakes\n\n## Pads\n\nReplace the pads every 40k km.\n\n## Empty\n",
    );
    const units = embeddingUnits(note);
    expect(units.map((u) => [u.kind, u.headingPath.join(" > "), u.text])).toEqual([
      ["title", "", "Brakes (also: Stopping)"],
      ["headings", "", "Brakes: Pads · Empty"],
      ["section", "", "Brakes\n\nIntro words."],
      ["section", "Brakes > Pads", "Brakes > Pads\n\nReplace the pads every 40k km."],
    ]);
    const pads = units[3];
    expect(note.sections.find((s) => s.start === pads.start)?.heading).toBe("Pads");
    expect(pads.line).toBe(8);
  });

  it("a note with no text is its title alone, and so is one whose only heading is its title", () => {
    expect(embeddingUnits(parseNote("Empty.md", "")).map((u) => u.kind)).toEqual(["title"]);
    expect(embeddingUnits(parseNote("Plan.md", "# Plan\n")).map((u) => u.kind)).toEqual(["title"]);
  });

  it("cuts a long section to its first part", () => {
    const units = embeddingUnits(parseNote("Long.md", `# Long\n\n${"word ".repeat(2000)}`));
    const section = units.find((u) => u.kind === "section")!;
    expect(section.text.length).toBeLessThanOrEqual(MAX_UNIT_CHARS);
    expect(section.text.endsWith("…")).toBe(true);
  });
});
