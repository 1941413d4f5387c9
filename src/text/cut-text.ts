// How a long text is cut to fit: trace fields, snippets, prompt sections. One rule, so a cut reads
// the same wherever it shows: at most `max` characters including the mark, never half a surrogate
// pair, and — where a reader sees it as prose — at a word boundary when one is near the end.

/** The mark a cut string ends with. */
export const CUT_MARK = "…";

export interface CutOptions {
  /** Cut at the last space when it falls in the final fifth, and drop trailing white space. */
  atWord?: boolean;
}

/**
 * The longest question (or search) that is read. Whatever is pasted or sent (a whole selection, an
 * agent's argument), planning, routing and search then take a bounded time: several of their
 * patterns and word lists grow faster than the text.
 */
export const MAX_QUESTION_CHARS = 2_000;

/** The part of a question that is read: all of it, or its first MAX_QUESTION_CHARS characters at a word, marked "…". */
export function questionRead(question: string): string {
  return cutText(question, MAX_QUESTION_CHARS, { atWord: true });
}

/** What a person is told when `asked` was longer than is read (the run's warning, the search's notice). */
export function questionCutMessage(asked: string, noun: "question" | "query"): string {
  const count = (n: number) => n.toLocaleString("en-US");
  return `The ${noun} is ${count(asked.length)} characters long; only its first ${count(MAX_QUESTION_CHARS)} were read.`;
}

/** `text` cut to at most `max` characters, ending in "…" when cut. */
export function cutText(text: string, max: number, options: CutOptions = {}): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max - CUT_MARK.length);
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  let cut = text.slice(0, end);
  if (options.atWord) {
    const lastSpace = cut.search(/\s\S*$/);
    if (lastSpace > max * 0.8) cut = cut.slice(0, lastSpace);
    cut = cut.trimEnd();
  }
  return `${cut}${CUT_MARK}`;
}
