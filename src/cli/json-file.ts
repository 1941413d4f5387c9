// A JSON file named on the command line (a config, a cases file, a recorded exchange), read in one
// place so each says what is wrong with it the same way: the words follow the file's name
// ("is empty", "is not valid JSON (…)", "could not be read (…)", or a path-kind refusal).
//
// Bad JSON is described in our own words, by kind and place ("a colon was expected at line 3,
// column 14"), never with the parser's message: Node's quotes an excerpt of the file, and a config
// is where a key gets pasted — an excerpt cut mid-key gets past any scrubbing of whole keys.
import { readFileSync } from "node:fs";
import { errorMessage } from "../text/error-message";
import { whyNot } from "./path-kind";

export type JsonFileRead = { ok: true; value: unknown } | { ok: false; why: string };

export function readJsonFile(abs: string): JsonFileRead {
  const unusable = whyNot("file", abs);
  if (unusable) return { ok: false, why: unusable };
  let text: string;
  try {
    text = readFileSync(abs, "utf8");
  } catch (error) {
    return { ok: false, why: `could not be read (${(error as NodeJS.ErrnoException).code ?? errorMessage(error)})` };
  }
  // Windows editors may open a file with a byte-order mark, which JSON.parse refuses.
  if (text.startsWith("\uFEFF")) text = text.slice(1);
  if (text.trim() === "") return { ok: false, why: "is empty" };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, why: `is not valid JSON (${jsonProblem(text, errorMessage(error))})` };
  }
}

/** What the parser's `message` says is wrong with `text`, and where, without a word of the text. */
function jsonProblem(text: string, message: string): string {
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
