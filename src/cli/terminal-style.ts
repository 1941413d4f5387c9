// Colour without trusting the text: a line is built from parts, each plain or with a style; every
// part's text is sanitised first (terminal-text.ts) and only then wrapped in the ANSI codes we
// choose. Web text or a note can never bring its own escape codes, and a style cannot be forged.
// Without colour a style is nothing, except a search highlight, which is «marked» — a mark that
// means nothing to Obsidian's link syntax (`[term]` inside `![[…]]` did).

export type StyleName = "bold" | "highlight" | "dim" | "ok" | "fail" | "warn";

export interface StyledPart {
  text: string;
  style: StyleName;
}

/** A line (or lines) to print: plain strings and styled parts, in order. */
export type StyledText = (string | StyledPart)[];

const ANSI: Record<StyleName, [string, string]> = {
  bold: ["\u001b[1m", "\u001b[22m"],
  highlight: ["\u001b[1;33m", "\u001b[22;39m"],
  dim: ["\u001b[2m", "\u001b[22m"],
  ok: ["\u001b[32m", "\u001b[39m"],
  fail: ["\u001b[31m", "\u001b[39m"],
  warn: ["\u001b[33m", "\u001b[39m"],
};

/** A styled part. */
export function styled(style: StyleName, text: string): StyledPart {
  return { text, style };
}

/**
 * The text to print. `clean` sanitises (and scrubs) each part's own text; the codes this function
 * adds come after that, so they are the only escape codes in the result.
 */
export function renderStyled(parts: StyledText, colour: boolean, clean: (text: string) => string = (t) => t): string {
  let out = "";
  for (const part of parts) {
    if (typeof part === "string") {
      out += clean(part);
      continue;
    }
    const text = clean(part.text);
    if (colour) out += `${ANSI[part.style][0]}${text}${ANSI[part.style][1]}`;
    else out += part.style === "highlight" ? `«${text}»` : text;
  }
  return out;
}
