// What is wrong with text JSON.parse refused, and where, in our words: the parser's own message
// quotes the text around the error, which may hold a key pasted into a config or a trace.
import { errorMessage } from "./error-message";

/** What the parser's `message` says is wrong with `text`, and where, without a word of the text. */
export function jsonProblem(text: string, message: string): string {
  const kind = PROBLEM_KINDS.find(([pattern]) => pattern.test(message))?.[1] ?? "a syntax error";
  const end = text.trimEnd().length;
  const at = Math.min(positionIn(message) ?? firstBadPosition(text), end);
  return at >= end ? `it ends before its value is complete, at ${lineAndColumn(text, end)}` : `${kind} at ${lineAndColumn(text, at)}`;
}

/** V8's messages (Node 20 and later), each by the kind of problem it names. */
const PROBLEM_KINDS: [RegExp, string][] = [
  [/property name/i, "a property name in double quotes was expected"],
  [/Expected ',' or '\}'/, "a comma or a closing brace was expected"],
  [/Expected ',' or '\]'/, "a comma or a closing bracket was expected"],
  [/Expected ':'/, "a colon was expected"],
  [/after JSON/i, "more follows the value"],
  [/control character/i, "a control character inside a string"],
  [/escape/i, "a bad escape inside a string"],
  [/Unterminated string/i, "a string is not closed"],
  [/number|minus|exponent/i, "a number is not written right"],
  [/Unexpected token/i, "an unexpected character"],
];

/** The 0-based position the parser names ("… at position 8"), when it names one. */
function positionIn(message: string): number | null {
  const found = /at position (\d+)/.exec(message);
  return found ? Number(found[1]) : null;
}

/**
 * Where the first error is when the parser does not say ("Unexpected token 'B', …"): the end of the
 * shortest start of the text that fails for a reason other than ending early. Every shorter start
 * is a valid beginning of JSON, every longer one holds the error, so a binary search finds it.
 */
function firstBadPosition(text: string): number {
  let low = 1;
  let high = text.length;
  while (low < high) {
    const mid = Math.floor((low + high) / 2);
    if (failsWithin(text.slice(0, mid))) high = mid;
    else low = mid + 1;
  }
  return low - 1;
}

function failsWithin(start: string): boolean {
  try {
    JSON.parse(start);
    return false;
  } catch (error) {
    const message = errorMessage(error);
    if (/Unexpected end/i.test(message)) return false;
    const at = positionIn(message);
    return at === null || at < start.length;
  }
}

/** "line 3, column 14", both counted from 1. */
function lineAndColumn(text: string, position: number): string {
  const before = text.slice(0, position);
  const line = before.split("\n").length;
  return `line ${line}, column ${position - before.lastIndexOf("\n")}`;
}
