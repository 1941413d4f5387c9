// Writing systems that put no spaces between words (Chinese, Japanese, Korean). The index splits
// them into overlapping character pairs, and highlights and phrase checks must agree on which
// characters those are: this is the one list.

const CJK_SCRIPTS = "\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}";

/** Tests one character (or whether a string holds any). */
export const CJK_CHAR = new RegExp(`[${CJK_SCRIPTS}]`, "u");
/** Every CJK character, for `replace`. */
export const CJK_CHARS = new RegExp(`[${CJK_SCRIPTS}]`, "gu");
/** Alternating runs of CJK and other characters, for `match`. */
export const CJK_RUNS = new RegExp(`[${CJK_SCRIPTS}]+|[^${CJK_SCRIPTS}]+`, "gu");
