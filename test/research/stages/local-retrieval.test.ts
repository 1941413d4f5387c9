// Local retrieval: the vault rows of a pack, their lanes, and the one bounded second pass a
// question of two parts gets when its best note lacks one part.
import { describe, expect, it } from "vitest";
import { VaultIndex } from "../../../src/index/vault-index";
import { retrieveLocal } from "../../../src/research/stages/local-retrieval";
import { planQuestion } from "../../../src/research/stages/plan";
import { MemoryNoteStore } from "../../support/memory-note-store";

async function vault(notes: Record<string, string>) {
  const store = new MemoryNoteStore(notes);
  const index = new VaultIndex();
  await index.sync(store, null);
  return { store, index };
}

const plan = (q: string) => planQuestion(q, { currentYear: 2026 });

describe("retrieveLocal", () => {
  it("turns the matched notes into vault rows on the full-text lane, with matched and missing words", async () => {
    const { store, index } = await vault({ "tar.md": "# tar\n\nExtract a tar archive with tar -xf.", "other.md": "# Other\n\nNothing here." });
    const local = await retrieveLocal(plan("extract a tar archive on zfs"), index, store);
    expect(local.rows.map((r) => r.note_path)).toEqual(["tar.md"]);
    expect(local.rows[0].retrieval.lanes).toEqual([{ name: "full_text", status: "used" }]);
    expect(local.rows[0].retrieval.missing_terms).toContain("zfs");
  });

  it("searches once more for the part of a two-part question the best note lacks, on the same subject", async () => {
    const notes: Record<string, string> = {
      "Statuses.md": "# Status types\n\nA task can be on hold: ON_HOLD marks a task that waits on someone else.",
      "Dependencies.md": "# Task dependencies\n\nA task can depend on another task: blocked until the first is done. Depend, depend, depend.",
    };
    // Notes that share more of the question's words than the on-hold note, so it is not among the first few.
    for (let i = 0; i < 6; i++) notes[`Planning ${i}.md`] = `# Planning ${i}\n\nPutting a task after another task, making one depend on it.`;
    const { store, index } = await vault(notes);
    const question = plan("how is putting a task on hold different from making it depend on another task?");
    const firstPass = await retrieveLocal(question, index, store, { focusedRetry: false });
    expect(firstPass.rows.slice(0, 4).map((r) => r.note_path)).not.toContain("Statuses.md");
    const local = await retrieveLocal(question, index, store);
    const paths = local.rows.map((r) => r.note_path);
    expect(paths.indexOf("Statuses.md")).toBe(3);
    expect(local.rows[0].retrieval.lanes.map((l) => l.name)).toEqual(["full_text", "focused_retry"]);
  });

  it("asks nothing more for a one-part question, nor when told not to", async () => {
    const { store, index } = await vault({ "a.md": "# Alpha\n\nalpha beta", "b.md": "# Gamma\n\ngamma delta" });
    const one = await retrieveLocal(plan("alpha gamma"), index, store);
    expect(one.rows[0].retrieval.lanes.map((l) => l.name)).toEqual(["full_text"]);
    const off = await retrieveLocal(plan("difference between alpha and gamma"), index, store, { focusedRetry: false });
    expect(off.rows[0].retrieval.lanes.map((l) => l.name)).toEqual(["full_text"]);
  });
});
