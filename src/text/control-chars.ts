// Control characters: web text and file names must not carry them (terminal escapes, NULs), and
// the analyser needs a cheap ASCII test. Written as character-code loops rather than regexes over
// control ranges, which are easy to get subtly wrong and which the linter rightly distrusts.

/** True when some character is outside 7-bit ASCII. */
export function hasNonAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return true;
  return false;
}

function isControl(code: number, keepLineBreaks: boolean): boolean {
  if (keepLineBreaks && (code === 0x0a || code === 0x0d || code === 0x09)) return false;
  return code < 0x20 || (code >= 0x7f && code <= 0x9f);
}

/**
 * Removes C0/C1 control characters, and the escape sequences that start with one whole: a CSI
 * (`ESC [ … final byte`: colours, clear screen) and a control string (`ESC ]`, `ESC P`, `ESC X`,
 * `ESC ^`, `ESC _` up to BEL or the string terminator: OSC 52 clipboard writes, OSC 8 links,
 * window titles, DCS), so no payload is left behind as text. With `keepLineBreaks`, tabs and line
 * breaks stay.
 */
export function removeControlChars(text: string, keepLineBreaks = false, options: ControlCharOptions = {}): string {
  let out = "";
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (!isControl(code, keepLineBreaks)) continue;
    out += text.slice(from, i);
    if (options.visible) out += visibleControl(code);
    if (code === 0x1b) i = lastOfSequence(text, i, options.shortEscapes === true);
    from = i + 1;
  }
  return from === 0 ? text : out + text.slice(from);
}

export interface ControlCharOptions {
  /**
   * Also remove what a short escape takes (`ESC c` reset, `ESC ( B` charset, `ESC 7`): a terminal
   * obeys those, so text bound for one drops them whole. Elsewhere only the ESC goes.
   */
  shortEscapes?: boolean;
  /**
   * Write each removed character where it stood as text one can read (`\n`, `\t`, `\x07`), and an
   * escape sequence as `\x1b` alone, its payload still gone: for a name, which must not pass for
   * another name nor carry a payload.
   */
  visible?: boolean;
}

function visibleControl(code: number): string {
  if (code === 0x0a) return "\\n";
  if (code === 0x0d) return "\\r";
  if (code === 0x09) return "\\t";
  return `\\x${code.toString(16).padStart(2, "0")}`;
}

/**
 * Where the escape sequence that starts at `start` (an ESC) ends: the index just past what
 * `removeControlChars` takes with it (the ESC alone for a short escape without `shortEscapes`).
 * The scrubber reads a text as a terminal or a note shows it by this rule: a copy of it disagreed once.
 */
export function escapeSequenceEnd(text: string, start: number, shortEscapes: boolean): number {
  return Math.min(lastOfSequence(text, start, shortEscapes) + 1, text.length);
}

/** Index of the last character of the escape sequence that starts at `start` (an ESC). */
function lastOfSequence(text: string, start: number, shortEscapes: boolean): number {
  const kind = text[start + 1];
  if (kind === "[") {
    let j = start + 2;
    while (j < text.length && !(text.charCodeAt(j) >= 0x40 && text.charCodeAt(j) <= 0x7e)) j++;
    return j;
  }
  if (kind !== "]" && kind !== "P" && kind !== "X" && kind !== "^" && kind !== "_") return shortEscapes ? lastOfShortEscape(text, start) : start;
  // A control string ends at BEL, ESC \ or its 8-bit form; unterminated, at the end of the text.
  for (let j = start + 2; j < text.length; j++) {
    const code = text.charCodeAt(j);
    if (code === 0x07 || code === 0x9c) return j;
    if (code === 0x1b) return text[j + 1] === "\\" ? j + 1 : j - 1;
  }
  return text.length - 1;
}

/** ESC, intermediate bytes (space to /), one final byte (0 to ~). */
function lastOfShortEscape(text: string, start: number): number {
  let j = start + 1;
  while (j < text.length && text.charCodeAt(j) >= 0x20 && text.charCodeAt(j) <= 0x2f) j++;
  return j < text.length && text.charCodeAt(j) >= 0x30 && text.charCodeAt(j) <= 0x7e ? j : j - 1;
}

/** Bidirectional embeddings, overrides and isolates: they make text read differently from what it is. */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;

/** Text without bidirectional controls. */
export function removeBidiControls(text: string): string {
  return text.replace(BIDI_CONTROLS, "");
}
