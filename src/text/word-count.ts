// How many words a text holds, the same way wherever a size is said in words (a page's
// paragraphs, a passage's length). Chinese, Japanese and Korean put no spaces between words, so
// there each character counts as one.
import { CJK_CHARS } from "./scripts";

export function countWords(text: string): number {
  const cjk = text.match(CJK_CHARS)?.length ?? 0;
  const other = text.replace(CJK_CHARS, " ").match(/[\p{L}\p{N}]+(?:['’.-][\p{L}\p{N}]+)*/gu)?.length ?? 0;
  return cjk + other;
}
