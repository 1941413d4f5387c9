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
