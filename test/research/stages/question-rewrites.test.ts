// The model's local-only rewrites of a question: what a model sends is taken as far as it is
// usable, never refused for sending more than was asked.
import { describe, expect, it } from "vitest";
import { VaultIndex } from "../../../src/index/vault-index";
import { rewriteForLocalSearch } from "../../../src/research/stages/question-rewrites";
import { planQuestion } from "../../../src/research/stages/plan";
import { fakeClock } from "../../support/fake-clock";
import { MemoryNoteStore } from "../../support/memory-note-store";
import { scriptedModel } from "../../support/scripted-model";

async function vault(notes: Record<string, string>) {
  const store = new MemoryNoteStore(notes);
  const index = new VaultIndex();
  await index.sync(store, null);
  return { store, index };
}

describe("rewriteForLocalSearch", () => {
  it("takes the first three usable rewrites of a model that sends more than it was asked for (eleven)", async () => {
    const { store, index } = await vault({ "Backups.md": "# Backups\n\nThe laptop is backed up every night to the NAS with restic.\n" });
    const eleven = ["restic nightly backup", "nas backup", "laptop backup", ...Array.from({ length: 8 }, (_, i) => `backup ${i}`)];
    const model = scriptedModel([JSON.stringify({ rewrites: eleven })]);
    const question = "Where does the laptop's copy go?";
    const outcome = await rewriteForLocalSearch(question, planQuestion(question, { currentYear: 2026 }), [], { model, index, store, clock: fakeClock(), ms: 10_000 });
    expect(outcome).toMatchObject({ kind: "rewritten", rewrites: eleven.slice(0, 3) });
  });
});
