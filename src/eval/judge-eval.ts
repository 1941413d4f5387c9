// Scoring the evidence judge against labelled questions: the share of answerable questions it
// judges `enough_evidence`, and of unanswerable ones it judges weak or none (hard negatives — those
// that share the vault's keywords — counted separately). Used by `npm run eval:judge` and tests.
import type { VaultIndex } from "../index/vault-index";
import type { NoteStore } from "../ports";
import { judgeEvidence, type JudgeFigures } from "../research/stages/judge";
import { retrieveLocal } from "../research/stages/local-retrieval";
import { planQuestion } from "../research/stages/plan";

export interface JudgeCase {
  id?: string;
  question: string;
  answerable: boolean;
  /** "hard_negative" or "out_of_domain" for unanswerable questions. */
  kind?: string;
}

export interface JudgeEvalReport {
  cases: number;
  answerable_judged_enough: number | null;
  unanswerable_judged_weak_or_none: number | null;
  hard_negatives_judged_weak_or_none: number | null;
  misses: { id?: string; question: string; answerable: boolean; verdict: string; figures: JudgeFigures }[];
}

/** `currentYear` pins "this year" so a set plans the same way on every day. */
export async function scoreJudgeCases(index: VaultIndex, store: NoteStore, cases: JudgeCase[], currentYear = 2026): Promise<JudgeEvalReport> {
  const tally = { answerable: 0, enough: 0, unanswerable: 0, weakOrNone: 0, hard: 0, hardOk: 0 };
  const misses: JudgeEvalReport["misses"] = [];
  for (const c of cases) {
    const plan = planQuestion(c.question, { currentYear });
    const local = await retrieveLocal(plan, index, store);
    const verdict = judgeEvidence(plan, local.results);
    const enough = verdict.verdict === "enough_evidence";
    if (c.answerable) {
      tally.answerable++;
      if (enough) tally.enough++;
    } else {
      tally.unanswerable++;
      if (!enough) tally.weakOrNone++;
      if (c.kind === "hard_negative") {
        tally.hard++;
        if (!enough) tally.hardOk++;
      }
    }
    if (enough !== c.answerable) misses.push({ id: c.id, question: c.question, answerable: c.answerable, verdict: verdict.verdict, figures: verdict.figures });
  }
  const share = (a: number, b: number) => (b === 0 ? null : Math.round((a / b) * 1000) / 1000);
  return {
    cases: cases.length,
    answerable_judged_enough: share(tally.enough, tally.answerable),
    unanswerable_judged_weak_or_none: share(tally.weakOrNone, tally.unanswerable),
    hard_negatives_judged_weak_or_none: share(tally.hardOk, tally.hard),
    misses,
  };
}
