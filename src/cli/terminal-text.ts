// The one terminal sanitiser: everything the CLI prints goes through here. Titles, snippets, note
// names and error bodies come from the web and from other people's notes, and a terminal obeys
// what it is sent: clear the screen (CSI), write the clipboard (OSC 52), show a link whose text
// lies about its target (OSC 8), set the window title, answer back. None of that may reach it.
// Escape sequences go whole, payload and all — CSI, control strings and the short escapes a
// terminal also obeys (text/control-chars.ts, the base rule, with `shortEscapes`) — then the
// remaining control and bidi characters, keeping line breaks and tabs; a lone carriage return
// (which would let a title overwrite the line it is on) goes too. Secrets are scrubbed on the way out.
import { removeBidiControls, removeControlChars } from "../text/control-chars";
import { secretScrubber } from "../text/secret-scrub";
import { renderStyled, type StyledText } from "./terminal-style";

/** Text a terminal shows as text: no escape sequence, no control character but \n and \t, no bidi control. */
export function terminalText(text: string): string {
  const lines = text.replace(/\r\n?/g, (m) => (m === "\r\n" ? "\n" : ""));
  return removeBidiControls(removeControlChars(lines, true, { shortEscapes: true }));
}

/**
 * `JSON.stringify(value, null, 2)` as a terminal may receive it: JSON escapes C0 controls itself;
 * DEL, C1 controls, bidi controls and line separators are written as `\u` escapes too, so the
 * data stays whole for a program and inert for a terminal.
 */
export function terminalJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(/[\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * A name shown inside a line of output (a note's path or title, a result's title): its control
 * characters written visibly (`\n`, `\x07`; an escape sequence as `\x1b`, its payload dropped) and
 * its bidi controls as `\u202e`, rather than obeyed or silently dropped. So a file named with a line
 * break cannot fake a line of results, nor `a\x1b[31mb` show as `ab`, a name no file has.
 */
export function visibleName(name: string): string {
  const controls = removeControlChars(name, false, { shortEscapes: true, visible: true });
  return controls.replace(/[\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
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
