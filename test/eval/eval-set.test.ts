import { describe, expect, it } from "vitest";
import { groupCases, readEvalSet, VAULT_FOLDS } from "../../src/eval/eval-set";

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
