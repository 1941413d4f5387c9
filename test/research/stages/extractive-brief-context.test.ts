// A quote must not say what the note does not: not a sentence whose start (a "never") the snippet's
// window cut off, nor a list item without the lead-in it hangs on ("These are myths:").
import { describe, expect, it } from "vitest";
import { writeEvidenceBrief } from "../../../src/research/stages/extractive-brief";
import { MemoryNoteStore } from "../../support/memory-note-store";
import { outsideRow, pack, vaultRow } from "../../support/pack-fixtures";
import { sampleVaultHarness } from "../../support/research-harness";

const NOTES = {
  "Kitchen/Cast iron care.md": [
    "# Cast iron care",
    "",
    "Over the years I have learned a great deal about pans, pots and all kinds of cookware from my grandmother. Whatever the label on the box promises, you should never, under any circumstances whatsoever, put a seasoned cast iron skillet into the dishwasher.",
    "",
    "A cast iron skillet needs a thin coat of oil after washing.",
    "",
  ].join("\n"),
  "Health/Cold remedies.md": [
    "# Cold remedies",
    "",
    "These are myths that do not work:",
    "- garlic cures colds",
    "- vitamin C prevents colds",
    "",
    "Rest and fluids help with colds.",
    "",
  ].join("\n"),
};

async function quotesFor(question: string): Promise<string[]> {
  const h = await sampleVaultHarness({ store: new MemoryNoteStore(NOTES) });
  const result = await h.run({ question, mode: "never", writeTrace: false });
  expect(result.answer?.kind).toBe("extractive");
  return [...result.answer!.text.matchAll(/“([^”]*)”/g)].map((m) => m[1]);
}

describe("the extractive brief quotes what the note says", () => {
  it("does not quote a sentence the snippet's window cut at its start: the 'never' was in the cut", async () => {
    const said = await quotesFor("cast iron skillet dishwasher");
    expect(said).toContain("A cast iron skillet needs a thin coat of oil after washing.");
    for (const q of said.filter((q) => q.includes("dishwasher"))) expect(q).toContain("never");
  });

  it("quotes a list item with the lead-in it hangs on", async () => {
    const said = await quotesFor("do garlic or vitamin C cure colds");
    expect(said).toContain("These are myths that do not work: garlic cures colds");
    expect(said).toContain("These are myths that do not work: … vitamin C prevents colds");
    expect(said.filter((q) => /^(garlic|vitamin)/.test(q))).toEqual([]);
  });

  it("gives a marked item its lead-in whatever it ends with, and a paragraph after the list none", () => {
    const note = vaultRow("flu.md", "Flu remedies", [
      { heading: "Remedies", text: "Things that are false:\n- Echinacea cures the flu.\n- Zinc prevents the flu.\nFlu shots help against the flu." },
    ]);
    const text = writeEvidenceBrief(pack("echinacea zinc flu shots", [note]), { maxVaultSentences: 5 }).text;
    expect(text).toContain("“Things that are false: Echinacea cures the flu.”");
    expect(text).toContain("“Things that are false: … Zinc prevents the flu.”");
    expect(text).not.toMatch(/“[^”]*false[^”]*Flu shots/);
  });

  it("hangs no lead-in on another (tldr's items follow each other), nor on a block the snippet cut at its end", () => {
    const page = vaultRow("tar.md", "tar", [
      {
        heading: "tar",
        text: "List the contents of a tar file verbosely:\n`tar tvf path/to/file.tar`\nExtract files matching a pattern from an archive file:\n`tar xf path/to/file.tar`\nStart an archive of a folder, which allows the files to be…",
      },
    ]);
    const text = writeEvidenceBrief(pack("tar file archive extract folder", [page]), { maxVaultSentences: 5 }).text;
    expect(text).toContain("“Extract files matching a pattern from an archive file:”");
    expect(text).toContain("“Start an archive of a folder, which allows the files to be…”");
    expect(text).not.toContain("verbosely: …");
  });

  it("quotes struck-out text as struck out, where a sentence ends or begins inside it too", async () => {
    const h = await sampleVaultHarness({
      store: new MemoryNoteStore({
        "Kitchen/Kettle.md": "# Kettle\n\n~~Vinegar descales the kettle well. It is cheap.~~ Citric acid descales the kettle without the smell.\n",
      }),
    });
    const result = await h.run({ question: "descale the kettle vinegar cheap", mode: "never", writeTrace: false });
    const said = [...result.answer!.text.matchAll(/“([^”]*)”/g)].map((m) => m[1]);
    expect(said).toEqual(["~~Vinegar descales the kettle well.~~", "~~It is cheap.~~ Citric acid descales the kettle without the smell."]);
    const long = vaultRow("k.md", "Kettle", [{ heading: "Kettle", text: `~~Vinegar descales the kettle ${"very ".repeat(70)}well.~~` }]);
    expect(writeEvidenceBrief(pack("vinegar kettle", [long])).text).toMatch(/“~~Vinegar descales the kettle (very )+very~~…”/);
  });

  it("still quotes the rest of a cut block, a block cut at its end, and an outside row's cut text", () => {
    const note = vaultRow("pan.md", "Pans", [
      { heading: "Pans", text: "…put the skillet in the dishwasher. Dry the skillet on the stove right after the dishwasher cycle…" },
    ]);
    const web = outsideRow("brave", "https://example.org/pans", "Pan care", "…soak the skillet in the dishwasher overnight, some say.");
    const text = writeEvidenceBrief(pack("skillet dishwasher", [note], [web])).text;
    expect(text).not.toContain("put the skillet in the dishwasher");
    expect(text).toContain("“Dry the skillet on the stove right after the dishwasher cycle…”");
    expect(text).toContain("“…soak the skillet in the dishwasher overnight, some say.”");
  });

  it("ends no sentence at the dot of an abbreviation or an initial", () => {
    const rows = [
      vaultRow("a.md", "Queries", [{ heading: "Query", text: "You can query your notes with a plugin, e.g. Dataview, which reads front matter fields." }]),
      vaultRow("b.md", "Books", [{ heading: "Books", text: "The trilogy by J. R. R. Tolkien is long. Dr. Smith recommended reading it aloud." }]),
      vaultRow("c.md", "CRDTs", [{ heading: "CRDT", text: "We compared Automerge vs. Yjs for offline sync. Open config.json. Then set the sync server." }]),
    ];
    const quoted = (q: string, row: number) => [...writeEvidenceBrief(pack(q, [rows[row]])).text.matchAll(/“([^”]*)”/g)].map((m) => m[1]);
    expect(quoted("query notes dataview front matter", 0)).toEqual(["You can query your notes with a plugin, e.g. Dataview, which reads front matter fields."]);
    expect(quoted("tolkien trilogy reading aloud", 1)).toEqual(["The trilogy by J. R. R. Tolkien is long.", "Dr. Smith recommended reading it aloud."]);
    // A file's name before the dot ends its sentence as any word does.
    expect(quoted("automerge yjs offline sync server", 2)).toEqual(["We compared Automerge vs. Yjs for offline sync.", "Then set the sync server."]);
  });
});
