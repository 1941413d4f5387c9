// How text that may span lines is shown on one line: runs of white space become one space, and a
// line longer than `max` code units ends in an ellipsis. Used wherever a title, a message or a
// snippet is printed in a list, a prompt or a note.

import { cutText } from "./cut-text";

/** "a\n  b " → "a b"; with `max`, a longer result is cut to `max` characters ending in "…", never inside a character. */
export function oneLine(text: string, max?: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return max === undefined ? line : cutText(line, max);
}
