// DESIGN invariant 3, against a model server that hides part of the key it echoes from the scrubber's
// eye but not from a reader's: a BEL, a colour code, a clipboard escape, a zero-width space, a soft
// hyphen or a markdown escape between two of its characters. The CLI's terminal sanitiser took the
// control characters out and printed the key whole; a note showed it with the rest unseen. Every
// output is read as a reader sees it, and the key must not be there.
import { describe, expect, it } from "vitest";
import { removeControlChars } from "../../src/text/control-chars";
import { cli, completion, everyOutput, firstAdmittedKey, hostileServer, KEYS, modelFlag, sandboxEachTest, traceNotes, VAULT_QUESTION, whereFound } from "./hostile-kit";

const MODEL_KEY = KEYS.OPENAI_API_KEY;
const place = sandboxEachTest();

/** `text` as a reader sees it: no control character, escape sequence (raw or JSON-escaped), unseen character or markdown escape. */
function asSeen(text: string): string {
  // JSON-escaped as --json and the trace's data block write them: read back first.
  const unescaped = text.replace(/\\u(00[0-9a-f]{2}|200[b-f]|206[0-9a-f]|feff)/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return removeControlChars(unescaped, true, { shortEscapes: true })
    .replace(/[\u00ad\u200b-\u200f\u2060-\u206f\ufeff]/g, "")
    .replace(/\\(?=[!-/:-@[-`{-~])/g, "");
}

/** The key with `gap` before its fourth character, a hyphen (what a markdown escape escapes). */
const split = (gap: string) => `${MODEL_KEY.slice(0, 3)}${gap}${MODEL_KEY.slice(3)}`;

describe("a model server that hides part of the key it echoes from the scrubber, not from a reader", () => {
  const gaps: [string, string][] = [
    ["a BEL", "\u0007"],
    ["a colour code", "\u001b[0m"],
    ["a clipboard escape", "\u001b]52;c;eA==\u0007"],
    ["a zero-width space", "\u200b"],
    ["a soft hyphen", "\u00ad"],
    ["a markdown escape", "\\"],
  ];

  for (const [what, gap] of gaps) {
    it(`with ${what} in it, in the answer and the model's name`, async () => {
      place.server = await hostileServer((req) => ({ body: completion(`Automerge keeps history [${firstAdmittedKey(req)}]. Your key is ${split(gap)}.`, split(gap)) }));
      const text = await cli(place.box, ["research", VAULT_QUESTION, "--trace", ...modelFlag(place.server)], { OPENAI_API_KEY: MODEL_KEY });
      const json = await cli(place.box, ["research", VAULT_QUESTION, "--trace", ...modelFlag(place.server), "--json"], { OPENAI_API_KEY: MODEL_KEY });
      expect([text.code, json.code]).toEqual([0, 0]);
      expect(traceNotes(place.box).length).toBe(2);
      const outputs = { ...everyOutput(place.box, text), "--json stdout": json.out, "--json stderr": json.err };
      // The server did echo it: the answer's place holds the mark.
      expect(text.out).toContain("Your key is [redacted].");
      const seen = Object.fromEntries(Object.entries(outputs).map(([name, output]) => [name, asSeen(output)]));
      expect(whereFound(MODEL_KEY, seen)).toEqual([]);
    });
  }
});
