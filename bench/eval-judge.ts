// `npm run eval:judge`: how well the evidence judge tells a vault that answers a question from one
// that merely shares its keywords. Figures: share of answerable questions judged
// `enough_evidence`, share of unanswerable ones judged weak or none (hard negatives separately).
// --misses lists every wrong verdict with the judge's figures. --related measures the related
// expansion (the vault's link graph built first, the best notes' links and tags looked along).
// --no-names lets a note that never says a name the question writes be enough (as before stop 23).
// evals/judge/resting-audit.json, read here and passed in, says which enoughs resting on a note
// outside `relevant` rest on notes a reader found to answer (a bad file stops the script, naming the entry).
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { VaultLinks } from "../src/index/links/vault-links";
import { createAnalyzer } from "../src/index/tokenize";
import type { VaultIndex } from "../src/index/vault-index";
import { judgeCaseProblem, scoreJudgeCases, type JudgeCase, type JudgeEvalRelated } from "../src/eval/judge-eval";
import { readRestingAudit, type RestingAuditEntry } from "../src/eval/resting-audit";
import { DEFAULT_JUDGE } from "../src/research/stages/judge";
import type { NoteStore } from "../src/ports";
import { EVAL_SET_NAMES, runEvalSets, wantsMisses } from "./eval-sets";

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

const AUDIT_FILE = "evals/judge/resting-audit.json";

/** The audit's entries (none when the file is absent: every resting enough is then unaudited); a bad file stops the script. */
function restingAudit(): RestingAuditEntry[] {
  const file = path.resolve(__dirname, "..", AUDIT_FILE);
  if (!existsSync(file)) return [];
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    return stop(`${AUDIT_FILE}: not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const read = readRestingAudit(json, AUDIT_FILE, EVAL_SET_NAMES);
  return read.ok ? read.entries : stop(read.error.message);
}

function stop(message: string): never {
  process.stderr.write(`eval failed: ${message}\n`);
  process.exit(1);
}

const audited = restingAudit();

void runEvalSets<JudgeCase>("judge", async (index, store, cases, _vault, set) => {
  const judge = { ...DEFAULT_JUDGE, namesSaid: !process.argv.includes("--no-names") };
  const report = await scoreJudgeCases(index, store, cases, 2026, await relatedFor(index, store), judge, { set, entries: audited });
  return wantsMisses ? { ...report } : { ...report, misses: report.misses.length };
}, judgeCaseProblem);
