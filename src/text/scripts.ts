// Writing systems that put no spaces between words: Chinese, Japanese and Korean, and Thai, Lao,
// Khmer and Burmese. The index splits their runs into overlapping character pairs, and highlights
// and phrase checks must agree on which characters those are: this is the one list. (The names
// say CJK, the class they began with; they cover all of these.)
//
// Thai and its neighbours were read as spaced scripts: a clause of them was one "word", longer than
// any word kept, so a word inside it was never found. Pairs find it, whatever dictionary (or none)
// the platform has; `Intl.Segmenter`'s dictionary reads "ไก่ทอดที่ร้าน" (fried chicken at the shop)
// with "ทอดที่" as one word, so "ทอด" typed alone would not match it.
//
// Japanese's long vowel mark ー (U+30FC, and the half-width ｰ) is a character of no script of its
// own, yet only ever written inside a katakana word ("コーヒー"): it belongs to the run.

/** The scripts of South-East Asia among them: their words are several letters long. */
const SYLLABIC_SCRIPTS = "\\p{Script=Thai}\\p{Script=Lao}\\p{Script=Khmer}\\p{Script=Myanmar}";
const UNSPACED_SCRIPTS = "\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}\\u30fc\\uff70" + SYLLABIC_SCRIPTS;

/** Tests one character (or whether a string holds any). */
export const CJK_CHAR = new RegExp(`[${UNSPACED_SCRIPTS}]`, "u");
/** Every such character, for `replace`. */
export const CJK_CHARS = new RegExp(`[${UNSPACED_SCRIPTS}]`, "gu");
/** Alternating runs of such characters and other characters, for `match`. */
export const CJK_RUNS = new RegExp(`[${UNSPACED_SCRIPTS}]+|[^${UNSPACED_SCRIPTS}]+`, "gu");
/** Every character of Thai, Lao, Khmer and Burmese, for `replace`: a word of theirs is a few letters, not one. */
export const SYLLABIC_CHARS = new RegExp(`[${SYLLABIC_SCRIPTS}]`, "gu");
/** Every letter (not mark) of those scripts, for `match`. */
export const SYLLABIC_LETTERS = new RegExp(`(?=\\p{L})[${SYLLABIC_SCRIPTS}]`, "gu");

// A character of these scripts with the combining marks after it (group 1), or any other run of marks.
const MARKS = new RegExp(`([${UNSPACED_SCRIPTS}]\\p{M}+)|\\p{M}+`, "gu");
const ALL_MARKS = /\p{M}+/gu;

/**
 * Decomposed text (NFD) without its accents: the combining marks of spaced scripts go ("e\u0301" →
 * "e"), those of the scripts above stay. There they are part of the letter: Thai's tones and vowels
 * (ข้าว, rice, is not ขาว, white), Khmer's subscript sign, a kana's voicing (ガイド, guide, is not
 * カイト) — and the index keeps their pairs as written, so a query folded without them found nothing.
 */
export function withoutAccents(decomposed: string): string {
  if (!CJK_CHAR.test(decomposed)) return decomposed.replace(ALL_MARKS, "");
  return decomposed.replace(MARKS, (_marks, kept: string | undefined) => kept ?? "");
}
