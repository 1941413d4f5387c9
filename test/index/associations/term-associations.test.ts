import { describe, expect, it } from "vitest";
import { notePassages } from "../../../src/index/associations/passages";
import { TermAssociations, type AssociationLimits } from "../../../src/index/associations/term-associations";
import { createAnalyzer } from "../../../src/index/tokenize";

const loose: AssociationLimits = { perWord: 5, minTogether: 2, minStrength: 0.1, maxNotes: 100, maxAssociateShare: 0.9 };

/** A model over notes given as passages of words. */
function model(notes: Record<string, string[][]>): TermAssociations {
  const m = new TermAssociations();
  for (const [path, passages] of Object.entries(notes)) m.setNote(path, passages);
  return m;
}

describe("TermAssociations", () => {
  it("finds the words a vault uses with a word, strongest first, with how often they met", () => {
    const m = model({
      "a.md": [["uncommitted", "unstaged", "changes"]],
      "b.md": [["uncommitted", "unstaged", "stash"]],
      "c.md": [["uncommitted", "changes"], ["unrelated", "words"]],
      "d.md": [["stash", "list"]],
    });
    const found = m.associatesOf("uncommitted", loose);
    expect(found.map((a) => a.term)).toEqual(["changes", "unstaged"]);
    expect(found[0].together).toBe(2);
    expect(found[0].strength).toBeCloseTo(2 / Math.sqrt(3 * 2), 5);
  });

  it("counts words as together only within one passage, not anywhere in a long note", () => {
    const m = model({ "log.md": [["alpha", "beta"], ["gamma", "delta"]], "log2.md": [["alpha", "beta"], ["gamma", "delta"]] });
    expect(m.associatesOf("alpha", loose).map((a) => a.term)).toEqual(["beta"]);
  });

  it("forgets a removed note exactly, and a replaced note's old words", () => {
    const m = model({ "a.md": [["tar", "archive"]], "b.md": [["tar", "archive"]] });
    expect(m.associatesOf("tar", loose).map((a) => a.term)).toEqual(["archive"]);
    m.removeNote("b.md");
    expect(m.associatesOf("tar", loose)).toEqual([]);
    m.setNote("b.md", [["tar", "archive"]]);
    m.setNote("a.md", [["tar", "gzip"]]);
    expect(m.passagesWith("archive")).toBe(1);
    expect(m.passagesWith("gzip")).toBe(1);
  });

  it("leaves out numbers, single letters and stop words, and words too rare or too common to mean much", () => {
    const m = model({ "a.md": [["zfs", "2024", "x", "the", "pool"]], "b.md": [["zfs", "2024", "x", "the", "pool"]] });
    expect(m.associatesOf("zfs", loose).map((a) => a.term)).toEqual(["pool"]);
    expect(m.associatesOf("zfs", { ...loose, minTogether: 3 })).toEqual([]);
    expect(m.associatesOf("zfs", { ...loose, maxNotes: 1 })).toEqual([]);
  });
});

describe("notePassages", () => {
  const analyzer = createAnalyzer({ stemming: false });
  it("puts the note's name with its opening, each run of words with its heading, and drops web addresses", () => {
    const passages = notePassages(
      {
        title: "Backups",
        aliases: [],
        tags: ["ops"],
        sections: [
          { heading: "", level: 0, headingPath: [], start: 0, end: 1, text: "restic snapshots nightly", line: 1 },
          { heading: "Restore", level: 2, headingPath: ["Restore"], start: 1, end: 2, text: "mount the snapshot https://restic.net/docs/restore", line: 3 },
        ],
      },
      analyzer,
      30,
    );
    expect(passages).toEqual([["backups", "ops", "restic", "snapshots", "nightly"], ["restore", "mount", "the", "snapshot"]]);
  });

  const section = (heading: string, text: string) => ({ heading, level: heading ? 2 : 0, headingPath: heading ? [heading] : [], start: 0, end: 1, text, line: 1 });
  const numbered = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}${i}`);

  it("reads a heading longer than a passage once, as its section's first words, not in every passage", () => {
    // A long line over "---" is a heading to markdown: 40 words of it over 90 words of text.
    const heading = numbered("h", 40);
    const text = numbered("w", 90);
    const passages = notePassages({ title: "Log", aliases: [], tags: [], sections: [section(heading.join(" "), text.join(" "))] }, analyzer, 30);
    expect(passages.flat()).toEqual(["log", ...heading, ...text]);
    expect(Math.max(...passages.map((p) => p.length))).toBe(31);
    // A heading of a passage's length still names every run under it.
    const named = notePassages({ title: "Log", aliases: [], tags: [], sections: [section(heading.slice(0, 30).join(" "), text.join(" "))] }, analyzer, 30);
    expect(named.every((p) => p.includes("h29"))).toBe(true);
  });

  it("makes a name longer than a passage (scores of tags) passages of its own", () => {
    const tags = numbered("t", 70);
    const passages = notePassages({ title: "Tagged", aliases: [], tags, sections: [section("", "restic snapshots nightly")] }, analyzer, 30);
    expect(passages.flat()).toEqual(["tagged", ...tags, "restic", "snapshots", "nightly"]);
    expect(passages.map((p) => p.length)).toEqual([30, 30, 11, 3]);
  });
});
