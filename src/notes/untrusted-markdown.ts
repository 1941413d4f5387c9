// Web text going into the vault. A promoted note is rendered by Obsidian and read by whatever
// plugins the user has (Dataview, Templater…), so nothing taken from a page may turn into markup
// that runs or reaches into the vault: no raw HTML, no scripts or frames, no event handlers, no
// `javascript:`/`obsidian://` links, no executable code blocks, no embeds or images (an image is
// a link to it), no tags, fields or math that links. What remains
// is readable markdown that renders as the page's text. (Plain text — a snippet, a title — goes
// through the one escaper in markdown-escape.ts instead.)
import { removeBidiControls, removeControlChars } from "../text/control-chars";
import { CONTAINER_MARKERS, columnsOfIndent, escapeMarkdownText, LIVE_MATH_MACRO } from "./markdown-escape";
import { FenceReader, type FencePart } from "../text/code-fences";
import { linkDestination } from "./note-links";

/** Elements whose whole content goes: they run code, frame other pages or submit data. */
const DROPPED_ELEMENTS = "script|style|iframe|frame|frameset|object|embed|applet|noscript|template|form|button|input|select|textarea|link|meta|base|portal";
/** The start of an element dropped with its content; `dropElementBlocks` finds its end. */
const DROPPED_OPENER = `(?<!\\\\)<(${DROPPED_ELEMENTS})\\b`;
const DROPPED_TAG = new RegExp(`(?<!\\\\)<\\/?(?:${DROPPED_ELEMENTS})\\b[^>]*>`, "gi");

/**
 * Code-block languages that plugins execute or evaluate (Dataview, Tasks, Templater helpers,
 * buttons, charts…). A fence carrying one of them keeps its code but loses the language.
 */
const EXECUTABLE_FENCE = /^(dataview|dataviewjs|tasks|query|button|buttons|js-engine|templater|meta-bind|run-|exec|execute|tracker|chart|base|bases|mermaid-js|ad-|fc-|datacorejs|datacore|contextual|jsx?-?run)/i;

const LINK_SCHEMES = new Set(["http:", "https:", "mailto:"]);
const IMAGE_SCHEMES = new Set(["http:", "https:"]);

export interface SanitizeOptions {
  /** Rewrites a link target (e.g. strips tracking parameters); null keeps the text, drops the link. */
  rewriteUrl?: (url: string) => string | null;
}

export interface SanitizedMarkdown {
  markdown: string;
  /** What was taken out, for the note's honesty line and for tests. */
  removed: { elements: number; links: number; handlers: number };
}

/**
 * Extracted page markdown → markdown that only renders. Code blocks keep their text (except
 * Templater's `<%`, which runs wherever it appears); everything outside code is cleaned.
 */
export function sanitizeExtractedMarkdown(markdown: string, options: SanitizeOptions = {}): SanitizedMarkdown {
  const text = removeControlChars(removeBidiControls(markdown.replace(/\r\n?/g, "\n")), true);
  const kept = sanitizedLines(splitFences(text), options);
  if (readsAsWritten(kept.lines)) return { markdown: kept.lines.map((l) => l.text).join("\n"), removed: kept.removed };
  // A reader would end a code block where this did not, and read its code as markdown: the whole
  // page is cleaned as prose instead (its code shows escapes, nothing in it becomes live).
  const prose = sanitizedLines([{ kind: "prose", text }], options);
  return { markdown: prose.lines.map((l) => l.text).join("\n"), removed: prose.removed };
}

/** A written line and what it is to be: a fence's opener, its code as written, its closer, or cleaned text. */
interface WrittenLine {
  text: string;
  part: FencePart;
}

