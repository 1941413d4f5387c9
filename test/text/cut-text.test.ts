import { describe, expect, it } from "vitest";
import { cutText } from "../../src/text/cut-text";

describe("cutText", () => {
  it("leaves text that fits alone and cuts the rest to exactly max characters with the mark", () => {
    expect(cutText("short", 5)).toBe("short");
    expect(cutText("abcdefgh", 5)).toBe("abcd…");
  });

  it("never splits a surrogate pair", () => {
    expect(cutText("ab😀cd", 4)).toBe("ab…");
  });

  it("cuts prose at a word boundary near the end, not far from it", () => {
    expect(cutText("alpha beta gamma delta epsilon", 26, { atWord: true })).toBe("alpha beta gamma delta…");
    expect(cutText("one two three four", 12, { atWord: true })).toBe("one two thr…");
  });
});
