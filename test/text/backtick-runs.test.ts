import { describe, expect, it } from "vitest";
import { BacktickRuns } from "../../src/text/backtick-runs";

describe("BacktickRuns", () => {
  it("finds the next run of exactly as many backticks, not a longer or shorter one", () => {
    const line = "a `` b ``` c ` d `` e";
    const runs = new BacktickRuns(line);
    expect(runs.closing(4, 2)).toBe(line.lastIndexOf("``"));
    expect(runs.closing(0, 3)).toBe(line.indexOf("```"));
    expect(runs.closing(line.indexOf("```") + 3, 3)).toBe(-1);
    expect(runs.closing(0, 4)).toBe(-1);
  });

  it("counts a run whole, wherever the reading stands in it", () => {
    const runs = new BacktickRuns("x```y`");
    expect(runs.closing(2, 1)).toBe(5);
    expect(runs.closing(0, 2)).toBe(-1);
  });
});
