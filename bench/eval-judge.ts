// `npm run eval:judge`: how well the evidence judge tells a vault that answers a question from one
// that merely shares its keywords. Figures: share of answerable questions judged
// `enough_evidence`, share of unanswerable ones judged weak or none (hard negatives separately).
// --misses lists every wrong verdict with the judge's figures.
import { scoreJudgeCases, type JudgeCase } from "../src/eval/judge-eval";
import { runEvalSets, wantsMisses } from "./eval-sets";

void runEvalSets<JudgeCase>("judge", async (index, store, cases) => {
  const report = await scoreJudgeCases(index, store, cases);
  return wantsMisses ? { ...report } : { ...report, misses: report.misses.length };
});
