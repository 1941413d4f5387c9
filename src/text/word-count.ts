// How many words a text holds, the same way wherever a size is said in words (a page's
// paragraphs, a passage's length). Chinese, Japanese and Korean put no spaces between words, so
// there each character counts as one; Thai, Lao, Khmer and Burmese put none either, but a word of
// theirs is several letters with marks above and below, so there three letters count as one (a
// mark none): counted per code point, an eight-word Thai sentence was 25 words.
import { CJK_CHARS, SYLLABIC_CHARS, SYLLABIC_LETTERS } from "./scripts";

/** Letters per word in the syllabic scripts: Thai's words average about three letters. */
const SYLLABIC_LETTERS_PER_WORD = 3;

export function countWords(text: string): number {
  const syllabic = text.match(SYLLABIC_LETTERS)?.length ?? 0;
  const cjk = text.replace(SYLLABIC_CHARS, "").match(CJK_CHARS)?.length ?? 0;
  const other = text.replace(CJK_CHARS, " ").match(/[\p{L}\p{N}]+(?:['’.-][\p{L}\p{N}]+)*/gu)?.length ?? 0;
  return cjk + Math.ceil(syllabic / SYLLABIC_LETTERS_PER_WORD) + other;
}
