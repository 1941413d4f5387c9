// Code in a quoted sentence reaches the brief as the note has it (issue 15): the index keeps an
// inline code span's backticks, so the extractive brief quotes `tar -xf archive.tar` as code, not
// as prose, and nothing inside it is read as a tag or a link. A whole run over an in-memory vault.
import { describe, expect, it } from "vitest";
import { MemoryNoteStore } from "../../support/memory-note-store";
import { sampleVaultHarness } from "../../support/research-harness";

const NOTES = {
  "Tools/tar.md": "# tar cheatsheet\n\n## Extract\n\nTo extract a tar archive run `tar -xf archive.tar #notatag [[nolink]]` in the target folder.\n",
  "Daily/2024-05-01.md": "# Daily note\n\nBought milk and bread.\n",
};

describe("the extractive brief quotes code as the note has it", () => {
  it("keeps the backticks of an inline code span, and reads no tag or link inside it", async () => {
    const h = await sampleVaultHarness({ store: new MemoryNoteStore(NOTES) });
    const result = await h.run({ question: "How do I extract a tar archive?", mode: "never", writeTrace: false });
    expect(result.answer?.kind).toBe("extractive");
    expect(result.answer?.text).toContain("run `tar -xf archive.tar #notatag [[nolink]]` in the target folder");
    const tar = h.index.note("Tools/tar.md")!;
    expect(tar.tags).toEqual([]);
  });
});
