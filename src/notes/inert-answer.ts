// The one rule for an answer's markdown wherever it goes — the panel (rendered), a note the user
// copies or inserts it into, the trace note. A model that read web pages wrote it, so it may carry
// a page's links, embeds, HTML or code meant for another plugin. Made inert, nothing in it can
// become a link, an embed, an image, HTML, a tag, a footnote, a plugin's code block, a Dataview
// inline query or field, a Templater command, a comment, a highlight, math or a block id;
// emphasis, lists, tables, quotes and code stay. Citation brackets (`[src:…]`,
// `[ext:brave:…]`) stay as written: they are ours, and alone they are no link in any markdown.
// So the only links an answer has are its citations, to the sources it cites.
//
// Headings stay, two levels down (`#` → `###`, `##` → `####`, at most `######`), and a setext
// underline (`Title` over `---` or `=`) is shown as text: the trace note's own sections are `#`
// and `##` (`## Answer`, `## Vault evidence`, `## Outside vault`, `## Trace data`…), so an answer
// cannot open a section of the note it is written into — no forged `## Sources` — and an
// answer inserted into a user's note sits under the user's headings, not beside them.

import { BacktickRuns } from "../text/backtick-runs";
import { removeBidiControls, removeControlChars } from "../text/control-chars";
import { fenceLine as readFenceLine, isCloserOf, opensBlock, type FenceLine } from "../text/code-fences";
import { CONTAINER_MARKERS, columnsOfIndent, escapeMarkdownText } from "./markdown-escape";

/**
 * One bracket of citations: `[src:…]`, `[ext:brave:…]`, or several separated by `;` or `,` (never an
 * escaped one). In any case, as verification reads them (`[SRC:0A1B…]` passes it): a citation the
 * check passed must show as one, with its entry under Sources.
 */
export const CITATION_BRACKET = /(?<!\\)\[((?:src|ext):[^[\]\\\n]{1,400})\]/gi;
const CITATION_AT = /\[((?:src|ext):[^[\]\\\n]{1,400})\]/iy;
const KEY_ATTEMPT = /^(?:src|ext):\S*$/i;

/** The keys in a bracket's inside, or null when it is not a citation bracket. */
export function citationKeys(inside: string): string[] | null {
  const parts = inside.split(/[;,]/).map((part) => part.trim());
  return parts.every((part) => KEY_ATTEMPT.test(part)) ? parts.map((p) => p.toLowerCase()) : null;
}

/**
 * A heading may stand behind quote and list markers (`\t#` or `    ##` after one is a heading). A
 * line that is really indented code is moved down too: only its text changes.
 */
const ATX_HEADING = new RegExp(String.raw`^(${CONTAINER_MARKERS}[ \t]*)(#{1,6})(?=[ \t]|$)`);
const SETEXT_UNDERLINE = new RegExp(String.raw`^(${CONTAINER_MARKERS}[ \t]*)([=-])(\2*[ \t]*)$`);
/** How far an answer's headings go down: below the trace note's `##` sections. */
const HEADING_DEMOTION = 2;

/**
 * The run of backticks or tildes a line inside a fence starts with, where it may close the fence:
 * up to three columns past the fence's indent (a tab counted to the next multiple of four). Under a
 * list item (`1. x` over `   ````), CommonMark closes the item's fence there; read as no closer, the
 * lines after it were code here and markdown to a reader, a `dataviewjs` block live among them.
 */
function closingRun(line: string, fenceIndent: string): FenceLine | null {
  const spaces = /^[ \t]*/.exec(line)![0];
  if (columnsOfIndent(line) > fenceIndent.length + 3) return null;
  return readFenceLine(line.slice(spaces.length));
}

/** A line separator or paragraph separator: some readers break a line there, so a fence line holding one is shown as text. */
const LINE_SEPARATOR = /[\u2028\u2029]/;

/**
 * The answer without control characters, terminal escape sequences (payload and all) and bidi
 * controls, as the escaper leaves every other text of a note: a model (or a page it quoted) wrote
 * an OSC 52 clipboard write into the trace note, which `cat` or `grep` in a terminal then obeyed.
 * A form feed and a vertical tab stay: markdown reads them as white space, as the fences below do.
 */
function withoutControls(text: string): string {
  return text
    .split(/([\f\v])/)
    .map((part, i) => (i % 2 === 1 ? part : removeBidiControls(removeControlChars(part, true))))
    .join("");
}

