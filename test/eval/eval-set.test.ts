import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { FsNoteStore } from "../../src/cli/fs-note-store";
import { VaultIndex } from "../../src/index/vault-index";
import { groupCases, readEvalSet, relevantNotInVault, VAULT_FOLDS } from "../../src/eval/eval-set";
import { judgeCaseProblem, scoreJudgeCases, type JudgeCase } from "../../src/eval/judge-eval";
import { scoreSearchCases, searchCaseProblem, type SearchCase } from "../../src/eval/search-eval";

const ROOT = path.resolve(__dirname, "../..");

describe("readEvalSet", () => {
  it("reads a plain array of cases and a set that says who wrote it", () => {
    const plain = readEvalSet([{ question: "q1" }], "a.json");
    expect(plain).toEqual({ ok: true, set: { cases: [{ question: "q1" }] } });
    const held = readEvalSet({ about: "written before tuning", cases: [{ question: "q2" }] }, "b.json");
    expect(held.ok && held.set.about).toBe("written before tuning");
  });

  it("refuses a set it cannot read, naming the file and what is wrong", () => {
    const noCases = readEvalSet({ about: "x" }, "c.json");
    expect(noCases.ok ? "" : noCases.error.message).toMatch(/^c\.json: expected an array of cases/);
    const noQuestion = readEvalSet([{ question: "ok" }, { id: "q2" }], "d.json");
    expect(noQuestion.ok ? "" : noQuestion.error).toEqual({ kind: "bad_set", message: "d.json: case 2 has no `question`" });
  });
});

describe("a case a scorer would misread is refused, with its place and id", () => {
  const problem = (cases: unknown[], check?: (c: Record<string, unknown>) => string | null) => {
    const read = readEvalSet(cases, "s.json", check);
    return read.ok ? "" : read.error.message;
  };

  it("an unknown kind (it became a kind of its own), a repeated id, a relevant that is no list of paths", () => {
    expect(problem([{ id: "a", question: "q", kind: "hard-negative" }])).toBe('s.json: case 1 ("a"): `kind` should be one of keyword, paraphrase, title, multi_note, hard_negative, out_of_domain (got "hard-negative")');
    expect(problem([{ id: "a", question: "q" }, { id: "a", question: "r" }])).toBe('s.json: case 2 ("a"): the same `id` is used by an earlier case');
    expect(problem([{ question: "q", relevant: "Libraries/Yjs.md" }])).toBe("s.json: case 1: `relevant` should be a list of vault paths");
    expect(problem([{ question: "q", corpus: 7 }])).toContain("`corpus` should be");
    // What the shipped sets hold is read as before.
    expect(problem([{ id: "j1", question: "q", answerable: false, relevant: [], kind: "out_of_domain", corpus: null }])).toBe("");
  });

  it("a search case with no notes that answer it (it crashed the scorer, or could only miss)", () => {
    expect(problem([{ question: "q", relevant: ["a.md"] }, { question: "r" }], searchCaseProblem)).toMatch(/^s\.json: case 2: `relevant` should list the notes that answer it/);
    expect(problem([{ question: "q", relevant: [] }], searchCaseProblem)).toMatch(/case 1: `relevant` should list/);
  });

  it("a judge case that does not say whether it is answerable (it was counted as unanswerable), or whose kind disagrees", () => {
    expect(problem([{ id: "j9", question: "q", relevant: ["a.md"] }], judgeCaseProblem)).toBe('s.json: case 1 ("j9"): `answerable` should be true or false');
    expect(problem([{ question: "q", answerable: true }], judgeCaseProblem)).toContain("an answerable case should list in `relevant`");
    expect(problem([{ question: "q", answerable: true, relevant: ["a.md"], kind: "hard_negative" }], judgeCaseProblem)).toContain("a hard_negative question is unanswerable");
    expect(problem([{ question: "q", answerable: false, kind: "paraphrase" }], judgeCaseProblem)).toContain("a paraphrase question has an answer");
    // An unanswerable question may name the note that comes nearest (the sample vault's vj001 does).
    expect(problem([{ question: "q", answerable: false, relevant: ["a.md"] }], judgeCaseProblem)).toBe("");
  });

  it("the shipped search and judge sets pass their scorer's checks", () => {
    for (const [kind, check] of [["search", searchCaseProblem], ["judge", judgeCaseProblem]] as const) {
      // evals/judge/resting-audit.json is no set: the audit of resting enoughs (test/eval/resting-audit.test.ts reads it).
      for (const file of readdirSync(path.join(ROOT, "evals", kind)).filter((f) => f !== "resting-audit.json")) {
        const read = readEvalSet(JSON.parse(readFileSync(path.join(ROOT, "evals", kind, file), "utf8")), file, check);
        expect(read.ok ? "" : read.error.message).toBe("");
      }
    }
  });

  it("names each relevant note the vault does not have, with its case", () => {
    const has = (p: string) => p === "Libraries/Yjs.md";
    expect(relevantNotInVault([{ id: "s1", question: "q", relevant: ["Libraries/Yjs.md"] }, { question: "r", relevant: ["Libraries/Yjs.MD", "Libraries/Yjs.md"] }, { question: "s" }], has)).toEqual([{ case: "case 2", path: "Libraries/Yjs.MD" }]);
  });
});

describe("the scorers over the sample vault, on cases that used to be misread", () => {
  it("a judge case without answerable is refused before it can count as unanswerable; a well-formed one counts where it belongs", async () => {
    const store = new FsNoteStore(path.join(ROOT, "examples/vault"));
    const index = new VaultIndex();
    await index.sync(store, null);
    const raw = [{ question: "Why did the team pick Automerge instead of Yjs for the field app?", relevant: ["Libraries/Automerge vs Yjs.md"] }];
    expect(readEvalSet<JudgeCase>(raw, "j.json", judgeCaseProblem).ok).toBe(false);
    const report = await scoreJudgeCases(index, store, [{ ...raw[0], answerable: true }]);
    expect(report.unanswerable_judged_weak_or_none).toBeNull();
    expect(report.answerable_judged_enough).not.toBeNull();
    const search = await scoreSearchCases(index, store, [{ question: "Automerge vs Yjs", relevant: ["Libraries/Automerge vs Yjs.md"], kind: "title" } satisfies SearchCase]);
    expect(search.by_kind.title.cases).toBe(1);
  });
});

describe("vault folds", () => {
  it("split the corpora in two halves, each tuned in one fold and reported in the other", () => {
    const [a, b] = VAULT_FOLDS;
    expect([...a.tune].sort()).toEqual([...b.report].sort());
    expect([...a.report].sort()).toEqual([...b.tune].sort());
    expect(a.tune.some((c) => (a.report as readonly string[]).includes(c))).toBe(false);
  });

  it("groups outcomes by kind, corpus and half of each fold", () => {
    const groups = groupCases([
      { kind: "paraphrase", corpus: "foam-docs" },
      { kind: "hard_negative", corpus: "dendron-site" },
      { kind: "out_of_domain" },
    ]);
    expect(groups.get("kind:paraphrase")).toHaveLength(1);
    expect(groups.get("corpus:foam-docs")).toHaveLength(1);
    expect(groups.get("fold A tune")).toEqual([{ kind: "paraphrase", corpus: "foam-docs" }]);
    expect(groups.get("fold A report")).toEqual([{ kind: "hard_negative", corpus: "dendron-site" }]);
    expect([...groups.keys()].some((k) => k.includes("undefined"))).toBe(false);
  });
});
