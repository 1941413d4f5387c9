// A JSON file named on the command line (a config, a cases file, a recorded exchange), read in one
// place so each says what is wrong with it the same way: the words follow the file's name
// ("is empty", "is not valid JSON (…)", "is not UTF-8 text (…)", "could not be read (…)", or a path-kind refusal).
//
// Bad JSON is described in our own words, by kind and place ("a colon was expected at line 3,
// column 14"), never with the parser's message: Node's quotes an excerpt of the file, and a config
// is where a key gets pasted — an excerpt cut mid-key gets past any scrubbing of whole keys.
import { readFileSync } from "node:fs";
import { errorMessage } from "../text/error-message";
import { jsonProblem } from "../text/json-problem";
import { whyNot } from "./path-kind";

export type JsonFileRead = { ok: true; value: unknown } | { ok: false; why: string };

export function readJsonFile(abs: string): JsonFileRead {
  const unusable = whyNot("file", abs);
  if (unusable) return { ok: false, why: unusable };
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(abs);
  } catch (error) {
    return { ok: false, why: `could not be read (${(error as NodeJS.ErrnoException).code ?? errorMessage(error)})` };
  }
  const text = decoded(bytes);
  if (text === null) return { ok: false, why: `is not UTF-8 text (at ${placeOfFirstBadByte(bytes)}): save it as UTF-8` };
  if (text.trim() === "") return { ok: false, why: "is empty" };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, why: `is not valid JSON (${jsonProblem(text, errorMessage(error))})` };
  }
}

/**
 * The file's text, or null when its bytes are not text in their encoding. The decoder drops a
 * byte-order mark, which JSON.parse refuses (Windows editors write one). Not read leniently: a
 * Windows editor's ANSI "Archivé" became "Archiv\uFFFD", a folder name no folder has, without a word.
 */
function decoded(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder(encodingOf(bytes), { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

/**
 * "line L, column C" of the first byte that is not text: the longest start that decodes (a
 * sequence cut at its end allowed) is found by halving, as any start of a good one decodes too.
 */
function placeOfFirstBadByte(bytes: Uint8Array): string {
  const decodesUpTo = (end: number): boolean => {
    try {
      new TextDecoder(encodingOf(bytes), { fatal: true }).decode(bytes.subarray(0, end), { stream: true });
      return true;
    } catch {
      return false;
    }
  };
  let good = 0;
  let bad = bytes.length;
  while (bad - good > 1) {
    const middle = Math.floor((good + bad) / 2);
    if (decodesUpTo(middle)) good = middle;
    else bad = middle;
  }
  // The whole characters before it: a sequence left open at the end of the good start is where it begins.
  const before = new TextDecoder(encodingOf(bytes)).decode(bytes.subarray(0, good), { stream: true });
  const lines = before.split("\n");
  return `line ${lines.length}, column ${[...lines[lines.length - 1]].length + 1}`;
}

/**
 * UTF-8, unless a byte-order mark says UTF-16: what Windows PowerShell 5's `>` and `Out-File`
 * write, read as UTF-8 it is "an unexpected character at line 1, column 1" in a file that looks right.
 */
function encodingOf(bytes: Uint8Array): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  return "utf-8";
}
