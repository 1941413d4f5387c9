import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { FsNoteStore } from "../../src/cli/fs-note-store";
import { scoreJudgeCases, type JudgeCase } from "../../src/eval/judge-eval";
import type { RestingAuditEntry } from "../../src/eval/resting-audit";
import { VaultIndex } from "../../src/index/vault-index";
import { retrieveLocal } from "../../src/research/stages/local-retrieval";
import { DEFAULT_JUDGE } from "../../src/research/stages/judge";
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
    expect(report.enough_resting_on_other_note_cases).toEqual([{ id: "t1", question: QUESTION, deciding_notes: [DECIDING], answering_notes: [otherInPack], audit: "unaudited" }]);
  });
});

describe("the audit of resting enoughs is reported beside them: a note a reader found to answer counts as answering, one it never saw as unaudited", () => {
  const store = new FsNoteStore(path.join(ROOT, "examples/vault"));
  const index = new VaultIndex();
  let otherInPack = "";
  /** Answerable, labelled as answered by another note of the pack: its enough rests on DECIDING, outside `relevant`. */
  const resting = (): JudgeCase => ({ id: "t1", question: QUESTION, answerable: true, relevant: [otherInPack], kind: "paraphrase", corpus: "sample" });
  const entry = (over: Partial<RestingAuditEntry> = {}): RestingAuditEntry => ({
    set: "sample",
    id: "t1",
    deciding_notes: [DECIDING],
    verdict: "answers",
    reason: "says why the team chose one library over the other",
    auditor: "a test",
    date: "2026-12-07",
    ...over,
  });
  const score = (entries: RestingAuditEntry[]) => scoreJudgeCases(index, store, [resting()], 2026, undefined, DEFAULT_JUDGE, { set: "sample", entries });

  beforeAll(async () => {
    await index.sync(store, null);
    const local = await retrieveLocal(planQuestion(QUESTION, { currentYear: 2026 }), index, store);
    otherInPack = local.rows.map((r) => r.note_path).find((p) => p !== DECIDING) ?? "";
  });

  it("an enough resting on a note the audit says answers: counted under answers, and the question is judged enough on an answering note", async () => {
    const report = await score([entry()]);
    expect(report.enough_resting_on_other_note).toBe(1);
    expect(report.enough_resting_on_other_note_by_audit).toEqual({ answers: 1, partial: 0, does_not_answer: 0, unaudited: 0 });
    expect(report.answerable_enough_on_answering_note_by_audit).toBe(1);
    expect(report.by_kind.paraphrase.enough_resting_on_other_note_by_audit.answers).toBe(1);
    expect(report.by_corpus.sample.answerable_enough_on_answering_note_by_audit).toBe(1);
    expect(report.enough_resting_on_other_note_cases.map((c) => c.audit)).toEqual(["answers"]);
  });

  it("audited partial or not answering: counted so, and not an enough on an answering note", async () => {
    const partial = await score([entry({ verdict: "partial" })]);
    expect(partial.enough_resting_on_other_note_by_audit).toEqual({ answers: 0, partial: 1, does_not_answer: 0, unaudited: 0 });
    expect(partial.answerable_enough_on_answering_note_by_audit).toBe(0);
    const wrong = await score([entry({ verdict: "does_not_answer" })]);
    expect(wrong.enough_resting_on_other_note_by_audit.does_not_answer).toBe(1);
    expect(wrong.answerable_enough_on_answering_note_by_audit).toBe(0);
  });

  it("an entry for other deciding notes, another question or another set leaves the case unaudited (a judge that moves to a new note shows up)", async () => {
    for (const other of [entry({ deciding_notes: [otherInPack] }), entry({ deciding_notes: [DECIDING, otherInPack] }), entry({ id: "t2" }), entry({ set: "corpora" })]) {
      const report = await score([other]);
      expect(report.enough_resting_on_other_note_by_audit).toEqual({ answers: 0, partial: 0, does_not_answer: 0, unaudited: 1 });
      expect(report.answerable_enough_on_answering_note_by_audit).toBe(0);
      expect(report.enough_resting_on_other_note_cases.map((c) => c.audit)).toEqual(["unaudited"]);
    }
  });

  it("an enough on a note of `relevant` counts as on an answering note, audit or none", async () => {
    const report = await scoreJudgeCases(index, store, [{ id: "t1", question: QUESTION, answerable: true, relevant: [DECIDING] }], 2026, undefined, DEFAULT_JUDGE, { set: "sample", entries: [] });
    expect(report.answerable_enough_on_answering_note_by_audit).toBe(1);
    expect(report.enough_resting_on_other_note_by_audit).toEqual({ answers: 0, partial: 0, does_not_answer: 0, unaudited: 0 });
  });
});
