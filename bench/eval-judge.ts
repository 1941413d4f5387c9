// `npm run eval:judge`: how well the evidence judge tells a vault that answers a question from one
// that merely shares its keywords. Figures: share of answerable questions judged
// `enough_evidence`, share of unanswerable ones judged weak or none (hard negatives separately).
// --misses lists every wrong verdict with the judge's figures. --related measures the related
// expansion (the vault's link graph built first, the best notes' links and tags looked along).
// --no-names lets a note that never says a name the question writes be enough (as before stop 23).
import { VaultLinks } from "../src/index/links/vault-links";
import { createAnalyzer } from "../src/index/tokenize";
import type { VaultIndex } from "../src/index/vault-index";
import { judgeCaseProblem, scoreJudgeCases, type JudgeCase, type JudgeEvalRelated } from "../src/eval/judge-eval";
import { DEFAULT_JUDGE } from "../src/research/stages/judge";
import type { NoteStore } from "../src/ports";
import { runEvalSets, wantsMisses } from "./eval-sets";

const wantsRelated = process.argv.includes("--related");
/** One link graph per vault index (two sets share the corpora's). */
const graphs = new Map<VaultIndex, JudgeEvalRelated>();

async function relatedFor(index: VaultIndex, store: NoteStore): Promise<JudgeEvalRelated | undefined> {
  if (!wantsRelated) return undefined;
  let related = graphs.get(index);
  if (!related) {
    const links = new VaultLinks();
    await links.sync(index, store);
    graphs.set(index, (related = { links, analyzer: createAnalyzer({ stemming: true }) }));
  }
  return related;
}

void runEvalSets<JudgeCase>("judge", async (index, store, cases) => {
  const judge = { ...DEFAULT_JUDGE, namesSaid: !process.argv.includes("--no-names") };
  const report = await scoreJudgeCases(index, store, cases, 2026, await relatedFor(index, store), judge);
  return wantsMisses ? { ...report } : { ...report, misses: report.misses.length };
}, judgeCaseProblem);