function sanitizedLines(segments: Segment[], options: SanitizeOptions): { lines: WrittenLine[]; removed: Removed } {
  const removed = { elements: 0, links: 0, handlers: 0 };
  const out: WrittenLine[] = [];
  const write = (text: string, part: FencePart) => out.push(...text.split("\n").map((line) => ({ text: line, part })));
  for (const segment of segments) {
    if (segment.kind === "fence") {
      write(fenceOpener(segment), "opener");
      for (const line of segment.body) write(neutralizeCodeLine(line), "code");
      write(`${segment.indent}${segment.marker}`, "closer");
      continue;
    }
    let prose = dropElementBlocks(segment.text, removed);
    // A tag ends at its first `>`, so none ends past the last one, and the pattern runs on the text
    // before it only: over the whole segment, every `<script ` of a run with no `>` read to the end.
    const lastTagEnd = prose.lastIndexOf(">") + 1;
    prose =
      prose.slice(0, lastTagEnd).replace(DROPPED_TAG, () => {
        removed.elements++;
        return "";
      }) + prose.slice(lastTagEnd);
    write(unlinkAcrossLines(prose.split("\n").map((line) => sanitizeProseLine(line, options, removed)).join("\n")), "outside");
  }
  return { lines: withoutExtraBlankLines(out), removed };
}

/**
 * At most one blank line in a row, none at the start or end, no spaces at either end. But for a
 * first line indented four columns or more: it is indented code, and taken to the margin
 * (`    ````) it became a fence that every block after it was read against.
 */
function withoutExtraBlankLines(lines: WrittenLine[]): WrittenLine[] {
  const blank = (line: WrittenLine | undefined) => line !== undefined && line.text.trim() === "";
  const kept: WrittenLine[] = [];
  for (const line of lines) {
    if (line.text === "" && (kept.length === 0 || kept[kept.length - 1].text === "")) continue;
    kept.push(line);
  }
  while (blank(kept[kept.length - 1])) kept.pop();
  while (blank(kept[0])) kept.shift();
  if (kept.length > 0 && columnsOfIndent(kept[0].text) < 4) kept[0] = { ...kept[0], text: kept[0].text.trimStart() };
  if (kept.length > 0) kept[kept.length - 1] = { ...kept[kept.length - 1], text: kept[kept.length - 1].text.trimEnd() };
  return kept;
}

/**
 * Whether a reader (code-fences.ts: CommonMark, as Obsidian renders it) opens, keeps and closes each
 * code block where this wrote it. A fence this read as a container's text can leave the reader in
 * a block (`> > ```` over `   ```` ended the quote and opened one), and then a page's own opener
 * closed it and its "code" was read as markdown, links and `dataviewjs` blocks live.
 */
function readsAsWritten(lines: WrittenLine[]): boolean {
  const reader = new FenceReader();
  for (const line of lines) {
    const part = reader.read(line.text);
    if (line.part !== "outside" && part !== line.part) return false;
  }
  return true;
}

/**
 * Drops each `<script …>…</script>` (and the like) with its content: from an opener, to the first
 * `>` after it, to the first closer of the same name after that, in any case. As one pattern
 * (`<(script|…)\b[^>]*>[\s\S]*?<\/\1\s*>`), every opener of a page full of them read to the end:
 * 18,750 `<script ` took 27 s. With no `>` after an opener there is none after any later one; with
 * no closer, no later opener of that name has one either; so neither is looked for twice.
 */
function dropElementBlocks(prose: string, removed: Removed): string {
  const opener = new RegExp(DROPPED_OPENER, "gi");
  const unclosed = new Set<string>();
  let out = "";
  let at = 0;
  for (let open = opener.exec(prose); open !== null; open = opener.exec(prose)) {
    const name = open[1].toLowerCase();
    if (unclosed.has(name)) continue;
    const tagEnd = prose.indexOf(">", opener.lastIndex);
    if (tagEnd < 0) break;
    const closer = new RegExp(`<\\/${name}\\s*>`, "gi");
    closer.lastIndex = tagEnd + 1;
    const close = closer.exec(prose);
    if (close === null) {
      unclosed.add(name);
      continue;
    }
    removed.elements++;
    out += prose.slice(at, open.index);
    at = opener.lastIndex = close.index + close[0].length;
  }
  return out + prose.slice(at);
}

/**
 * What opens a link destination without an http(s) or mailto address after it. The lines above are
 * cleaned one by one, and a link whose parts stand on two lines passes them unseen: `[a⏎b](obsidian://x)`,
 * `[a](⏎javascript:…)`, a definition whose address is on the next line. Every link the cleaning kept
 * has such an address, so anything else that could open one is made text (`]\(`, `]\:`), which
 * reads the same. (A code span holding `](` shows the backslash.)
 */
