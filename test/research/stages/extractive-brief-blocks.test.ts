// The brief quotes sentences, never a code block run into the prose after it, a table's rows run
// into one line, or an example inside a code block. The index keeps where a shown note's blocks end
// (index/shown-notes.ts, section-hits.ts) and the brief quotes within one block. Whole runs over an
// in-memory vault.
import { describe, expect, it } from "vitest";
import { writeEvidenceBrief } from "../../../src/research/stages/extractive-brief";
import { MemoryNoteStore } from "../../support/memory-note-store";
import { pack, vaultRow } from "../../support/pack-fixtures";
import { sampleVaultHarness } from "../../support/research-harness";

const NOTES = {
  "Projects/Sync relay server.md": [
    "# Sync relay server",
    "",
    "## Running it",
    "```bash",
    "RELAY_DATA_DIR=/var/lib/relay RELAY_PORT=8787 node dist/relay.js",
    "```",
    "",
    "Design review: [[Sync design review]]. #sync",
    "",
  ].join("\n"),
  "Libraries/Automerge vs Yjs.md": [
    "# Automerge vs Yjs",
    "",
    "Written while choosing a CRDT for the app.",
    "",
    "| Question | Automerge | Yjs |",
    "|---|---|---|",
    "| Data model | JSON-like document | Shared types inside a Y.Doc |",
    "| Sync | Built-in protocol | Providers |",
    "",
  ].join("\n"),
  "Topics/Note reference.md": [
    "# Note reference",
    "",
    "A note reference includes the contents of another note in this one.",
    "",
    "```md",
    "The note reference below is an example:",
    "![[topic.note-reference.sample]]",
    "```",
    "",
  ].join("\n"),
};

async function briefFor(question: string): Promise<string> {
  const h = await sampleVaultHarness({ store: new MemoryNoteStore(NOTES) });
  const result = await h.run({ question, mode: "never", writeTrace: false });
  expect(result.answer?.kind).toBe("extractive");
  return result.answer!.text;
}

/** The quoted text of each vault line. */
const quotes = (brief: string) => [...brief.matchAll(/“([^”]*)”/g)].map((m) => m[1]);

describe("the extractive brief quotes within one block", () => {
  it("does not glue a code block to the sentence after it", async () => {
    const said = quotes(await briefFor("how do I run the sync relay"));
    expect(said.some((q) => q.includes("Design review"))).toBe(true);
    expect(said.filter((q) => q.includes("RELAY_PORT"))).toEqual([]);
  });

  it("quotes a table row, not a run of rows", async () => {
    const said = quotes(await briefFor("automerge yjs data model"));
    expect(said.length).toBeGreaterThan(0);
    for (const q of said) expect(q).not.toMatch(/Yjs Data model|Y\.Doc Sync/);
  });

  it("does not quote an example inside a code block", async () => {
    const said = quotes(await briefFor("what is a note reference"));
    expect(said).toContain("A note reference includes the contents of another note in this one.");
    expect(said.filter((q) => q.includes("example") || q.includes("note-reference.sample"))).toEqual([]);
  });

  it("reads a code block as code where the snippet's window cut it, at either end or before it", () => {
    const texts = [
      "…`filter by function task.due.moment is the due date of the task`\nLike a due date that is invalid.",
      "…due.moment; return date ? date.isValid() : false due date task`\nLike a due date that is invalid.",
      "`filter by function const date = task.due.moment due date task…",
    ];
    for (const text of texts) {
      const row = vaultRow("Queries/Custom filters.md", "Custom filters", [{ heading: "Due dates", text }]);
      const said = quotes(writeEvidenceBrief(pack("filter tasks by due date", [row])).text);
      expect(said.filter((q) => q.includes("task.due"))).toEqual([]);
    }
  });

  it("still quotes a sentence that holds code spans of its own", () => {
    const row = vaultRow("Tools/tar.md", "tar", [{ heading: "Extract", text: "`tar -xf` extracts an archive into `.` by default." }]);
    expect(quotes(writeEvidenceBrief(pack("extract a tar archive", [row])).text)).toEqual(["`tar -xf` extracts an archive into `.` by default."]);
  });
});
