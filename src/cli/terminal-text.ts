// The one terminal sanitiser: everything the CLI prints goes through here. Titles, snippets, note
// names and error bodies come from the web and from other people's notes, and a terminal obeys
// what it is sent: clear the screen (CSI), write the clipboard (OSC 52), show a link whose text
// lies about its target (OSC 8), set the window title, answer back. None of that may reach it.
// Whole escape sequences are removed here, payload and all (a bare "]52;c;…" left behind by
// dropping only the ESC would still be junk); text/control-chars.ts then removes the remaining
// control and bidi characters, keeping line breaks and tabs. Secrets are scrubbed on the way out.
import { removeBidiControls, removeControlChars } from "../text/control-chars";
import { secretScrubber } from "../text/secret-scrub";
import { renderStyled, type StyledText } from "./terminal-style";

const ESC = 0x1b;
const BEL = 0x07;

/** Text a terminal shows as text: no escape sequence, no control character but \n and \t, no bidi control. */
export function terminalText(text: string): string {
  const withoutSequences = removeEscapeSequences(text).replace(/\r\n?/g, (m) => (m === "\r\n" ? "\n" : ""));
  return removeBidiControls(removeControlChars(withoutSequences, true));
}

/**
 * `JSON.stringify(value, null, 2)` as a terminal may receive it: JSON escapes C0 controls itself;
 * DEL, C1 controls, bidi controls and line separators are written as `\u` escapes too, so the
 * data stays whole for a program and inert for a terminal.
 */
export function terminalJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(/[\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

export interface TerminalOutput {
  out(text: string): void;
  err(text: string): void;
  /** Redraws one live line on a terminal (null clears it); see cli-io.ts. */
  statusLine?: (text: string | null) => void;
}

/** Styled output: each part sanitised and scrubbed, then coloured when `colour` says so. */
export interface StyledOutput {
  outStyled(parts: StyledText): void;
  errStyled(parts: StyledText): void;
}

/**
 * `io` whose `out`, `err` and live line print only sanitised text, without any of these secrets
 * in any form; `outStyled`/`errStyled` add colour (terminal-style.ts) only after that.
 */
export function terminalOutput<T extends TerminalOutput>(
  io: T,
  secrets: Iterable<string | null | undefined>,
  colour: { out: boolean; err: boolean } = { out: false, err: false },
): T & StyledOutput {
  const scrub = secretScrubber(secrets);
  const clean = (text: string) => terminalText(scrub.text(text));
  const statusLine = io.statusLine;
  return {
    ...io,
    out: (text: string) => io.out(clean(text)),
    err: (text: string) => io.err(clean(text)),
    outStyled: (parts: StyledText) => io.out(renderStyled(parts, colour.out, clean)),
    errStyled: (parts: StyledText) => io.err(renderStyled(parts, colour.err, clean)),
    ...(statusLine ? { statusLine: (text: string | null) => statusLine(text === null ? null : clean(text).replace(/\n/g, " ")) } : {}),
  };
}

/** ESC [ … (CSI), ESC ] … (OSC), ESC P/X/^/_ … (DCS, SOS, PM, APC) and two-character escapes, removed whole. */
function removeEscapeSequences(text: string): string {
  if (!text.includes("\u001b")) return text;
  let out = "";
  let i = 0;
  while (i < text.length) {
    if (text.charCodeAt(i) !== ESC) {
      out += text[i++];
      continue;
    }
    i = endOfSequence(text, i);
  }
  return out;
}

/** Index just past the escape sequence that starts at `start` (an ESC). */
function endOfSequence(text: string, start: number): number {
  const kind = text[start + 1];
  if (kind === undefined) return start + 1;
  if (kind === "[") {
    let j = start + 2;
    while (j < text.length && !isFinalByte(text.charCodeAt(j))) j++;
    return j + 1;
  }
  if (kind === "]" || kind === "P" || kind === "X" || kind === "^" || kind === "_") return endOfString(text, start + 2);
  // ESC, intermediate bytes (space to /), one final byte: charset switches, resets, keypad modes.
  let j = start + 1;
  while (j < text.length && text.charCodeAt(j) >= 0x20 && text.charCodeAt(j) <= 0x2f) j++;
  return j + 1;
}

/** A control string ends at BEL, ESC \ (string terminator) or its 8-bit form; unterminated, at the end. */
function endOfString(text: string, from: number): number {
  for (let j = from; j < text.length; j++) {
    const code = text.charCodeAt(j);
    if (code === BEL || code === 0x9c) return j + 1;
    if (code === ESC) return text[j + 1] === "\\" ? j + 2 : j;
  }
  return text.length;
}

function isFinalByte(code: number): boolean {
  return code >= 0x40 && code <= 0x7e;
}
