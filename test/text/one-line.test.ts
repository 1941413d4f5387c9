import { describe, expect, it } from "vitest";
import { oneLine } from "../../src/text/one-line";

describe("oneLine", () => {
  it("folds every run of white space, line breaks included, into one space", () => {
    expect(oneLine("  a\n\n  b\t c \r\n")).toBe("a b c");
  });

  it("cuts a longer line to max characters ending in an ellipsis", () => {
    expect(oneLine("abcdefghij", 5)).toBe("abcd…");
    expect(oneLine("abcde", 5)).toBe("abcde");
  });

  it("never cuts inside a character: an emoji at the cut goes whole", () => {
    const cut = oneLine("abc😀def", 5);
    expect(cut).toBe("abc…");
    expect(cut).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });
});
