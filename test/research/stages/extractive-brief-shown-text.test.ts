// The brief reads a section's text as the index shows it (index/shown-notes.ts, section-hits.ts):
// properties as "name: value;" lines wherever a block of them stands, and snippets that start at a
// whole sentence after "…" on a line of its own, or inside one after "…" glued to the text.
import { describe, expect, it } from "vitest";
import { writeEvidenceBrief } from "../../../src/research/stages/extractive-brief";
import { MemoryNoteStore } from "../../support/memory-note-store";
import { pack, vaultRow } from "../../support/pack-fixtures";
import { sampleVaultHarness } from "../../support/research-harness";

/** The quoted text of each vault line. */
const quotes = (brief: string) => [...brief.matchAll(/“([^”]*)”/g)].map((m) => m[1]);

describe("the extractive brief reads the shown text's blocks", () => {
  it("reads a block of property lines under a heading as properties, never hung on the lead-in above it", () => {
    // logseq-docs' Page embed: a command's Logseq properties under the item that introduces it.
    const embed = vaultRow("pages/page_embed.md", "Page embed", [
      {
        heading: "Usage",
        text: "Create a page embed by typing `{{{embed [[page name]]}}}` or by using the `/Page embed` command:\ntype: Command; name: Page embed; description: Embeds a page with autocompletion ready for the page;\nFor example, embedding page looks like…",
      },
    ]);
    const said = quotes(writeEvidenceBrief(pack("what does a page embed do", [embed])).text);
    expect(said.filter((q) => /command: \S/.test(q) || q.includes(";"))).toEqual([]);
    const described = quotes(writeEvidenceBrief(pack("autocompletion", [embed])).text);
    expect(described).toContain("description: Embeds a page with autocompletion ready for the page");
  });

  it("gives the block after a property block no lead-in, and a property block cut at its end its whole properties", () => {
    const note = vaultRow("pages/query.md", "Query", [
      { heading: "Usage", text: "Write a query like this:\ntype: Command; name: Query; description: Finds blocks by their tags and pro…\nA query table lists the blocks found." },
    ]);
    const said = quotes(writeEvidenceBrief(pack("query table blocks found", [note])).text);
    expect(said).toContain("A query table lists the blocks found.");
    expect(said.filter((q) => q.startsWith("Write a query like this: "))).toEqual([]);
    expect(quotes(writeEvidenceBrief(pack("tags", [note])).text)).toEqual(["description: Finds blocks by their tags and pro…"]);
  });

  it("still reads words of prose with a colon and a semicolon under a heading as prose", () => {
    const prose = vaultRow("n.md", "Notes", [{ heading: "Setup", text: "Note: the lua runtime starts first; then plugins load." }]);
    expect(quotes(writeEvidenceBrief(pack("lua runtime plugins", [prose])).text)).toEqual(["Note: the lua runtime starts first; then plugins load."]);
  });

  it("quotes the whole sentence a snippet starts at ('…' on its own line), and refuses one it cut ('…' glued)", () => {
    const whole = vaultRow("pan.md", "Pans", [{ heading: "Pans", text: "…\nYou should never put a seasoned skillet into the dishwasher. Dry it on the stove." }]);
    expect(quotes(writeEvidenceBrief(pack("skillet dishwasher", [whole])).text)).toContain("You should never put a seasoned skillet into the dishwasher.");
    const cut = vaultRow("pan.md", "Pans", [{ heading: "Pans", text: "…put a seasoned skillet into the dishwasher. Dry the skillet on the stove." }]);
    expect(quotes(writeEvidenceBrief(pack("skillet dishwasher", [cut])).text)).toEqual(["Dry the skillet on the stove."]);
  });

  it("splits sentences where the snippet starts one: after a stop inside quotation marks", () => {
    const note = vaultRow("q.md", "Quotes", [{ heading: "Q", text: 'The sign said "Keep out." Dogs bark at the gate every night.' }]);
    expect(quotes(writeEvidenceBrief(pack("dogs bark gate night", [note])).text)).toEqual(["Dogs bark at the gate every night."]);
  });

  it("quotes a whole sentence of a real snippet that starts after the note's opening", async () => {
    const filler = "Cast iron pans last for generations when they are cared for. ".repeat(4);
    const h = await sampleVaultHarness({
      store: new MemoryNoteStore({ "Kitchen/Pans.md": `# Pans\n\n${filler}You should never put a seasoned skillet into the dishwasher.\n` }),
    });
    const result = await h.run({ question: "skillet dishwasher", mode: "never", writeTrace: false });
    expect(quotes(result.answer!.text)).toContain("You should never put a seasoned skillet into the dishwasher.");
  });
});
