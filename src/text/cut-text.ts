// How a long text is cut to fit: trace fields, snippets, prompt sections. One rule, so a cut reads
// the same wherever it shows: at most `max` characters including the mark, never half a surrogate
// pair, and — where a reader sees it as prose — at a word boundary when one is near the end.

/** The mark a cut string ends with. */
export const CUT_MARK = "…";

export interface CutOptions {
  /** Cut at the last space when it falls in the final fifth, and drop trailing white space. */
  atWord?: boolean;
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
