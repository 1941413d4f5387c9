// Retrieval quality floors over our labelled question sets, scored on the index as `npm run
// eval:search` scores them (the vault's language learned first), so the two give the same figures;
// `npm run eval:search -- --misses` shows which questions a change lost.
//
// Each floor is today's figure (measured 2026-12-07, here and by `eval:search`, which
// agree) less a margin: for the corpora's sets, how far that figure went by itself in `npm run
// eval:search -- --noise --seeds` (a few unrelated folders left out, the lane learned from three
// other seeds), and at least one question; a change that moves a figure less than that cannot be
// told from the draw. The sample vault and the held-out keyword and title questions keep their old
// floors (their figures did not move when the tests began waiting for the lane). A floor is no target.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { readEvalSet } from "../../src/eval/eval-set";
import { scoreSearchCases, type SearchCase, type SearchEvalReport } from "../../src/eval/search-eval";
import { indexedOnce, type IndexedVault } from "../support/evaluated-vault";

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

async function evaluate(vault: () => Promise<IndexedVault>, file: string): Promise<SearchEvalReport> {
  const { index, store } = await vault();
  return scoreSearchCases(index, store, cases(file));
}

const sampleVault = indexedOnce(SAMPLE_VAULT);
const corpora = indexedOnce(CORPORA);

describe("search quality on the sample vault", () => {
  let report: SearchEvalReport;
  beforeAll(async () => {
    report = await evaluate(sampleVault, "sample-vault.json");
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
    report = await evaluate(corpora, "corpora.json");
  }, 180_000);

  // Measured 0.931 (149 of 160) / 0.776; its band over the noise and seed runs 0.919–0.931 / 0.766–0.779.
  it("puts a relevant note in the top 5 for at least 147 of 160 questions (two under today's 149)", () => {
    expect(report.recall_at_5, describeMisses(report)).toBeGreaterThanOrEqual(0.918);
  });

  it("has a mean reciprocal rank of at least 0.766 (today's 0.776 less its band's 0.010)", () => {
    expect(report.mrr, describeMisses(report)).toBeGreaterThanOrEqual(0.766);
  });

  it("covers every corpus in the question set", () => {
    expect(Object.keys(report.by_group).length).toBeGreaterThanOrEqual(5);
  });
});

// The held-out set (issue 10) was written before the ranking code was read. Measured 0.728 (91 of
// 125) / 0.632, paraphrases 0.625 (55 of 88), keyword and title questions 1.0; its band over the
// noise and seed runs 0.712–0.728 / 0.617–0.636, paraphrases 53–55 of 88. The floors are two
// questions under today's recall (89 of 125; paraphrases 53 of 88) and 0.015 under its MRR.
describe.skipIf(!haveCorpora)("search quality on the held-out paraphrase set", () => {
  let report: SearchEvalReport;
  beforeAll(async () => {
    report = await evaluate(corpora, "heldout-paraphrase.json");
  }, 180_000);

  it("keeps its recall and rank on every kind of question", () => {
    expect(report.recall_at_5, describeMisses(report)).toBeGreaterThanOrEqual(0.712);
    expect(report.mrr, describeMisses(report)).toBeGreaterThanOrEqual(0.617);
    expect(report.by_kind.keyword.recall_at_5).toBeGreaterThanOrEqual(0.95);
    expect(report.by_kind.title.recall_at_5).toBeGreaterThanOrEqual(0.95);
    expect(report.by_kind.paraphrase.recall_at_5, describeMisses(report)).toBeGreaterThanOrEqual(0.602);
  });

  it("reports every half of the vault split", () => {
    expect(Object.keys(report.by_fold).sort()).toEqual(["fold A report", "fold A tune", "fold B report", "fold B tune"]);
  });
});
