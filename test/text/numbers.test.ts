import { describe, expect, it } from "vitest";
import { roundTo } from "../../src/text/numbers";

describe("roundTo", () => {
  it("rounds to the given number of decimals", () => {
    expect(roundTo(0.12345, 3)).toBe(0.123);
    expect(roundTo(0.1235, 3)).toBe(0.124);
    expect(roundTo(12.34, 1)).toBe(12.3);
    expect(roundTo(-1.25, 1)).toBe(-1.2);
  });
});
