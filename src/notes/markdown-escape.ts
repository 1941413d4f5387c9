// The one escaper: text from the web or a model (a title, a snippet, a message) written into a
// note so that Obsidian renders exactly that text. A note is rendered by Obsidian and read as raw
// text by whatever plugins the user has (Dataview, Templater…), so escaping must hold in both:
// nothing may become a link, embed, tag, HTML, callout, heading, comment or inline field.
// Trace notes, source notes and the copied answer all go through here; a second escaper is a
// bug waiting to disagree with this one (two did: one kept bidi controls, the other wrote `\<`).
import { removeBidiControls, removeControlChars } from "../text/control-chars";

/** Markdown and Obsidian punctuation that is syntax wherever it stands. */
const ALWAYS_SYNTAX = /[\\`*[\]#|~$]/g;
/** `_` only makes emphasis at a word's edge, so `snake_case` is left readable. */
const EDGE_UNDERSCORE = /(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu;
/** Syntax only when doubled: `==highlight==`, `%%comment%%`, Dataview's `field:: value`. */
const DOUBLED_SYNTAX = /={2,}|%{2,}|:{2,}/g;
/** A block id (` ^id`) starts after white space. */
const BLOCK_ID = /(^|\s)\^/g;
/** `&lt;` in the text means those four characters, not `<`. */
const ENTITY_LIKE = /&(?=#?[A-Za-z0-9]+;)/g;
/**
 * What a line may start with to become a list item (`- `, `+ `, `1. `), a setext heading
 * underline or a thematic break (`=`, `---`). `#` and `>` are escaped everywhere already.
 */
const LINE_START_MARKER = /^([ \t]*)([-+=])(?=\s|$|\2)|^([ \t]*\d+)([.)])(?=\s|$)/gm;

/**
 * Block quote and list markers a line's content may stand behind, with any spaces or tabs before
 * each: a line indented under a list item is still in it (CommonMark), so a heading or a code
 * fence after them is one. inert-answer.ts and untrusted-markdown.ts both look behind these.
 * Spaces between markers belong to the next marker's run alone (a list marker keeps the one it
 * needs): when two runs could share them, a line of 18 markers that is no fence took 6 s.
 */
export const CONTAINER_MARKERS = String.raw`(?:[ \t]*>|[ \t]*(?:[-+*]|\d{1,9}[.)])[ \t])*`;

/**
 * MathJax macros that link (`\href` to `obsidian://` runs another plugin's command), style or
 * place the page over Obsidian's own UI (`\style`, `\class`, `\bbox[…]`), or load code
 * (`\require`). A backslash before one makes `\\` (a line break in math) and the word: in text it
 * still shows as written. An even run of backslashes before it is no macro and is left alone.
 */
export const LIVE_MATH_MACRO = /(?<!\\)((?:\\\\)*)\\(?=(?:href|url|class|cssId|style|data|require|bbox|mmlToken|unicode|html)(?![A-Za-z]))/g;

/** How far a line is indented, a tab reaching the next multiple of four columns. */
export function columnsOfIndent(line: string): number {
  let columns = 0;
  for (const ch of line) {
    if (ch === " ") columns++;
    else if (ch === "\t") columns += 4 - (columns % 4);
    else break;
  }
  return columns;
}

/**
 * Untrusted text as inert markdown that renders as that text. Control and bidi characters go;
 * markup characters get a backslash; `<` and `>` become entities, so the raw text never holds a
 * tag or a Templater `<%` either. Line breaks are kept (each line start is neutralised too).
 */
export function escapeMarkdownText(text: string): string {
  const clean = removeControlChars(removeBidiControls(text.replace(/\r\n?/g, "\n")), true);
  return clean
    .replace(ALWAYS_SYNTAX, (c) => `\\${c}`)
    .replace(EDGE_UNDERSCORE, "\\_")
    .replace(DOUBLED_SYNTAX, (run) => run.replace(/./g, "\\$&"))
    .replace(BLOCK_ID, "$1\\^")
    .replace(ENTITY_LIKE, "\\&")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(LINE_START_MARKER, (_m, lead?: string, mark?: string, number?: string, dot?: string) =>
      lead !== undefined ? `${lead}\\${mark}` : `${number}\\${dot}`,
    );
}

/** Untrusted text as a quote block, line by line as it came: `> line`, `>` for a blank line. */
export function quoteLines(text: string): string {
  // Split again after escaping: the escaper makes a lone `\r` (and any break it keeps) a line
  // feed, and a line that left the quote would read as the note's own words.
  return text
    .split(/\r\n?|\n/)
    .flatMap((raw) => escapeMarkdownText(raw.trim()).split("\n"))
    .map((line) => (line.trim() === "" ? ">" : `> ${line.trim()}`))
    .join("\n");
}

/** Untrusted text as one quote block of paragraphs: each paragraph on one line, blank quote lines between. */
export function quoteParagraphs(text: string): string {
  const paragraphs = text
    .replace(/\r\n?/g, "\n")
    .split(/\n\s*\n/)
    .map((p) => p.replace(/\s+/g, " ").trim())
    .filter((p) => p !== "");
  return paragraphs.map((p) => `> ${escapeMarkdownText(p)}`).join("\n>\n");
}

/**
 * One line of untrusted text for a single-line place Obsidian shows as text (a YAML property):
 * control characters go, line breaks become spaces, a run of `[` or of `]` becomes one bracket,
 * because Obsidian links property values written `[[…]]` (the whole run: taking one bracket from
 * each pair of `[[[x]]]` leaves `[[x]]`), and `<%` gets a space, because Templater runs a command
 * wherever it stands in a new file, properties included.
 *
 * Dataview renders a text property as markdown (a `TABLE title, description` over the sources), so
 * nothing that acts may form there either: a tag gets a space after its `<` (`<img src>` would load
 * a page's pixel, `<iframe>` a page), a link or an image one after its `]`, a MathJax macro that
 * links or styles (`LIVE_MATH_MACRO`) a backslash where a `$` could make math of it; and a line
 * holding an inline query (`` `= …` ``, `` `$= …` ``, which Dataview runs where it is rendered) has
 * every backtick escaped, so no code span forms in it.
 */
export function plainLine(text: string): string {
  const line = removeControlChars(removeBidiControls(text), true)
    .replace(/\[{2,}|\]{2,}/g, (run) => run[0])
    .replace(/<(?=[A-Za-z/!?%])/g, "< ")
    .replace(/\]\(/g, "] (")
    .replace(/\s+/g, " ")
    .trim();
  // Math is only read between `$`s: without one, `\url` is a LaTeX page's title, `\data` a Windows
  // folder (`replayed_from`), and a doubled backslash showed in the property for nothing.
  const inert = line.includes("$") ? line.replace(LIVE_MATH_MACRO, "$1\\\\") : line;
  return INLINE_QUERY.test(inert) ? inert.replace(/`/g, "\\`") : inert;
}

/** A backtick run followed by Dataview's inline query (`=`) or inline JavaScript (`$=`) prefix, which it trims before. */
const INLINE_QUERY = /`\s*\$?=/;
