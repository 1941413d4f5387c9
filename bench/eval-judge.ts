// `npm run eval:judge`: how well the evidence judge tells a vault that answers a question from one
// that merely shares its keywords. Figures: share of answerable questions judged
// `enough_evidence`, share of unanswerable ones judged weak or none (hard negatives separately).
// --misses lists every wrong verdict with the judge's figures.
import { judgeEvidence } from "../src/core/judge";
import { retrieveLocal } from "../src/core/local-retrieval";
import { planQuestion } from "../src/core/plan";
import { runEvalSets, wantsMisses } from "./eval-sets";

interface JudgeCase {
  id?: string;
  question: string;
  answerable: boolean;
  kind?: string;
}

void runEvalSets<JudgeCase>("judge", async (index, store, cases) => {
  const tally = { answerable: 0, enough: 0, unanswerable: 0, weakOrNone: 0, hard: 0, hardOk: 0 };
  const misses: unknown[] = [];
  for (const c of cases) {
    // The year is pinned so "this year" questions plan the same way on every day.
    const plan = planQuestion(c.question, { currentYear: 2026 });
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
    counts: tally,
    misses: wantsMisses ? misses : misses.length,
  };
});
