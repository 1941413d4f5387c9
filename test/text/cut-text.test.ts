import { describe, expect, it } from "vitest";
import { cutText, MAX_QUESTION_CHARS, questionCutMessage, questionRead } from "../../src/text/cut-text";

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

describe("questionRead", () => {
  it("keeps a question up to MAX_QUESTION_CHARS whole, and cuts a longer one at a word, marked", () => {
    const whole = "a".repeat(MAX_QUESTION_CHARS);
    expect(questionRead(whole)).toBe(whole);
    const long = `${"word ".repeat(MAX_QUESTION_CHARS / 5)}more`;
    const read = questionRead(long);
    expect(read.length).toBeLessThanOrEqual(MAX_QUESTION_CHARS);
    expect(read).toMatch(/word…$/);
    expect(questionCutMessage(long, "question")).toBe(`The question is ${long.length.toLocaleString("en-US")} characters long; only its first 2,000 were read.`);
  });
});
