import { describe, expect, it } from "vitest";
import { wordSet } from "../../src/text/word-set";

describe("wordSet", () => {
  it("reads a block of words across lines and indentation, with no empty word", () => {
    const set = wordSet(`  check see
     put   turn\n`);
    expect([...set]).toEqual(["check", "see", "put", "turn"]);
    expect(set.has("")).toBe(false);
    expect(wordSet("").size).toBe(0);
  });
});
