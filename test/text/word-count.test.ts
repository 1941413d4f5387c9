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