const UNSAFE_DESTINATION = /\]\((?!\s*<?(?:https?:\/\/|mailto:))/gi;
const DEFINITION_AT_LINE_END = new RegExp(String.raw`^(${CONTAINER_MARKERS} {0,3}\[[^\]\n]+)\]:(?=[ \t]*$)`, "gm");

/**
 * A link reference definition, behind any quote and list markers (group 1): CommonMark reads one
 * there as the whole page's, so `[x][a]` above `> [a]: javascript:…` was a live link.
 */
const DEFINITION = new RegExp(String.raw`^(${CONTAINER_MARKERS})( {0,3}\[[^\]]+\]:\s*)<?(\S+?)>?(\s.*)?$`);

function unlinkAcrossLines(prose: string): string {
  return prose.replace(UNSAFE_DESTINATION, "]\\(").replace(DEFINITION_AT_LINE_END, "$1]\\:");
}

// ── fences ──────────────────────────────────────────────────────────────────────────────────

type Fence = { kind: "fence"; indent: string; marker: string; info: string; body: string[] };
type Segment = { kind: "prose"; text: string } | Fence;

// The marker is taken whole (a lookahead and its backreference): on a line that `.` cannot read to
// its end (a U+2028 in it), giving back one backtick at a time reread the line for each of them.
const FENCE_OPEN = /^( {0,3})(?=(`{3,}|~{3,}))\2(.*)$/;
/**
 * A fence behind quote or list markers, or indented under a list item. Its code stays prose here
 * (cleaned as prose, whatever a reader makes of it); only its opening line is written as a fence.
 */
const FENCE_OPEN_IN_CONTAINER = new RegExp(String.raw`^(${CONTAINER_MARKERS}[ \t]*)(?=(\`{3,}|~{3,}))\2(.*)$`);
const LEADING_CONTAINERS = new RegExp(`^${CONTAINER_MARKERS}`);
const FENCE_CLOSE = /^[ \t]*(`{3,}|~{3,})\s*$/;

/**
 * Splits markdown into prose and fenced code; an unclosed fence is closed at the end. A fence
 * indented by one to three spaces may be a list item's (`- x` over `  ```js`) and then ends with
 * the item, at a line less indented than the fence (read again as a line of its own), or at a
 * closer indented up to three spaces past the fence. Either way the closer written is the fence's
 * own, so every reader ends the code where this did.
 *
 * After a fence in a container (`- ~~~`), a line that looks like a fence (`  ```js`) may be text
 * of that code to a reader, and the closer of that code not ours: read as a fence here, the lines
 * after it would be code here while a reader opens a fence of its own among them (`  ```dataviewjs`)
 * that keeps its language. So they stay prose until a line starts at the margin with no container
 * marker: no list item or quote, nor its code, goes on past such a line.
 */
function splitFences(text: string): Segment[] {
  const segments: Segment[] = [];
  let prose: string[] = [];
  let fence: Fence | null = null;
  let afterContainerFence = false;
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (fence) {
      const indent = columnsOfIndent(line);
      const outdented = line.trim() !== "" && indent < fence.indent.length;
      const close = FENCE_CLOSE.exec(line);
      if (outdented || (close && close[1][0] === fence.marker[0] && close[1].length >= fence.marker.length && indent <= fence.indent.length + 3)) {
        segments.push(fence);
        fence = null;
        if (outdented) i--;
      } else {
        fence.body.push(line);
      }
      continue;
    }
    if (afterContainerFence && !atMarginOutsideContainers(line)) {
      prose.push(line);
      continue;
    }
    afterContainerFence = false;
    const open = fenceOpening(FENCE_OPEN, line);
    if (open) {
      if (prose.length > 0) segments.push({ kind: "prose", text: prose.join("\n") });
      prose = [];
      fence = open;
      continue;
    }
    afterContainerFence = fenceOpening(FENCE_OPEN_IN_CONTAINER, line) !== null;
    prose.push(line);
  }
  if (fence) segments.push(fence);
  if (prose.length > 0) segments.push({ kind: "prose", text: prose.join("\n") });
  return segments;
}

function atMarginOutsideContainers(line: string): boolean {
  return line.trim() !== "" && !/^[ \t]/.test(line) && LEADING_CONTAINERS.exec(line)![0] === "";
}

function fenceOpening(pattern: RegExp, line: string): Fence | null {
  const open = pattern.exec(line);
  // A backtick fence's info string may not contain backticks (CommonMark); such a line is prose.
  if (!open || (open[2][0] === "`" && open[3].includes("`"))) return null;
  return { kind: "fence", indent: open[1], marker: open[2], info: open[3].trim(), body: [] };
}

/** A fence's opening line as written: the language only when no plugin runs it. */
function fenceOpener(fence: Fence): string {
  return `${fence.indent}${fence.marker}${safeFenceLanguage(fence.info)}`;
}

function safeFenceLanguage(info: string): string {
  const language = info.split(/\s+/)[0] ?? "";
  if (!/^[A-Za-z0-9+#._-]{1,24}$/.test(language)) return "";
  return EXECUTABLE_FENCE.test(language) ? "" : language;
}

/** Templater evaluates `<% … %>` anywhere in a new file, code blocks included. */
function neutralizeCodeLine(line: string): string {
  return line.replace(/<%/g, "< %");
}

// ── prose ───────────────────────────────────────────────────────────────────────────────────

type Removed = SanitizedMarkdown["removed"];

function sanitizeProseLine(line: string, options: SanitizeOptions, removed: Removed): string {
  const fence = fenceOpening(FENCE_OPEN_IN_CONTAINER, line);
  if (fence) return fenceOpener(fence);
  const definition = DEFINITION.exec(line);
  if (definition && !isFootnoteText(definition[2], definition[3])) {
    const [, containers, opening, address, rest] = definition;
    const target = safeTarget(address, LINK_SCHEMES, options);
    if (target === null) {
      removed.links++;
      // The quote or list it stood in stays as it was: only the definition goes.
      return containers.trimEnd();
    }
    return `${containers}${opening}${target}${rest ?? ""}`;
  }
  return mapOutsideCodeSpans(line, (text) => sanitizeInline(text, options, removed), neutralizeCodeSpan);
}

/**
 * `[^1]: Smith, 2020.`: a footnote's text, which Obsidian shows at the note's end; read as a link
 * definition, every footnote of a page was dropped. One whose text starts with an address is
 * still checked as a definition (CommonMark reads `[^1]: javascript:x` as one).
 */
function isFootnoteText(opening: string, target: string): boolean {
  return opening.trimStart().startsWith("[^") && !/^<?[A-Za-z][A-Za-z0-9+.-]*:/.test(target);
}

/** Applies `prose` to the text between inline code spans and `code` to each whole span. */
function mapOutsideCodeSpans(line: string, prose: (text: string) => string, code: (span: string, inner: string) => string): string {
  let out = "";
  let at = 0;
  const opener = /(?<!\\)(`+)/g;
  let match: RegExpExecArray | null;
  while ((match = opener.exec(line)) !== null) {
    const ticks = match[1];
    const start = match.index;
    const close = runOfBackticks(line, start + ticks.length, ticks.length);
    if (close < 0) break;
    out += prose(line.slice(at, start));
    const end = close + ticks.length;
    out += code(line.slice(start, end), line.slice(start + ticks.length, close));
    at = end;
    opener.lastIndex = end;
  }
  return out + prose(line.slice(at));
}

/**
 * Where the first run of exactly `length` backticks at or after `from` starts, or -1. Looked for
 * as a pattern made of the run, a page's run of 60,000 backticks was a pattern too large to make.
 */
function runOfBackticks(line: string, from: number, length: number): number {
  for (let at = line.indexOf("`", from); at >= 0; ) {
    let end = at;
    while (line[end] === "`") end++;
    if (end - at === length) return at;
    at = line.indexOf("`", end);
  }
  return -1;
}

/** Dataview runs inline code that starts with `=` (and DataviewJS with `$=`); such spans become text. */
function neutralizeCodeSpan(span: string, inner: string): string {
  if (/^\s*\$?=/.test(inner)) return escapeMarkdownText(span);
  return neutralizeCodeLine(span);
}

function sanitizeInline(text: string, options: SanitizeOptions, removed: Removed): string {
  let out = replaceInlineLinks(text, (bang, label, url, title) => {
    const target = safeTarget(url, bang ? IMAGE_SCHEMES : LINK_SCHEMES, options);
    if (target === null) {
      removed.links++;
      return bang ? "" : label;
    }
    // An image would be fetched each time the note is opened, from whatever address the page
    // chose (a device on the user's network too, which no fetch guard sees): it is a link instead.
    return bang ? `[${imageLabel(label)}](${target}${title})` : `[${label}](${target}${title})`;
  });
  // Tags that survived as raw HTML: handlers out, then the tag shown as text (an entity, so the raw
  // note holds no tag a plugin could act on).
  out = replaceRawTags(out, (name, attrs) => {
    // `(?<!\s)`: a match starts where the spaces before an attribute start; tried from each space
    // of a long run, `\s+` read the rest of the run every time (150,000 spaces: 13 s).
    const cleaned = attrs.replace(/(?<!\s)\s+(on[a-z]+|(?:href|src|action|formaction|xlink:href)(?=\s*=\s*["']?\s*(?:javascript|vbscript|data):))\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)/gi, () => {
      removed.handlers++;
      return "";
    });
    return `&lt;${name}${cleaned}>`;
  });
  return (
    out
      // Comments, doctypes, processing instructions and Templater `<%`: shown, never read or run.
      .replace(/(?<!\\)<(?=[!?%])/g, "&lt;")
      // A `<` the page converter already escaped (`\<script>`) still reads as a tag to a plugin.
      .replace(/\\<(?=[A-Za-z/!?%])/g, "&lt;")
      // Embeds and wikilinks would pull vault notes into a page that is not the user's own.
      .replace(/(?<!\\)\[\[/g, "\\[\\[")
      // What is left of `![` is a reference-style image (`![alt][ref]`): shown as text.
      .replace(/!\[/g, "!\\[")
      // `#word` would add a tag to the user's vault: after a space, and where Obsidian starts an
      // inline run anew (a quote's `>`, a table cell's `|`, a link's label, emphasis, a highlight).
      .replace(/(^|[\s(>|[*_~=])#(?=[^\s#\\])/g, "$1\\#")
      // `%%` would hide the rest as a comment.
      .replace(/%%/g, "\\%\\%")
      // Dataview (and the index) read `key:: value`, `[key:: value]` as the note's own fields:
      // a page's `tags:: …` or `aliases:: …` would become the vault's.
      .replace(/::/g, "\\:\\:")
      .replace(LIVE_MATH_MACRO, "$1\\\\")
      .replace(BLOCK_ID_AT_END, "$1\\^")
  );
}

/**
 * ` ^id` ending a line is a block id to Obsidian: the text is hidden and the line becomes an anchor.
 * A page's "As Smith wrote ^1" lost its "^1" in the note. Footnotes (`[^1]`, `^[…]`) are no block id.
 */
const BLOCK_ID_AT_END = /(^|\s)\^(?=[A-Za-z0-9-]+\s*$)/;

function imageLabel(alt: string): string {
  return alt.trim() === "" ? "Image" : `Image: ${alt}`;
}

/** An inline link's `(address "title")`, read from just after the opening parenthesis and its spaces. */
const LINK_DESTINATION = /<?((?:[^\s()<>]|\([^\s()<>]*\))*)>?((?:\s+(?:"[^"]*"|'[^']*'))?)\s*\)/y;
const SPACES = /\s*/y;
const LINE_TERMINATOR = /[\n\r\u2028\u2029]/;

/**
 * Replaces each inline link or image `[label](address "title")`, as the pattern
 * `(!?)\[((?:\\.|[^\]\\])*)\]\(\s*<?(…)>?(…)\s*\)` would, read in steps instead. As one pattern,
 * every `[` of a line with no `]` read to the line's end (150,000 of them took 20 s and more). A label
 * ends at its first `]` that no `\` escapes, and any `[` inside the label reads on to that same
 * `]`, so when no `(…)` follows it none of them opens a link: the search goes on after it.
 */
function replaceInlineLinks(text: string, replace: (bang: string, label: string, url: string, title: string) => string): string {
  let out = "";
  let at = 0;
  for (let open = text.indexOf("["); open >= 0; ) {
    const labelEnd = endOfLabel(text, open + 1);
    if (text[labelEnd] !== "]") {
      if (labelEnd >= text.length) break;
      open = text.indexOf("[", labelEnd + 1);
      continue;
    }
    const destination = linkDestinationAt(text, labelEnd + 1);
    if (destination === null) {
      open = text.indexOf("[", labelEnd + 1);
      continue;
    }
    const bang = open > at && text[open - 1] === "!" ? "!" : "";
    out += text.slice(at, open - bang.length) + replace(bang, text.slice(open + 1, labelEnd), destination.url, destination.title);
    at = destination.end;
    open = text.indexOf("[", at);
  }
  return out + text.slice(at);
}

/** Where a label read from `from` stops: its `]`, a `\` before a line break, or the end. */
function endOfLabel(text: string, from: number): number {
  let at = from;
  while (at < text.length && text[at] !== "]") {
    if (text[at] === "\\") {
      // `\\.`: a backslash escapes the next character, but `.` takes no line break.
      if (at + 1 >= text.length || LINE_TERMINATOR.test(text[at + 1])) return at;
      at += 2;
    } else {
      at++;
    }
  }
  return at;
}

/**
 * The `(address "title")` after a label's `]`, or null. The spaces after `(` are read once, not by
 * `\(\s*` backing off one space at a time (a `](` and 150,000 spaces took 36 s): with all
 * of them taken, or all but the last (a title after them), it matches if it ever would.
 */
function linkDestinationAt(text: string, at: number): { url: string; title: string; end: number } | null {
  if (text[at] !== "(") return null;
  SPACES.lastIndex = at + 1;
  SPACES.exec(text);
  const afterSpaces = SPACES.lastIndex;
  LINK_DESTINATION.lastIndex = afterSpaces;
  let match = LINK_DESTINATION.exec(text);
  if (match === null && afterSpaces > at + 1) {
    LINK_DESTINATION.lastIndex = afterSpaces - 1;
    match = LINK_DESTINATION.exec(text);
  }
  return match === null ? null : { url: match[1], title: match[2], end: LINK_DESTINATION.lastIndex };
}

/**
 * Replaces each raw tag `<name attributes>` (a quoted value may hold `>`), as the pattern
 * `(?<!\\)<(\/?[A-Za-z][A-Za-z0-9-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>` would, read in steps instead.
 * As one pattern, every `<` of a line of tags left open read to the line's end (50,000 `<a ` took
 * 20 s). Read from any place it passed outside quotes, a tag that found no end would find none
 * again; those places are marked, so a later `<` reaching one stops there.
 */
function replaceRawTags(text: string, replace: (name: string, attrs: string) => string): string {
  const opener = /(?<!\\)<(\/?[A-Za-z][A-Za-z0-9-]*)/g;
  let passed: Uint8Array | null = null;
  let out = "";
  let at = 0;
  for (let open = opener.exec(text); open !== null; open = opener.exec(text)) {
    passed ??= new Uint8Array(text.length);
    const attrsStart = opener.lastIndex;
    const tagEnd = endOfRawTag(text, attrsStart, passed);
    if (tagEnd < 0) continue;
    out += text.slice(at, open.index) + replace(open[1], text.slice(attrsStart, tagEnd));
    at = opener.lastIndex = tagEnd + 1;
  }
  return out + text.slice(at);
}

/** The `>` ending a tag whose attributes start at `from`, or -1; marks each place read outside quotes. */
function endOfRawTag(text: string, from: number, passed: Uint8Array): number {
  for (let at = from; at < text.length; at++) {
    if (passed[at] === 1) return -1;
    passed[at] = 1;
    const char = text[at];
    if (char === ">") return at;
    if (char === '"' || char === "'") {
      at = text.indexOf(char, at + 1);
      if (at < 0) return -1;
    }
  }
  return -1;
}

function safeTarget(raw: string, schemes: Set<string>, options: SanitizeOptions): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (!schemes.has(url.protocol)) return null;
  const rewritten = url.protocol === "mailto:" ? raw : options.rewriteUrl ? options.rewriteUrl(raw) : raw;
  if (rewritten === null) return null;
  return linkDestination(rewritten);
}
