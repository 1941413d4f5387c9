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
 * Removes C0/C1 control characters (and ANSI escape sequences, which start with one). With
 * `keepLineBreaks`, tabs and line breaks stay.
 */
export function removeControlChars(text: string, keepLineBreaks = false): string {
  let out = "";
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (!isControl(code, keepLineBreaks)) continue;
    out += text.slice(from, i);
    // ESC [ … final byte: skip the whole ANSI sequence, not just the ESC.
    if (code === 0x1b && text[i + 1] === "[") {
      let j = i + 2;
      while (j < text.length && !(text.charCodeAt(j) >= 0x40 && text.charCodeAt(j) <= 0x7e)) j++;
      i = j;
    }
    from = i + 1;
  }
  return from === 0 ? text : out + text.slice(from);
}

/** Bidirectional embeddings, overrides and isolates: they make text read differently from what it is. */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;

/** Text without bidirectional controls. */
export function removeBidiControls(text: string): string {
  return text.replace(BIDI_CONTROLS, "");
}
