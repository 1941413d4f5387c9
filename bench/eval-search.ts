// `npm run eval:search`: retrieval quality of vault search against our labelled question sets.
// recall@5 = share of questions with a relevant note in the top 5; MRR = mean of 1/rank of the
// first relevant note (0 when none in the top 10). Prints JSON; --misses lists the failures.
import { scoreSearchCases, type SearchCase } from "../src/eval/search-eval";
import { runEvalSets, wantsMisses } from "./eval-sets";

void runEvalSets<SearchCase>("search", async (index, store, cases) => {
  const report = await scoreSearchCases(index, store, cases);
  return wantsMisses ? { ...report } : { ...report, misses: report.misses.length };
});
