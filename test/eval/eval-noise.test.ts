// The eval scripts' --noise band: each figure's lowest and highest over the main run and the runs
// with unrelated folders left out, and a refusal when a question points into one of those folders.
import { describe, expect, it, vi } from "vitest";
import { EVAL_SET_NAMES, NOISE_FOLDERS, noiseBand, pickedSets, seedBand } from "../../bench/eval-sets";

describe("eval --noise", () => {
  it("bands every numeric figure over the main run and each run with folders left out", async () => {
    const left: string[][] = [];
    const figures = [0.7, 0.72, 0.69, 0.71];
    const result = await noiseBand([{ question: "q", relevant: ["tldr-pages-en/common/tar.md"] }], { cases: 9, recall_at_5: 0.7, mrr: 0.5, about: "words" }, (l) => {
      left.push(l);
      const recall = figures[left.length - 1];
      return Promise.resolve({ cases: 9, recall_at_5: recall, mrr: 0.5 + left.length / 100 });
    });
    expect(left).toEqual([...NOISE_FOLDERS.map((f) => [f]), NOISE_FOLDERS]);
    expect(result.band).toEqual({ recall_at_5: [0.69, 0.72], mrr: [0.5, 0.54] });
    expect((result.runs as { left_out: string[] }[]).map((r) => r.left_out)).toEqual(left);
  });

  it("counts the questions that gave something else in at least one run, when the reports say what each gave", async () => {
    const cases = ["a", "b", "c"].map((q) => ({ question: q, relevant: [] }));
    const runs = [
      ["x", "y", "z"],
      ["x", "y2", "z"],
      ["x", "y3", "z"],
      ["x", "y", "z"],
    ];
    let i = 0;
    const result = await noiseBand(cases, { recall_at_5: 1, gave: ["x", "y", "z"] }, () => Promise.resolve({ recall_at_5: 1, gave: runs[i++] }));
    expect(result.questions_moved).toBe(1);
    // Without what each gave, no count.
    expect((await noiseBand(cases, { recall_at_5: 1 }, () => Promise.resolve({ recall_at_5: 1 }))).questions_moved).toBeUndefined();
  });

  it("refuses to leave out a folder a question points to", async () => {
    const cases = [{ question: "q", relevant: [`${NOISE_FOLDERS[0]}/some note.md`] }];
    await expect(noiseBand(cases, { recall_at_5: 1 }, () => Promise.resolve({ recall_at_5: 1 }))).rejects.toThrow(/which a question points to/);
  });

  it("--seeds bands the figures over three other seeds of the lane, and counts the questions that moved", async () => {
    const seeds: number[] = [];
    const result = await seedBand({ mrr: 0.6, gave: ["a", "b"] }, (seed) => {
      seeds.push(seed);
      return Promise.resolve({ mrr: 0.6 + seed / 100, gave: seed === 3 ? ["a", "c"] : ["a", "b"] });
    });
    expect(seeds).toEqual([2, 3, 4]);
    expect(result.band).toEqual({ mrr: [0.6, 0.64] });
    expect((result.runs as { seed: number }[]).map((r) => r.seed)).toEqual([2, 3, 4]);
    expect(result.questions_moved).toBe(1);
  });
});

describe("eval --set", () => {
  it("picks the one set named, or every set without the flag", () => {
    expect(pickedSets("heldout-fresh")).toEqual(["heldout-fresh"]);
    expect(pickedSets(undefined)).toEqual(EVAL_SET_NAMES);
  });

  it("stops with exit 2 and the sets' names on a name that is no set (it printed {} and exit 0)", () => {
    const exit = vi.spyOn(process, "exit").mockImplementation((code) => {
      throw new Error(`exit ${String(code)}`);
    });
    const err = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      expect(() => pickedSets("heldout_fresh")).toThrow("exit 2");
      expect(String(err.mock.calls[0]?.[0])).toContain("--set heldout_fresh is no set; the sets are sample-vault, corpora, heldout-paraphrase, heldout-fresh");
    } finally {
      exit.mockRestore();
      err.mockRestore();
    }
  });
});
