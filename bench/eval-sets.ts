// Shared by the evaluation scripts: each labelled set is scored on its own vault (the sample vault,
// and ../shared/corpora when it sits beside the repo), skipped with a reason when absent, and the
// figures are printed as one JSON object.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { FsNoteStore } from "../src/cli/fs-note-store";
import { VaultIndex } from "../src/index/vault-index";

const root = path.resolve(__dirname, "..");

/** `kind` is the folder under evals/ ("search" or "judge"). */
export async function runEvalSets<Case>(kind: string, score: (index: VaultIndex, store: FsNoteStore, cases: Case[]) => Promise<Record<string, unknown>>): Promise<void> {
  const sets = [
    { name: "sample-vault", vault: path.join(root, "examples/vault"), file: path.join(root, `evals/${kind}/sample-vault.json`) },
    { name: "corpora", vault: path.resolve(root, "../shared/corpora"), file: path.join(root, `evals/${kind}/corpora.json`) },
  ];
  const out: Record<string, unknown> = {};
  try {
    for (const set of sets) {
      if (!existsSync(set.vault) || !existsSync(set.file)) {
        out[set.name] = { skipped: `${existsSync(set.vault) ? set.file : set.vault} is absent` };
        continue;
      }
      const store = new FsNoteStore(set.vault);
      const index = new VaultIndex();
      await index.sync(store, null);
      out[set.name] = await score(index, store, JSON.parse(readFileSync(set.file, "utf8")) as Case[]);
    }
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  } catch (error) {
    process.stderr.write(`eval failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}

export const wantsMisses = process.argv.includes("--misses");
