// A JSON file named on the command line (a config, a cases file, a recorded exchange), read in one
// place so each says what is wrong with it the same way: the words follow the file's name
// ("is empty", "is not valid JSON (…)", "could not be read (…)", or a path-kind refusal).
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
  let text: string;
  try {
    const bytes = readFileSync(abs);
    // The decoder drops a byte-order mark, which JSON.parse refuses (Windows editors write one).
    text = new TextDecoder(encodingOf(bytes)).decode(bytes);
  } catch (error) {
    return { ok: false, why: `could not be read (${(error as NodeJS.ErrnoException).code ?? errorMessage(error)})` };
  }
  if (text.trim() === "") return { ok: false, why: "is empty" };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, why: `is not valid JSON (${jsonProblem(text, errorMessage(error))})` };
  }
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
