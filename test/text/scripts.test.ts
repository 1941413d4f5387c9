import { describe, expect, it } from "vitest";
import { CJK_CHAR, CJK_CHARS, CJK_RUNS } from "../../src/text/scripts";

describe("CJK character class", () => {
  it("knows Han, kana and Hangul, and nothing else", () => {
    for (const c of ["漢", "ひ", "カ", "한"]) expect(CJK_CHAR.test(c), c).toBe(true);
    for (const c of ["a", "é", "я", "1", " "]) expect(CJK_CHAR.test(c), c).toBe(false);
  });

  it("splits mixed text into runs and marks every CJK character", () => {
    expect("CRDT同期test".match(CJK_RUNS)).toEqual(["CRDT", "同期", "test"]);
    expect("a同b期".replace(CJK_CHARS, "_")).toBe("a_b_");
  });
});
