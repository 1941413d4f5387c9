// The stages' progress sentences count things in words a person reads (the panel, the CLI's
// lines, MCP progress, the trace note's timeline): one of a thing is said in the singular.
// MCP progress for "why automerge" read "1 search terms".
import { describe, expect, it } from "vitest";
import type { ProgressEvent } from "../../src/research/types";
import { MemoryNoteStore } from "../support/memory-note-store";
import { sampleVaultHarness } from "../support/research-harness";

/** The sentence each stage finished with. */
function doneDetails(progress: readonly ProgressEvent[]): Map<string, string> {
  return new Map(progress.filter((e) => e.status === "done" && !e.provider).map((e) => [e.stage, e.detail]));
}

/** One note, so the vault search is of "1 note"; its source is the first page the replayed Brave answer (brave-demo) gives. */
function oneNoteVault(): MemoryNoteStore {
  return new MemoryNoteStore({
    "Automerge.md": "---\nsource: https://github.com/automerge/automerge/releases\n---\n# Automerge\n\nThe team picked Automerge for its full history of changes.\n",
  });
}

describe("progress counts one thing in the singular", () => {
  it("one search term, one note searched, one outside row, one duplicate folded", async () => {
    const h = await sampleVaultHarness({ store: oneNoteVault() });
    // Two pages wanted: the first is the note's own source, folded into it; one outside row is left.
    await h.run({ question: "why automerge", mode: "always", providers: ["brave"], count: 2, readPages: 0 });
    const done = doneDetails(h.progress);

    expect(done.get("plan")).toBe("1 search term");
    expect(done.get("local_retrieval")).toBe("1 of 1 note matched");
    expect(done.get("normalize")).toBe("1 outside row; 1 duplicate folded");
    expect(done.get("prepare_synthesis")).toBe("2 rows admitted");
  });

  it("one row admitted", async () => {
    const h = await sampleVaultHarness({ store: oneNoteVault() });
    await h.run({ question: "why automerge" });

    expect(doneDetails(h.progress).get("prepare_synthesis")).toBe("1 row admitted");
  });

  it("the plural stays for more than one", async () => {
    const h = await sampleVaultHarness();
    await h.run({ question: "Why did the team pick Automerge instead of Yjs for the field app?" });
    const done = doneDetails(h.progress);

    expect(done.get("plan")).toMatch(/^[2-9] search terms$/);
    expect(done.get("local_retrieval")).toMatch(/^\d+ of \d\d+ notes matched/);
  });
});