export function inertAnswerMarkdown(markdown: string): string {
  const out: string[] = [];
  /** The open fence: its backticks or tildes, and the spaces it was indented by. */
  let fence: { marker: string; indent: string } | null = null;
  let afterText = false;
  const lines = withoutControls(markdown.replace(/\r\n?/g, "\n")).split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const fenceLine = readFenceLine(line);
    if (fence === null && fenceLine !== null && opensBlock(fenceLine) && !LINE_SEPARATOR.test(fenceLine.rest)) {
      // The info string would hand the code to another plugin's processor (dataviewjs…).
      fence = { marker: fenceLine.marker, indent: fenceLine.indent };
      out.push(`${fenceLine.indent}${fenceLine.marker}`);
    } else if (fence !== null) {
      const run = closingRun(line, fence.indent);
      const closes = run !== null && isCloserOf(fence, run);
      const closesLaxly = run !== null && !closes && isCloserOf(fence, { ...run, rest: "" });
      const outdented = line.trim() !== "" && columnsOfIndent(line) < fence.indent.length;
      if (outdented || closesLaxly) {
        // Closed here for every reader, and the line read again as a line of its own (it may open a
        // fence, be a heading or the text over an underline). Less indented than an indented fence:
        // under a list item the fence was the item's and ended with it, so what follows is markdown.
        // A run with more after it than spaces and tabs (text, a no-break space, a form feed): no
        // close in CommonMark, but one in laxer readers, and kept open here it read as one and
        // left the block open to swallow the note's sections.
        out.push(`${fence.indent}${fence.marker}`);
        lines[i--] = outdented ? line : run!.rest;
        fence = null;
        afterText = false;
        continue;
      }
      if (closes) {
        // Four columns in or more, it closes only under a list item: the fence's own closer closes it for every reader.
        out.push(columnsOfIndent(line) > 3 ? `${fence.indent}${fence.marker}` : line);
        fence = null;
      } else {
        out.push(inertCode(line));
      }
    } else {
      const shown = inertLine(fenceInContainerAsText(headingsDown(line, afterText)));
      out.push(shown);
      afterText = showsText(shown, afterText);
      continue;
    }
    afterText = false;
  }
  // An unclosed fence would swallow everything after the answer (in a note: the evidence).
  if (fence !== null) out.push(`${fence.indent}${fence.marker}`);
  return out.join("\n");
}

const LEADING_CONTAINERS = new RegExp(`^${CONTAINER_MARKERS}`);
// Each run of spaces belongs to the next marker (or the end) alone; shared, 24 markers took 0.4 s.
const ONLY_QUOTE_MARKERS = /^(?:[ \t]*>)*[ \t]*$/;

/**
 * Whether a reader sees paragraph text on a line as written out, so that a `---` or `===` under it
 * would make a heading: text after the markers (an escaped marker, `\- `, is text); or, after text,
 * markers that cannot interrupt it: an empty list item (`* `, `1. `) is read as more of the
 * paragraph above (CommonMark), an empty quote (`>`) is not.
 */
function showsText(shown: string, afterText: boolean): boolean {
  if (shown.replace(LEADING_CONTAINERS, "").trim() !== "") return true;
  return afterText && !ONLY_QUOTE_MARKERS.test(shown);
}

const TILDE_FENCE_IN_CONTAINER = new RegExp(String.raw`^(${CONTAINER_MARKERS})( {0,3})(~{3,})`);

/**
 * A `~~~` fence behind a quote or list marker, as text: a reader that lets it run past its
 * container would hide the note's sections after the answer (backtick fences there are escaped
 * by inertLine with every backtick run).
 */
function fenceInContainerAsText(line: string): string {
  const m = TILDE_FENCE_IN_CONTAINER.exec(line);
  return m && m[1] !== "" ? `${m[1]}${m[2]}\\${line.slice(m[0].length - m[3].length)}` : line;
}

/** An ATX heading two levels down; a setext underline under text shown as text (it would make the text a `#` or `##` heading). */
function headingsDown(line: string, afterText: boolean): string {
  const atx = ATX_HEADING.exec(line);
  if (atx) return `${atx[1]}${"#".repeat(Math.min(6, atx[2].length + HEADING_DEMOTION))}${line.slice(atx[0].length)}`;
  const underline = afterText ? SETEXT_UNDERLINE.exec(line) : null;
  return underline ? `${underline[1]}\\${underline[2]}${underline[3]}` : line;
}

