// `npm run eval:judge`: how well the evidence judge tells a vault that answers a question from one
// that merely shares its keywords. Figures: share of answerable questions judged
// `enough_evidence`, share of unanswerable ones judged weak or none (hard negatives separately).
// --misses lists every wrong verdict with the judge's figures.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { FsNoteStore } from "../src/cli/fs-note-store";
import { judgeEvidence } from "../src/core/judge";
import { retrieveLocal } from "../src/core/local-retrieval";
import { planQuestion } from "../src/core/plan";
import { VaultIndex } from "../src/index/vault-index";

interface JudgeCase {
  id?: string;
  question: string;
  answerable: boolean;
  kind?: string;
}

const root = path.resolve(__dirname, "..");
const sets = [
  { name: "sample-vault", vault: path.join(root, "examples/vault"), file: path.join(root, "evals/judge/sample-vault.json") },
  { name: "corpora", vault: path.resolve(root, "../shared/corpora"), file: path.join(root, "evals/judge/corpora.json") },
];

async function main(): Promise<void> {
  const out: Record<string, unknown> = {};
  for (const set of sets) {
    if (!existsSync(set.vault) || !existsSync(set.file)) {
      out[set.name] = { skipped: `${existsSync(set.vault) ? set.file : set.vault} is absent` };
      continue;
    }
    const store = new FsNoteStore(set.vault);
    const index = new VaultIndex();
    await index.sync(store, null);
    const cases = JSON.parse(readFileSync(set.file, "utf8")) as JudgeCase[];
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
    out[set.name] = {
      cases: cases.length,
      answerable_judged_enough: share(tally.enough, tally.answerable),
      unanswerable_judged_weak_or_none: share(tally.weakOrNone, tally.unanswerable),
      hard_negatives_judged_weak_or_none: share(tally.hardOk, tally.hard),
      counts: tally,
      misses: process.argv.includes("--misses") ? misses : misses.length,
    };
  }
  process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`eval failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
