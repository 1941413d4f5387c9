// The live indexing line: read of total, the rate, the time left — in words a person reads.
import { describe, expect, it } from "vitest";
import { readProgressLine } from "../../src/cli/index-progress";

describe("readProgressLine", () => {
  it("says how many of how many, how fast and how long is left", () => {
    expect(readProgressLine(3200, 9300, 2000)).toBe("Indexing: 3,200 of 9,300 notes · 1,600 notes/s · about 4 s left");
  });

  it("counts minutes for long waits, and says nothing of time left once all is read", () => {
    expect(readProgressLine(100, 50_000, 10_000)).toBe("Indexing: 100 of 50,000 notes · 10 notes/s · about 83 min 10 s left");
    expect(readProgressLine(9300, 9300, 3000)).toBe("Indexing: 9,300 of 9,300 notes · 3,100 notes/s");
  });

  it("without a total (the listing was not seen) it counts what was read", () => {
    expect(readProgressLine(250, null, 500)).toBe("Indexing: 250 notes read · 500 notes/s");
  });
});