/** Escapes, outside code spans: brackets that are not citations, `<` before a tag, `#` before a tag name. */
function inertLine(line: string): string {
  let out = "";
  // The last character written, kept apart: read back from `out`, a string grown by `+=`, each
  // read joined all of it again (a 200 kB line took 52 s).
  let last = " ";
  const write = (piece: string) => {
    out += piece;
    if (piece !== "") last = piece[piece.length - 1];
  };
  let i = 0;
  let runs: BacktickRuns | null = null;
  while (i < line.length) {
    const ch = line[i];
    if (ch === "`") {
      runs ??= new BacktickRuns(line);
      // From here to the run's end: after an escaped backtick, the rest of its run.
      let end = i;
      while (line[end] === "`") end++;
      const run = line.slice(i, end);
      const close = runs.closing(i + run.length, run.length);
      const inner = close < 0 ? "" : line.slice(i + run.length, close);
      if (close < 0) {
        // No closer: the backticks are text, escaped so that no reader pairs them up otherwise.
        write(run.replace(/`/g, "\\`"));
        i += run.length;
      } else if (inner.includes("`")) {
        // Backticks inside a span are read differently by different parsers: shown as text.
        write(escapeMarkdownText(line.slice(i, close + run.length)));
        i = close + run.length;
      } else {
        write(inertCodeSpan(line.slice(i, close + run.length), inner));
        i = close + run.length;
      }
    } else if (ch === "\\" && i + 1 < line.length) {
      // An existing escape already makes its character literal, but `\<%` is still Templater's `<%`.
      write(line[i + 1] === "<" && line[i + 2] === "%" ? "&lt;" : line.slice(i, i + 2));
      i += 2;
    } else if (ch === "[") {
      const citation = citationAt(line, i);
      write(citation ?? "\\[");
      i += citation?.length ?? 1;
    } else {
      write(inertChar(ch, last, line[i + 1] ?? " "));
      i++;
    }
  }
  return out;
}

function inertChar(ch: string, before: string, next: string): string {
  if (ch === "]") return "\\]";
  // `<%` is Templater's, which reads the raw file; the others would open a tag or a comment.
  if (ch === "<" && /[A-Za-z/!?%]/.test(next)) return "&lt;";
  // A tag starts after white space, or at a line's start (which a quote's `>` still is).
  if (ch === "#" && /[\s>]/.test(before) && /[^\s#]/.test(next)) return "\\#";
  // Math (MathJax can link), Obsidian comments (hide what follows), highlights, Dataview fields.
  if (ch === "$") return "\\$";
  if ((ch === "%" || ch === "=" || ch === ":") && (next === ch || before === ch)) return `\\${ch}`;
  if (ch === "^" && /[\s>]/.test(before)) return "\\^";
  return ch;
}

/**
 * Code spans stay code, except those a plugin evaluates where the note is read: Dataview's
 * `= …` and `$= …`, Meta Bind's `INPUT[…]`, `VIEW[…]` and `BUTTON[…]`. Those are shown as text.
 */
function inertCodeSpan(span: string, inner: string): string {
  if (/^\s*\$?=/.test(inner) || /^\s*(?:INPUT|VIEW|BUTTON|VIEW_EMBED|BIND)\[/i.test(inner)) return escapeMarkdownText(span);
  return inertCode(span);
}

/**
 * `code` as a code span of its own (its backticks taken out), by the rule above: the trace note's
 * "Written by `llama3.1:8b`", where a server names its model as it likes — `$= dv.el(…)` was
 * Dataview JavaScript run as the note opened.
 */
export function inertCodeSpanOf(code: string): string {
  const inner = code.replace(/`/g, "");
  return inertCodeSpan(`\`${inner}\``, inner);
}

/** Templater runs `<% … %>` wherever it stands in a new file, code included: the tag is broken. */
function inertCode(text: string): string {
  return text.replace(/<%/g, "< %");
}

/** The citation bracket starting at `i`, unless it is followed by what would make it a link or a link's definition. */
function citationAt(line: string, i: number): string | null {
  CITATION_AT.lastIndex = i;
  const match = CITATION_AT.exec(line);
  if (!match || citationKeys(match[1]) === null) return null;
  const next = line[i + match[0].length];
  return next === "(" || next === ":" || next === "[" ? null : match[0];
}
