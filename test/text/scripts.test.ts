import { describe, expect, it } from "vitest";
import { CJK_CHAR, CJK_CHARS, CJK_RUNS, withoutAccents } from "../../src/text/scripts";

describe("the class of scripts written without spaces", () => {
  it("knows Han, kana, Hangul, Thai, Lao, Khmer and Burmese, and no spaced script", () => {
    for (const c of ["漢", "ひ", "カ", "한", "ー", "ก", "ມ", "ក", "က"]) expect(CJK_CHAR.test(c), c).toBe(true);
    for (const c of ["a", "é", "я", "α", "क", "ب", "1", " ", "-"]) expect(CJK_CHAR.test(c), c).toBe(false);
  });

  it("splits mixed text into runs and marks every such character", () => {
    expect("CRDT同期test".match(CJK_RUNS)).toEqual(["CRDT", "同期", "test"]);
    expect("a同b期".replace(CJK_CHARS, "_")).toBe("a_b_");
    expect("Wi-Fiที่บ้าน".match(CJK_RUNS)).toEqual(["Wi-Fi", "ที่บ้าน"]);
  });
});

describe("withoutAccents", () => {
  const fold = (text: string) => withoutAccents(text.normalize("NFD")).normalize("NFC");

  it("drops the accents of spaced scripts", () => {
    expect(fold("café crème")).toBe("cafe creme");
    expect(fold("Việt Nam")).toBe("Viet Nam");
  });

  it("keeps the marks that are part of a Thai, Khmer or kana letter", () => {
    expect(fold("ข้าว")).toBe("ข้าว");
    expect(fold("ที่")).toBe("ที่");
    expect(fold("ខ្ញុំ")).toBe("ខ្ញុំ");
    expect(fold("ガイド")).toBe("ガイド");
  });

  it("does both in one text, each mark by the letter it sits on", () => {
    expect(fold("café ข้าว")).toBe("cafe ข้าว");
    expect(fold("ข้é")).toBe("ข้e");
  });
});
