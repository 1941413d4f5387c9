import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { FsNoteStore } from "../../src/cli/fs-note-store";
import { scoreJudgeCases, type JudgeCase } from "../../src/eval/judge-eval";
import { VaultIndex } from "../../src/index/vault-index";
import { retrieveLocal } from "../../src/research/stages/local-retrieval";
import { planQuestion } from "../../src/research/stages/plan";

const ROOT = path.resolve(__dirname, "../..");
const QUESTION = "Why did the team pick Automerge instead of Yjs for the field app?";
const DECIDING = "Libraries/Automerge vs Yjs.md";

describe("an enough that rests on a note that does not answer is counted, even with an answering note elsewhere in the pack", () => {
  const store = new FsNoteStore(path.join(ROOT, "examples/vault"));
  const index = new VaultIndex();
  /** Another note of the question's pack, not the one the verdict rests on. */
  let otherInPack = "";

  beforeAll(async () => {
    await index.sync(store, null);
    const local = await retrieveLocal(planQuestion(QUESTION, { currentYear: 2026 }), index, store);
    otherInPack = local.rows.map((r) => r.note_path).find((p) => p !== DECIDING) ?? "";
  });

  it("the question is judged enough on its note, with another note beside it in the pack", async () => {
    const report = await scoreJudgeCases(index, store, [{ question: QUESTION, answerable: true, relevant: [DECIDING] }]);
    expect(report.answerable_judged_enough).toBe(1);
    expect(report.enough_resting_on_other_note).toBe(0);
    expect(report.enough_resting_on_other_note_cases).toEqual([]);
    expect(otherInPack).not.toBe("");
  });

  it("labelled as answered by the other note, the enough rests on a note that does not answer: counted and listed, overall, per kind and per corpus", async () => {
    const c: JudgeCase = { id: "t1", question: QUESTION, answerable: true, relevant: [otherInPack], kind: "paraphrase", corpus: "sample" };
    const report = await scoreJudgeCases(index, store, [c]);
    // The answering note reached the pack, so the older figure cannot see it.
    expect(report.enough_without_answering_note).toBe(0);
    expect(report.enough_resting_on_other_note).toBe(1);
    expect(report.by_kind.paraphrase.enough_resting_on_other_note).toBe(1);
    expect(report.by_corpus.sample.enough_resting_on_other_note).toBe(1);
    expect(report.enough_resting_on_other_note_cases).toEqual([{ id: "t1", question: QUESTION, deciding_notes: [DECIDING], answering_notes: [otherInPack] }]);
  });
});
