// Retrieval quality floors over our labelled question sets. The floors sit a little under the
// current figures (sample vault 1.0 / 0.955, corpora 0.90 / 0.726), so a ranking change that loses
// real ground fails here; `npm run eval:search -- --misses` shows which questions it lost.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { FsNoteStore } from "../../src/cli/fs-note-store";
import { readEvalSet } from "../../src/eval/eval-set";
import { scoreSearchCases, type SearchCase, type SearchEvalReport } from "../../src/eval/search-eval";
import { VaultIndex } from "../../src/index/vault-index";

const ROOT = path.resolve(__dirname, "../..");
const SAMPLE_VAULT = path.join(ROOT, "examples/vault");
const CORPORA = path.resolve(ROOT, "../shared/corpora");

function cases(file: string): SearchCase[] {
  const read = readEvalSet<SearchCase>(JSON.parse(readFileSync(path.join(ROOT, "evals/search", file), "utf8")), file);
  if (!read.ok) throw new Error(read.error.message);
  return read.set.cases;
}

function describeMisses(report: SearchEvalReport): string {
  return report.misses.map((m) => `${m.id ?? "?"} "${m.question}" → ${m.got.join(", ")}`).join("\n");
}

async function evaluate(vault: string, file: string): Promise<SearchEvalReport> {
  const store = new FsNoteStore(vault);
  const index = new VaultIndex();
  await index.sync(store, null);
  return scoreSearchCases(index, store, cases(file));
}

describe("search quality on the sample vault", () => {
  let report: SearchEvalReport;
  beforeAll(async () => {
    report = await evaluate(SAMPLE_VAULT, "sample-vault.json");
  });

  it("has enough questions to mean something", () => {
    expect(report.cases).toBeGreaterThanOrEqual(20);
  });

  it("puts a relevant note in the top 5 for at least 90% of questions", () => {
    expect(report.recall_at_5, describeMisses(report)).toBeGreaterThanOrEqual(0.9);
  });

  it("has a mean reciprocal rank of at least 0.8", () => {
    expect(report.mrr, describeMisses(report)).toBeGreaterThanOrEqual(0.8);
  });
});

const haveCorpora = existsSync(CORPORA);
if (!haveCorpora) console.warn(`search-quality: ${CORPORA} is absent; the corpora floors are skipped.`);

describe.skipIf(!haveCorpora)("search quality on ../shared/corpora as one vault", () => {
  let report: SearchEvalReport;
  beforeAll(async () => {
    report = await evaluate(CORPORA, "corpora.json");
  }, 180_000);

  it("puts a relevant note in the top 5 for at least 85% of questions", () => {
    expect(report.recall_at_5, describeMisses(report)).toBeGreaterThanOrEqual(0.85);
  });

  it("has a mean reciprocal rank of at least 0.68", () => {
    expect(report.mrr, describeMisses(report)).toBeGreaterThanOrEqual(0.68);
  });

  it("covers every corpus in the question set", () => {
    expect(Object.keys(report.by_group).length).toBeGreaterThanOrEqual(5);
  });
});

// The held-out set (issue 10) was written before the ranking code was read; these floors sit a
// little under its figures (0.696 / 0.557; keyword and title questions 1.0), far under the
// issue's targets, so a change that loses ground on paraphrases fails here.
describe.skipIf(!haveCorpora)("search quality on the held-out paraphrase set", () => {
  let report: SearchEvalReport;
  beforeAll(async () => {
    report = await evaluate(CORPORA, "heldout-paraphrase.json");
  }, 180_000);

  it("keeps its recall and rank on every kind of question", () => {
    expect(report.recall_at_5, describeMisses(report)).toBeGreaterThanOrEqual(0.68);
    expect(report.mrr).toBeGreaterThanOrEqual(0.54);
    expect(report.by_kind.keyword.recall_at_5).toBeGreaterThanOrEqual(0.95);
    expect(report.by_kind.title.recall_at_5).toBeGreaterThanOrEqual(0.95);
    expect(report.by_kind.paraphrase.recall_at_5).toBeGreaterThanOrEqual(0.55);
  });

  it("reports every half of the vault split", () => {
    expect(Object.keys(report.by_fold).sort()).toEqual(["fold A report", "fold A tune", "fold B report", "fold B tune"]);
  });
});
