import { describe, expect, it } from "vitest";
import { countWords } from "../../src/text/word-count";

describe("countWords", () => {
  it("counts words separated by spaces and punctuation, keeping don't and 3.0 whole", () => {
    expect(countWords("The relay keeps encrypted blobs for thirty days.")).toBe(8);
    expect(countWords("Don't upgrade before 3.0 — e-mail first!")).toBe(6);
    expect(countWords("")).toBe(0);
    expect(countWords("  … — ")).toBe(0);
  });

  it("counts each Chinese, Japanese or Korean character as a word", () => {
    expect(countWords("日本語のテキスト")).toBe(8);
    expect(countWords("Markdown 形式")).toBe(3);
  });
});

describe("countWords in Thai, Lao, Khmer and Burmese", () => {
  it("counts about a word per three letters, marks not counted: their words are several letters long", () => {
    // "I like to eat fried rice with fried chicken": eight words; 25 code points, 6 of them marks,
    // which one word a code point counted as 25.
    expect(countWords("ฉันชอบกินข้าวผัดกับไก่ทอด")).toBe(7);
    // A mark alone is no word, and a letter alone is one.
    expect(countWords("ก")).toBe(1);
    expect(countWords("\u0e49")).toBe(0);
  });

  it("counts each script its own way in one text", () => {
    expect(countWords("Markdown 形式 ข้าวผัด")).toBe(3 + 2);
  });
});
