// `npm run eval:search`: retrieval quality of vault search against our labelled question sets.
// recall@5 = share of questions with a relevant note in the top 5; MRR = mean of 1/rank of the
// first relevant note (0 when none in the top 10). Prints JSON; --misses lists the failures.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { FsNoteStore } from "../src/cli/fs-note-store";
import { scoreSearchCases, type SearchCase } from "../src/index/search-eval";
import { VaultIndex } from "../src/index/vault-index";

const root = path.resolve(__dirname, "..");
const sets = [
  { name: "sample-vault", vault: path.join(root, "examples/vault"), file: path.join(root, "evals/search/sample-vault.json") },
  { name: "corpora", vault: path.resolve(root, "../shared/corpora"), file: path.join(root, "evals/search/corpora.json") },
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
    const cases = JSON.parse(readFileSync(set.file, "utf8")) as SearchCase[];
    const report = await scoreSearchCases(index, store, cases);
    out[set.name] = process.argv.includes("--misses") ? report : { ...report, misses: report.misses.length };
  }
  process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`eval failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
