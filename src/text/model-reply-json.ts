// The JSON a chat model's reply holds, when asked for JSON only: the one home of that rule (the
// judge's model check and the reranker had a copy each, and one refused what the other took).
// Models wrap their JSON in a fence even when told not to, as ```json or ~~~, on one line or
// several, with CRLF line ends, a sentence before it or a remark after it. A reply that starts with
// an object ends it where that object closes. JSON after prose is not taken: nothing marks its start.
import { closesFence, fenceLine, fenceOpening, type FenceLine } from "./code-fences";

/**
 * When the reply starts as an object does (`{`), that object (a remark after it left out), or the
 * reply trimmed when it never closes; one that starts with `[`, the reply trimmed; else the code of the first fenced block in it
 * (closed or not, its language whatever it says), else the reply trimmed: the caller's JSON.parse
 * then says what is wrong. Read in one pass over the lines, whatever the reply holds.
 */
export function jsonInModelReply(reply: string): string {
  const trimmed = reply.trim();
  // An object is what every caller asks for; a reply opening with `[1] …` is prose citing a source,
  // and read to its first `]` it became the array [1].
  if (trimmed.startsWith("{")) return firstValue(trimmed) ?? trimmed;
  if (trimmed.startsWith("[")) return trimmed;
  return oneLineFence(trimmed) ?? firstFencedCode(trimmed) ?? trimmed;
}

/**
 * The JSON value `text` starts with, up to the bracket that closes it (brackets inside strings not
 * counted); null when none does. A model told to send JSON alone adds "Let me know if…" after it:
 * the check called the whole reply "not JSON" and threw a good verdict away.
 */
function firstValue(text: string): string | null {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
    } else if (c === "{" || c === "[") {
      depth++;
    } else if ((c === "}" || c === "]") && --depth === 0) {
      return text.slice(0, i + 1);
    }
  }
  return null;
}

/** What a fence opened and closed on one line holds (```json {"order": [2]}```), its language taken off; null when the text is not such a line. */
function oneLineFence(text: string): string | null {
  if (text.includes("\n")) return null;
  const fence = fenceLine(text);
  if (fence === null || fence.indent !== "") return null;
  const inner = withoutClosingRun(fence, fence.rest);
  return inner === null ? null : withoutJsonWord(inner.trim());
}

/** The code of the first fenced block, lines joined with `\n`; null when no line opens one. */
function firstFencedCode(text: string): string | null {
  const lines = text.split("\n").map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
  const openAt = lines.findIndex((line) => fenceOpening(line) !== null);
  if (openAt < 0) return null;
  const open = fenceOpening(lines[openAt])!;
  const code: string[] = [];
  for (const line of lines.slice(openAt + 1)) {
    if (closesFence(open, line)) return code.join("\n");
    code.push(line);
  }
  // Never closed on a line of its own: a closer at the end of the last line (`{"a": 1}```) still ends it.
  const last = code.length > 0 ? withoutClosingRun(open, code[code.length - 1].trimEnd()) : null;
  if (last !== null) code[code.length - 1] = last;
  return code.join("\n");
}

/** `text` without the run of the fence's character, as long as its marker or longer, it ends with; null when it ends with none. */
function withoutClosingRun(fence: FenceLine, text: string): string | null {
  const char = fence.marker[0];
  let start = text.length;
  while (start > 0 && text[start - 1] === char) start--;
  return text.length - start >= fence.marker.length ? text.slice(0, start) : null;
}

/** A one-line fence's language, `json` (any case), is no part of its JSON. */
function withoutJsonWord(inner: string): string {
  return /^json(?![a-z0-9])/i.test(inner) ? inner.slice(4).trim() : inner;
}
