// The section lane's snippets are read as every other shown section is: through the shown parse and
// the lexical lane's snippet rule, so a table's rows, a code block and a note's properties keep their
// lines; only the part of a note the index holds is read; and a note edited since the index read it
// shows the section the vector named, or nothing, never another section's words under its heading.
import { describe, expect, it } from "vitest";
import { unitSnippets, type UnitSnippetSource } from "../../../src/index/dial/unit-snippets";
import { embeddingUnits, type UnitPlace } from "../../../src/index/embeddings/embedding-units";
import { MAX_NOTE_CHARS } from "../../../src/index/note-limit";
import { parseNoteSafely } from "../../../src/index/parse-note-safely";
import { VaultIndex } from "../../../src/index/vault-index";
import { MemoryNoteStore } from "../../support/memory-note-store";

/** The notes and an index of the given limit to show them (its shown parse needs no sync). */
function source(notes: Record<string, string>, maxNoteChars = MAX_NOTE_CHARS): UnitSnippetSource {
  return { notes: new MemoryNoteStore(notes), index: new VaultIndex({ maxNoteChars }) };
}

/** The places of a note's section units, as the embedding job cuts them from the text it read. */
function sectionUnits(path: string, text: string, maxNoteChars = MAX_NOTE_CHARS): UnitPlace[] {
  return embeddingUnits(parseNoteSafely(path, text.slice(0, maxNoteChars)))
    .filter((u) => u.kind === "section")
    .map(({ text: _sent, ...place }) => place);
}

function unitUnder(path: string, text: string, heading: string): UnitPlace {
  const unit = sectionUnits(path, text).find((u) => u.headingPath.at(-1) === heading);
  if (!unit) throw new Error(`no unit under ${heading}`);
  return unit;
}

const FUEL = "# Fuel\n\n## Prices\n\nWhat each costs:\n\n| fuel | price |\n| --- | --- |\n| diesel | 1.60 |\n| petrol | 1.75 |\n\nRun this:\n\n```sh\nmake fuel\n```\nAfter the code.\n";

describe("unitSnippets", () => {
  it("keeps a table's rows and a code block apart, as the words' search shows them (it was one run of words)", async () => {
    const snippets = await unitSnippets(source({ "Fuel.md": FUEL }), [{ path: "Fuel.md", unit: unitUnder("Fuel.md", FUEL, "Prices") }]);
    expect(snippets).toEqual(["What each costs:\nfuel price\ndiesel 1.60\npetrol 1.75\nRun this:\n`make fuel`\nAfter the code."]);
  });

  it("shows a note of properties only as its property lines, not its prose values alone", async () => {
    const film = "---\ndirector: Ridley Scott\nyear: 1982\n---\n";
    const [unit] = sectionUnits("Film.md", film);
    expect(await unitSnippets(source({ "Film.md": film }), [{ path: "Film.md", unit }])).toEqual(["director: Ridley Scott; year: 1982;"]);
  });

  it("reads no more of a huge note than the index holds", async () => {
    const limit = 200;
    const text = `# Log\n\n${"entry ".repeat(20)}\n\n## Tail\n\nwithin the limit ${"x".repeat(limit)} pastthelimit\n`;
    const [, tail] = sectionUnits("Log.md", text, limit);
    const [snippet] = await unitSnippets(source({ "Log.md": text }, limit), [{ path: "Log.md", unit: tail }]);
    expect(snippet).toMatch(/^within the limit x+$/);
    expect(snippet).not.toContain("pastthelimit");
  });

  it("finds the named section by its heading path in a note edited since, and shows nothing when the section is gone", async () => {
    const before = "# Diary\n\n## Monday\n\nGroceries and bread.\n\n## Tuesday\n\nThe car brakes mended.\n\n## Wednesday\n\nA book about gardens.\n";
    const tuesday = unitUnder("Diary.md", before, "Tuesday");
    const wednesday = unitUnder("Diary.md", before, "Wednesday");
    // Monday was deleted: Wednesday's heading now sits on the line Tuesday's had.
    const edited = source({ "Diary.md": "# Diary\n\n## Tuesday\n\nThe car brakes mended.\n\n## Wednesday\n\nA book about gardens.\n" });
    expect(await unitSnippets(edited, [{ path: "Diary.md", unit: tuesday }])).toEqual(["The car brakes mended."]);
    const withoutWednesday = source({ "Diary.md": "# Diary\n\n## Monday\n\nGroceries and bread.\n\n## Tuesday\n\nThe car brakes mended.\n" });
    expect(await unitSnippets(withoutWednesday, [{ path: "Diary.md", unit: wednesday }])).toEqual([""]);
  });

  it("finds a section whose heading reads otherwise when shown (an entity, a comment, an embed), in a note unchanged (its snippet was empty)", async () => {
    const text = "# Shop\n\n## Q&amp;A <!-- draft -->\n\nAsk about returns.\n\n## Plans %%later%%\n\nOpen on Sundays.\n\n## ![[logo.png]] Brand\n\nA green leaf.\n";
    const wanted = sectionUnits("Shop.md", text).map((unit) => ({ path: "Shop.md", unit }));
    expect(wanted.map((w) => w.unit.headingPath.at(-1))).toEqual(["Q&amp;A", "Plans later", "logo.png Brand"]);
    expect(await unitSnippets(source({ "Shop.md": text }), wanted)).toEqual(["Ask about returns.", "Open on Sundays.", "A green leaf."]);
  });

  it("gives the title, the outline, and nothing for a note it cannot read", async () => {
    const notes = source({ "Fuel.md": FUEL });
    const place = { headingPath: [], line: 1, start: 0, end: 0 };
    const snippets = await unitSnippets(notes, [
      { path: "Fuel.md", unit: { kind: "title", ...place } },
      { path: "Fuel.md", unit: { kind: "headings", ...place } },
      { path: "Gone.md", unit: { kind: "section", ...place } },
    ]);
    expect(snippets).toEqual(["Fuel", "Fuel · Prices", ""]);
  });
});
