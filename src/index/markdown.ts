// Markdown note → ParsedNote: title, aliases, tags, links, `source`/`url` properties and
// heading-delimited sections whose `text` is plain words for the search index.
//
// This runs on every note at cold index time, so it is one pass over the lines with `indexOf`
// and cheap first-character tests; regexes only ever see a single short line and none of them
// can backtrack badly. Nothing here throws on odd input: problems are recorded on the note.
import {
  frontmatterProblem,
  locateFrontmatter,
  propertyLine,
  readFrontmatter,
  readProperties,
  shownProperties,
  type NoteProperties,
} from "./frontmatter";
import { closesFence, fenceOpening, fenceReaderFor, type FenceLine, type FenceLines } from "../text/code-fences";
import { codeAt, inlineToText, NextOf, type InlineSink } from "./inline-text";
import { blockText, CODE_LINE, STARTS_BLOCK } from "./block-text";
import { opensHiccup, readHiccup } from "./hiccup";
import { expressionEnd, opensExpression } from "./space-lua";
import type { NoteProblem, NoteSection, ParsedNote } from "./types";

export interface ParseOptions {
  /** For a note about to be shown: its opening text gives each property as a line of its own,
   * "artist: Paul Chambers;", where the index reads only the prose values ("Paul Chambers"): the
   * names belong to their own field there, and would make every note with a `year` alike. */
  propertyLines?: boolean;
  /** For a note about to be shown: each section's text keeps where its blocks end (`block-text.ts`),
   * so a snippet never quotes code glued to prose, or a table's rows as one run of words. The index
   * reads words only: its parse keeps no marks, and costs nothing more. */
  blocks?: boolean;
  /**
   * For a note about to be shown: only what Obsidian's reading view shows. No comment's text (`%%…%%`,
   * `<!-- -->`), no image or embed, an entity as its character (`inline-text.ts`); a Logseq/Dataview
   * `key:: value` line as a property, "type: Feature;", in a block of properties (none for Logseq's UI
   * state, `collapsed:: true`, nor its settings, `logseq.order-list-type:: number`); a callout's title a
   * block of its own; Logseq's `#+BEGIN_SRC`/`QUERY`/`EXAMPLE` block as code, a `#+BEGIN_NOTE`/`TIP`/…
   * block as a block of its text, without the markers; Logseq's hiccup as the words it renders
   * (`hiccup.ts`), a SilverBullet `${…}` expression as code (`space-lua.ts`); a line that shows only an
   * image or an embed as an empty block (`block-text.ts`). The index keeps their words searchable.
   */
  readingView?: boolean;
}

/** Parses one note. `path` is vault-relative; `text` is the whole file as read. Never throws. */
export function parseNote(path: string, text: string, options: ParseOptions = {}): ParsedNote {
  const problems: NoteProblem[] = [];
  let from = 0;
  if (codeAt(text, 0) === 0xfeff) {
    from = 1;
    problems.push({ kind: "encoding", message: "The file starts with a byte order mark (BOM); it was ignored." });
  }
  const replaced = countReplacementChars(text);
  if (replaced > 0) {
    problems.push({
      kind: "encoding",
      message: `The file has ${replaced} unreadable character${replaced === 1 ? "" : "s"} (U+FFFD); it may not be saved as UTF-8.`,
    });
  }

  const readingView = options.readingView === true;
  const sink: InlineSink = { tags: [], links: [], readingView };
  // Obsidian takes a note's tags from its `tags` property and its body only: a `#word` in another
  // property's text (a saved page's description) is no tag. A link in a property is a link.
  const propertySink: InlineSink = { tags: [], links: sink.links, readingView };
  let frontmatter: Record<string, unknown> = {};
  let props: NoteProperties | null = null;
  // Text that belongs to the preamble before any body line: prose properties, or the lines of
  // a frontmatter block that could not be parsed.
  const preambleLines: string[] = [];
  let bodyStart = from;
  let bodyLine = 1;
  let preambleStart = 0;

  const location = locateFrontmatter(text, from);
  if (location.kind === "closed") {
    const { span } = location;
    const read = readFrontmatter(text.slice(span.yamlStart, span.yamlEnd));
    bodyStart = span.bodyStart;
    bodyLine = span.bodyLine;
    if (read.ok) {
      frontmatter = read.data;
      props = readProperties(read.data);
      preambleStart = span.bodyStart;
      if (options.propertyLines) {
        for (const property of shownProperties(read.data)) pushText(preambleLines, propertyLine(property, (value) => inlineToText(value, propertySink)) ?? "");
      } else {
        for (const value of props.text) pushText(preambleLines, inlineToText(value, propertySink));
      }
    } else {
      problems.push(read.problem);
      // The block stays searchable as text; the preamble then starts at the top of the file.
      forEachLine(text, span.yamlStart, span.yamlEnd, (line) => pushText(preambleLines, inlineToText(line, propertySink)));
    }
  } else if (location.kind === "unterminated") {
    problems.push(frontmatterProblem("opens with `---` but is never closed"));
  }

  const scan = new SectionScanner(text, sink, preambleStart, preambleStart === 0 ? 1 : bodyLine, preambleLines, options.blocks === true, readingView);
  scan.run(bodyStart, bodyLine);

  const tags: string[] = [];
  const seenTags = new Set<string>();
  for (const tag of props ? props.tags : []) addTag(tag, tags, seenTags);
  for (const tag of scan.propertyTags) addTag(tag, tags, seenTags);
  for (const tag of sink.tags) addTag(tag, tags, seenTags);

  return {
    path,
    title: props?.title ?? scan.propertyTitle ?? scan.titleHeading() ?? fileTitle(path),
    aliases: unique([...(props ? props.aliases : []), ...scan.propertyAliases]),
    tags,
    sourceUrls: unique(props ? props.sourceUrls : []),
    links: unique(sink.links),
    frontmatter,
    sections: scan.sections,
    problems,
  };
}

interface OpenSection {
  heading: string;
  level: number;
  headingPath: string[];
  start: number;
  line: number;
  lines: string[];
  /** In a shown parse, each line's `STARTS_BLOCK` and `CODE_LINE` bits (`block-text.ts`); null in the index's. */
  marks: number[] | null;
}

/** The last plain paragraph line, which a following `===`/`---` turns into a heading. */
interface ParagraphLine {
  start: number;
  line: number;
  text: string;
  /** Whether `text` went into the current section (and must be taken back out). */
  pushed: boolean;
}

class SectionScanner {
  readonly sections: NoteSection[] = [];
  propertyTitle: string | null = null;
  readonly propertyAliases: string[] = [];
  readonly propertyTags: string[] = [];

  private current: OpenSection;
  private readonly stack: { level: number; heading: string }[] = [];
  /**
   * Which lines are fenced code, as Obsidian renders them (CommonMark's rule, in text/code-fences);
   * none for a note without three backticks or tildes in a row (most notes), which no line of can open
   * a fence: reading every line for one made parsing half again slower.
   */
  private readonly fences: FenceLines | null;
  /** A fence shown inside indented code (docs show a query so), whose lines are read as code up to its closer. */
  private shownFence: FenceLine | null = null;
  /** The marker that closes the comment block the scanner is in (`-->` or `%%`), or null. */
  private comment: "-->" | "%%" | null = null;
  /** Where an HTML comment's tags and links go: nowhere. Obsidian reads no markdown in HTML, but a
   * `%%` comment's `#tag` and `[[link]]` are in its metadata (notes hide tags there on purpose). */
  private readonly htmlCommentSink: InlineSink = { tags: [], links: [] };
  /** Where the next closing marker is: a note of 400,000 `<!--` lines that none closes is read once, not once a line. */
  private readonly closers: NextOf;
  private paragraph: ParagraphLine | null = null;
  /** Whether the lines since the last blank one belong to a list item (no setext heading there). */
  private inListItem = false;
  /** The first H1, when no body text came before it; how many H1s the note has. */
  private openingH1: string | null = null;
  private h1Count = 0;
  /** Whether a body line gave text yet (properties and Logseq's `key:: value` lines aside). */
  private bodyText = false;
  /** In a shown parse: whether the next text kept starts a block (the preamble's properties are one). */
  private blockEnded = true;
  /** Whether the lines are a table's rows (a divider line came, and no blank line or other block since). */
  private inTable = false;
  /** Whether the last line read for text stood in a block quote: a quote's first line starts a block, a line after one goes on in it (CommonMark's lazy continuation). */
  private quotedBefore = false;
  /** In a shown parse: whether the last text kept was a `key:: value` property, which stands in a block of properties, apart from prose. */
  private propertyBefore = false;
  /**
   * The Logseq (org-mode) `#+BEGIN_…` block the lines are in, its closing line, and whether it shows as
   * code; in the index's parse only a block of code, whose lines it reads as written text.
   */
  private orgBlock: { closer: string; code: boolean } | null = null;
  /**
   * Where the index's parse reads the lines of a Logseq code block or of a SilverBullet expression of many
   * lines: their tags and links nowhere. A query's `[[Command]]` is what it looks for, an example's `[[page]]`
   * what it shows, a C source's `#include` a directive, Lua's `#group` a length and its `"[[" .. p.name`
   * a string: no link or tag the note makes (neither app reads one there), yet they filled its links,
   * backlinks and tags.
   */
  private readonly quietSink: InlineSink;
  /** Where the lines' tags and links go: the note's, or the quiet sink above. */
  private lineSink: InlineSink;
  /**
   * Where a Logseq hiccup form (in a shown parse) or a SilverBullet expression that went on past its first
   * line ends (`hiccup.ts`, `space-lua.ts`), and whether it is code; the lines before it are its own. The
   * index's parse reads those lines as text, and sets it back to -1 after the closing line.
   */
  private spanEnd = -1;
  private spanIsCode = false;
  /** Characters a parse may still read for such forms: a note of `[:div` lines none closes is read once over, not once a line. */
  private spanBudget: number;

  constructor(
    private readonly text: string,
    private readonly sink: InlineSink,
    preambleStart: number,
    preambleLine: number,
    preambleLines: string[],
    private readonly blocks: boolean,
    private readonly readingView: boolean,
  ) {
    const marks = blocks ? preambleLines.map(() => 0) : null;
    this.current = { heading: "", level: 0, headingPath: [], start: preambleStart, line: preambleLine, lines: preambleLines, marks };
    this.closers = new NextOf(text);
    this.fences = fenceReaderFor(text);
    this.quietSink = { tags: [], links: [] };
    this.lineSink = sink;
    this.spanBudget = text.length + MAX_SPAN;
  }

  run(from: number, firstLine: number): void {
    const n = this.text.length;
    this.readLines(from, firstLine);
    this.close(n);
    // A note with nothing searchable still gets one (empty) section, so it can be shown.
    if (this.sections.length === 0) {
      const c = this.current;
      this.sections.push({ heading: "", level: 0, headingPath: [], start: c.start, end: n, text: "", line: c.line });
    }
  }

  /**
   * Reads every line from `from` on: a loop with nothing after it. V8 compiles a long note's loop while
   * the first such note is still in it, before anything after the loop has run; code there then threw the
   * compiled loop away on leaving it, and in some fresh processes once per long note of the vault.
   */
  private readLines(from: number, firstLine: number): void {
    const { text } = this;
    const n = text.length;
    let pos = from;
    let lineNo = firstLine;
    while (pos < n) {
      let end = text.indexOf("\n", pos);
      if (end < 0) end = n;
      const contentEnd = end > pos && text.charCodeAt(end - 1) === 13 ? end - 1 : end;
      this.line(text.slice(pos, contentEnd), pos, lineNo);
      pos = end + 1;
      lineNo++;
    }
  }

  private line(raw: string, start: number, lineNo: number): void {
    if (this.spanEnd > start && this.spanEnd <= start + raw.length && !this.readingView) {
      this.expressionClosingLine(raw, start, lineNo);
      return;
    }
    let i = 0;
    let indent = 0; // in columns: a tab reaches the next multiple of 4, as in CommonMark
    const n = raw.length;
    for (let c = codeAt(raw, 0); i < n && isIndent(c); c = codeAt(raw, ++i)) indent = c === 9 ? indent + 4 - (indent % 4) : indent + 1;

    if (this.comment) {
      this.commentLine(raw, i);
      return;
    }
    // Inside a comment nothing is markdown, so the fence reader never sees its lines: a ``` there opens nothing.
    const fenced = this.fences?.read(raw) ?? "outside";
    if (this.spanEnd > start && this.readingView) {
      this.spanLine(raw, start);
      return;
    }
    if (fenced === "code") {
      this.codeLine(raw, i);
      return;
    }
    if (fenced !== "outside") {
      // An opener ends the paragraph above it; an opener's info string and a closer are no words.
      this.paragraph = null;
      this.endBlock();
      return;
    }
    if ((this.shownFence !== null || this.fences?.indentedCode === true) && this.shownFenceLine(raw, i)) return;
    if (this.orgBlock !== null && this.orgBlockLine(raw, i)) return;
    if (i === n) {
      this.paragraph = null;
      this.inListItem = false;
      this.endBlock();
      return;
    }
    const comment = this.commentOpening(raw, i, start);
    if (comment) {
      this.comment = comment;
      this.paragraph = null;
      // A comment block interrupts a paragraph, as an HTML block does.
      this.endBlock();
      this.commentText(raw.slice(i + (comment === "%%" ? 2 : 4)));
      return;
    }

    // Blockquote markers (callouts live inside them).
    let quoted = false;
    while (codeAt(raw, i) === 62 /* > */) {
      quoted = true;
      i++;
      while (i < n && isIndent(raw.charCodeAt(i))) i++;
    }
    // A quote interrupts a paragraph, and an empty quote line ends its block as a blank line does.
    if ((quoted && !this.quotedBefore) || (quoted && i === n)) this.endBlock();
    this.quotedBefore = quoted;

    const first = codeAt(raw, i);
    // Setext underlines and thematic breaks: a line of only `=`, `-`, `*` or `_`.
    if (!quoted && indent <= 3 && (first === 45 || first === 61 || first === 42 || first === 95)) {
      const rule = ruleLine(raw, i, first);
      if (rule) {
        const underline = first === 61 || (first === 45 && !rule.spaced);
        if (underline && this.paragraph) {
          this.setextHeading(this.paragraph, first === 61 ? 1 : 2);
          return;
        }
        if (first !== 61 && rule.count >= 3) {
          this.paragraph = null;
          this.inListItem = false;
          this.endBlock();
          return;
        }
      }
    }

    let listed = false;
    const afterMarker = listMarkerEnd(raw, i);
    if (afterMarker > 0) {
      listed = true;
      this.endBlock();
      i = afterMarker;
      while (i < n && isIndent(raw.charCodeAt(i))) i++;
    }

    const c = codeAt(raw, i);
    // A table's row is a block of its own: its cells are no sentence that goes on in the next row.
    if (c === 124 /* | */ || this.inTable) this.blockEnded = true;
    if ((c === 36 /* $ */ || (c === 91 /* [ */ && this.readingView)) && this.spanBudget > 0 && this.opensSpan(raw, i, start)) {
      if (listed) this.inListItem = true;
      return;
    }
    if (c === 35 /* # */ && this.readingView && this.opensOrgBlock(raw, i, start)) {
      if (listed) this.inListItem = true;
      return;
    }
    // The index reads the block's lines, its markers too, as text: only their links are none of the note's.
    if (c === 35 /* # */ && !this.readingView && this.orgBlock === null && this.spanEnd < start && codeAt(raw, i + 1) === 43 /* + */) this.opensOrgCodeBlock(raw, i, start);
    if (c === 35 /* # */) {
      const level = runLength(raw, i, 35);
      const after = codeAt(raw, i + level);
      if (level <= 6 && (i + level === n || isIndent(after))) {
        const heading = this.inline(stripClosingHashes(raw.slice(i + level)));
        // Logseq writes headings as top-level bullets (`- ## Usage`); those count too.
        const isSection = !quoted && (listed ? indent === 0 && raw.charCodeAt(0) === 45 : indent <= 3);
        if (isSection) {
          this.openSection(level, heading, start, lineNo);
          this.paragraph = null;
          this.inListItem = listed;
          return;
        }
        // A heading is a block of one line.
        this.endBlock();
        this.pushBody(heading);
        this.endBlock();
        this.paragraph = null;
        return;
      }
    }

    let rest = i === 0 ? raw : raw.slice(i);
    let property: string | null = null;
    let calloutTitle = false;
    if (quoted && c === 91 /* [ */ && codeAt(raw, i + 1) === 33 /* ! */) {
      // Callout `> [!note]- Title`: keep the title, drop the marker.
      const close = raw.indexOf("]", i + 2);
      if (close > 0) {
        let j = close + 1;
        const fold = codeAt(raw, j);
        if (fold === 43 || fold === 45) j++;
        rest = raw.slice(j);
        calloutTitle = true;
      }
    } else if (listed && c === 91 && codeAt(raw, i + 2) === 93 && (i + 3 === n || isIndent(codeAt(raw, i + 3)))) {
      // Task checkbox `- [ ]` / `- [x]`.
      rest = raw.slice(i + 3);
    } else {
      const colons = rest.indexOf("::");
      if (colons > 0 && (colons + 2 === rest.length || isIndent(codeAt(rest, colons + 2)))) {
        const value = this.logseqProperty(rest, colons, indent === 0 && !listed);
        if (value !== null) {
          property = rest.slice(0, colons);
          rest = value;
        }
      }
    }

    if (rest.indexOf("|") >= 0 && isTableDivider(rest)) {
      this.startTable();
      this.paragraph = null;
      return;
    }
    const caret = rest.lastIndexOf(" ^");
    if (caret >= 0 && isBlockId(rest, caret + 2)) rest = rest.slice(0, caret);

    const objectsBefore = this.sink.objects ?? 0;
    const words = this.inline(rest);
    // A line that shows only an image or an embed is what a lead-in above it introduced, not the text after it.
    if (words === "" && property === null && (this.sink.objects ?? 0) > objectsBefore) this.keepHiddenBlock();
    const pushed = property !== null ? this.keep(this.readingView ? shownLogseqProperty(property, rest, words) : words, false, true) : this.pushBody(words);
    // The text under a callout's title is no part of a sentence the title begins ("Never mix vinegar with bleach Descale…").
    if (calloutTitle) this.endBlock();
    // A line under a list item continues it, indented or not: a `-` below it is the next item
    // (Logseq's empty bullet), or a rule, never the underline of a heading.
    if (listed) this.inListItem = true;
    const heading = !quoted && !listed && property === null && !this.inListItem && indent <= 3;
    this.paragraph = heading ? { start, line: lineNo, text: words, pushed } : null;
  }

  /**
   * The H1 that names the note: its only H1, with no body text before it. SilverBullet and Logseq
   * pages (and some Obsidian notes) use H1s as sections, and an H1 below the opening prose heads a
   * section too: "Context", "Usage", "Types of pages" are no titles. Obsidian shows the file name.
   */
  titleHeading(): string | null {
    return this.h1Count === 1 ? this.openingH1 : null;
  }

  /** A line of fenced code, `indent` its leading spaces and tabs: searchable as written, without its quote markers (no tag, link or heading read in it). */
  private codeLine(raw: string, indent: number): void {
    let i = indent;
    while (codeAt(raw, i) === 62 /* > */ || (i > indent && isIndent(codeAt(raw, i)))) i++;
    this.pushBody(i > indent ? raw.slice(i).trimEnd() : raw.trim(), true);
  }

  /**
   * Indented code is read as text (its words, tags and links count), but where it shows a fence
   * (`    ```tasks` over an example query) the fence's lines are code, as the whole block is in
   * Obsidian: an example's `#tag` or `# comment` is no tag or heading. Whether the line was one.
   */
  private shownFenceLine(raw: string, indent: number): boolean {
    const blank = indent === raw.length;
    // The indented code ended (a line less indented), and the fence shown in it with it.
    if (this.shownFence !== null && !blank && this.fences?.indentedCode !== true) this.shownFence = null;
    const fence = raw.slice(afterBlockMarkers(raw, indent));
    if (this.shownFence !== null) {
      if (!closesFence(this.shownFence, fence)) this.codeLine(raw, indent);
      else {
        this.shownFence = null;
        this.endBlock();
      }
      return true;
    }
    const opener = fenceOpening(fence);
    if (opener === null) return false;
    this.shownFence = opener;
    this.paragraph = null;
    this.endBlock();
    return true;
  }

  /**
   * A Logseq (org-mode) block's opening line at `i` (`#+BEGIN_SRC clojure`, `#+BEGIN_NOTE`), when a later
   * line closes it (`#+END_SRC`): its lines are then code, or a block of their own. Whether it was one.
   */
  private opensOrgBlock(raw: string, i: number, start: number): boolean {
    const opening = ORG_BLOCK_OPENING.exec(raw.slice(i, i + 40));
    if (opening === null) return false;
    const closer = `#+${opening[1] === "BEGIN" ? "END" : "end"}_${opening[2]}`;
    if (this.closers.at(closer, start + raw.length) < 0) return false;
    this.orgBlock = { closer, code: ORG_CODE_BLOCKS.has(opening[2].toUpperCase()) };
    this.paragraph = null;
    this.endBlock();
    return true;
  }

  /**
   * In a shown parse, a Logseq hiccup form (`[:div.videoWrapper` over its `[:iframe {…}]`) or a SilverBullet
   * expression (`${query[[` over its query) opening at `i` and closing on a later line: a block of the
   * words the form shows (or of none, as an image is), or of the expression's code, as a `#+BEGIN_QUERY`
   * is. Whether it was one; one that closes on its own line is read with the line's text (`inline-text.ts`).
   * The index's parse reads such an expression's lines as text, as it always has (false): only their tags
   * and links are none, up to its close (`expressionClosingLine`).
   */
  private opensSpan(raw: string, i: number, start: number): boolean {
    const hiccup = this.readingView && opensHiccup(raw, i);
    if (!hiccup && !opensExpression(raw, i)) return false;
    // In the index's parse, none opens inside a Logseq code block's lines or another expression's.
    if (!this.readingView && (this.orgBlock !== null || this.spanEnd >= start)) return false;
    const at = start + i;
    let end = -1;
    let words = "";
    if (hiccup) {
      const { form, read } = readHiccup(this.text, at, at + MAX_SPAN);
      this.spanBudget -= read;
      if (form !== null) ({ end, text: words } = form);
    } else {
      const expression = expressionEnd(this.text, at, at + MAX_SPAN);
      this.spanBudget -= expression.read;
      end = expression.end;
    }
    if (end <= start + raw.length) return false;
    this.spanEnd = end;
    if (!this.readingView) {
      this.lineSink = this.quietSink;
      return false;
    }
    this.spanIsCode = !hiccup;
    this.paragraph = null;
    this.endBlock();
    if (!hiccup) this.pushBody(raw.slice(i).trim(), true);
    else if (words === "") this.keepHiddenBlock();
    else this.pushBody(words);
    if (hiccup) this.endBlock();
    return true;
  }

  /** In a shown parse, a later line of such a form: an expression's code, none of a hiccup form's text; on its last line, the text after it. */
  private spanLine(raw: string, start: number): void {
    const end = this.spanEnd - start;
    let indent = 0;
    while (isIndent(codeAt(raw, indent))) indent++;
    if (this.spanIsCode) this.codeLine(end < raw.length ? raw.slice(0, end) : raw, indent);
    if (end > raw.length) return;
    this.endBlock();
    this.pushBody(this.inline(raw.slice(end)));
  }

  /**
   * In the index's parse, the line such an expression closes on: read as any of its lines (the same words),
   * and then its tags and links after the close, from the closing `}` on (`}#x` is no tag, as on the line).
   */
  private expressionClosingLine(raw: string, start: number, lineNo: number): void {
    const end = this.spanEnd - start;
    // Still in the expression while the line is read (no block or expression opens on it), but no longer closing.
    this.spanEnd = start;
    this.line(raw, start, lineNo);
    this.spanEnd = -1;
    this.quietSink.tags.length = this.quietSink.links.length = 0;
    this.lineSink = this.sink;
    inlineToText(raw.slice(end - 1), this.sink);
  }

  /** In the index's parse, a Logseq code block's opening line at `i` (`#+BEGIN_QUERY`) that a later line closes: its lines' tags and links are none. */
  private opensOrgCodeBlock(raw: string, i: number, start: number): void {
    const opening = ORG_BLOCK_OPENING.exec(raw.slice(i, i + 40));
    if (opening === null || !ORG_CODE_BLOCKS.has(opening[2].toUpperCase())) return;
    const closer = `#+${opening[1] === "BEGIN" ? "END" : "end"}_${opening[2]}`;
    if (this.closers.at(closer, start + raw.length) < 0) return;
    this.orgBlock = { closer, code: true };
    this.lineSink = this.quietSink;
  }

  /**
   * A line inside a Logseq block: its closing line, or a line of its code, ends here (true); its text is
   * read as any line is (false). The index's parse reads every line as text (`inline` sends a code
   * block's tags and links nowhere), the closing one too.
   */
  private orgBlockLine(raw: string, indent: number): boolean {
    const block = this.orgBlock!;
    // Closed in a quote or a list item as it was opened there (`> #+END_SRC`).
    if (raw.startsWith(block.closer, afterBlockMarkers(raw, indent))) {
      this.orgBlock = null;
      this.quietSink.tags.length = this.quietSink.links.length = 0;
      this.lineSink = this.sink;
      if (!this.readingView) return false;
      this.paragraph = null;
      this.endBlock();
      return true;
    }
    if (!this.readingView) return false;
    if (block.code) this.codeLine(raw, indent);
    return block.code;
  }

  /**
   * A line inside an HTML (`<!-- … -->`) or Obsidian (`%% … %%`) comment block. Obsidian shows none of
   * it: no heading or setext underline is read there (a commented-out draft's `# Heading` made a
   * section, and could become the title); tags and links only as `commentText` says. Its words stay
   * searchable, as Obsidian's own search finds them.
   */
  private commentLine(raw: string, textStart: number): void {
    const close = this.comment!;
    // Nothing in a comment is markdown, but a commented-out draft's paragraphs and list items stay apart when shown.
    if (this.blocks && (textStart === raw.length || listMarkerEnd(raw, textStart) > 0)) this.endBlock();
    const at = raw.indexOf(close);
    if (at < 0) {
      // Nothing inside is markdown, a code fence neither: `<!-- ```sh` … ``` -->` is one comment.
      this.commentText(raw);
      return;
    }
    this.commentText(raw.slice(0, at));
    this.comment = null;
    // What follows the closing marker on its line is inline text, never the start of a block; the next line starts one.
    this.pushBody(this.inline(raw.slice(at + close.length)));
    this.endBlock();
  }

  /**
   * The marker that will close a comment block opening on this line (at `i`, its first character),
   * or null. Only one that a later line closes is taken: a stray `%%` (a Lua pattern, a Mermaid line
   * quoted in prose) would otherwise hide every heading after it.
   */
  private commentOpening(raw: string, i: number, start: number): "-->" | "%%" | null {
    const after = start + raw.length;
    if (raw.startsWith("%%", i)) return raw.indexOf("%%", i + 2) < 0 && this.closers.at("%%", after) >= 0 ? "%%" : null;
    if (raw.startsWith("<!--", i)) return raw.indexOf("-->", i + 4) < 0 && this.closers.at("-->", after) >= 0 ? "-->" : null;
    return null;
  }

  private commentText(s: string): void {
    const html = this.comment === "-->";
    const words = inlineToText(s, html ? this.htmlCommentSink : this.sink).trim();
    // Reading view shows none of a comment; its tags and links were still read.
    if (!this.readingView) this.keep(words);
    if (html) this.htmlCommentSink.tags.length = this.htmlCommentSink.links.length = 0;
  }

  /** Adds a body line's text to the open section. */
  private pushBody(s: string, code = false): boolean {
    const pushed = this.keep(s, code);
    if (pushed) this.bodyText = true;
    return pushed;
  }

  /**
   * In a shown parse, a line that showed only an image or an embed: an empty block (`block-text.ts`),
   * and the next text starts a block of its own.
   */
  private keepHiddenBlock(): void {
    const { lines, marks } = this.current;
    if (marks === null) return;
    lines.push("");
    marks.push(STARTS_BLOCK);
    this.endBlock();
  }

  /** In a shown parse, the next text starts a block of its own; a table's rows end with it. */
  private endBlock(): void {
    this.blockEnded = true;
    this.inTable = false;
  }

  /**
   * A table's divider: the header row above it and each row below are blocks of their own, with or
   * without pipes around them (`Name | Value` over `--- | ---`), never one run of words.
   */
  private startTable(): void {
    const { marks } = this.current;
    if (marks !== null && marks.length > 0 && !this.blockEnded) marks[marks.length - 1] |= STARTS_BLOCK;
    this.blockEnded = true;
    this.inTable = true;
  }

  /**
   * Adds a line of text to the open section, and in a shown parse where it stands among the blocks
   * (a `key:: value` property's line in a block of properties); whether there was text.
   */
  private keep(s: string, code = false, property = false): boolean {
    if (s === "") return false;
    const { lines, marks } = this.current;
    lines.push(s);
    if (marks !== null) {
      const starts = this.blockEnded || property !== this.propertyBefore;
      marks.push((starts ? STARTS_BLOCK : 0) | (code ? CODE_LINE : 0));
      this.blockEnded = false;
      this.propertyBefore = property;
    }
    return true;
  }

  private inline(s: string): string {
    return inlineToText(s, this.lineSink).trim();
  }

  /** Reads a Logseq/Dataview `key:: value` line; returns the value as text, or null if not one. */
  private logseqProperty(line: string, colons: number, topLevel: boolean): string | null {
    const key = line.slice(0, colons);
    // Logseq's own settings (`logseq.order-list-type:: number`) are properties only a shown parse reads: the index reads the line as written.
    if (!/^[A-Za-z][\w-]*$/.test(key) && !(this.readingView && LOGSEQ_SETTING.test(key))) return null;
    const value = line.slice(colons + 2).trim();
    const name = key.toLowerCase();
    if (name === "tags" || name === "tag") {
      // An example's `tags:: motor` shows how tags are written: no tag of this note.
      if (this.lineSink !== this.sink) return value;
      for (const item of value.split(",")) {
        const tag = item.trim().replace(/^#/, "").replace(/^\[\[(.*)\]\]$/, "$1");
        if (tag) this.propertyTags.push(tag);
      }
    } else if ((name === "alias" || name === "aliases") && topLevel) {
      for (const item of value.split(",")) {
        const alias = item.trim().replace(/^\[\[(.*)\]\]$/, "$1");
        if (alias) this.propertyAliases.push(alias);
      }
    } else if (name === "title" && topLevel && this.propertyTitle === null && value) {
      this.propertyTitle = value;
    }
    return value;
  }

  private setextHeading(p: ParagraphLine, level: number): void {
    // The paragraph line was taken as body text; it is the heading after all.
    if (p.pushed) {
      this.current.lines.pop();
      this.current.marks?.pop();
    }
    this.openSection(level, p.text, p.start, p.line);
    this.paragraph = null;
  }

  private openSection(level: number, heading: string, start: number, line: number): void {
    this.close(start);
    this.inTable = false;
    const stack = this.stack;
    while (stack.length > 0 && stack[stack.length - 1].level >= level) stack.pop();
    stack.push({ level, heading });
    if (level === 1 && ++this.h1Count === 1 && !this.bodyText && heading) this.openingH1 = heading;
    this.current = { heading, level, headingPath: stack.map((h) => h.heading), start, line, lines: [], marks: this.blocks ? [] : null };
  }

  private close(end: number): void {
    const c = this.current;
    const text = c.marks === null ? c.lines.join("\n") : blockText(c.lines, c.marks);
    // An empty preamble (the note opens with a heading) is not worth a section.
    if (c.level === 0 && text === "") return;
    this.sections.push({ heading: c.heading, level: c.level, headingPath: c.headingPath, start: c.start, end, text, line: c.line });
  }
}

/**
 * Logseq's properties that are the outliner's own state, which it never shows: whether a block is
 * folded, its heading style, a highlight's page, a flash card's schedule… "collapsed: true;" is
 * nothing the note says.
 */
const LOGSEQ_STATE = /^(?:logseq\.[\w.-]+|custom-id|collapsed|heading|background[-_]color|created[-_]at|updated[-_]at|last[-_]modified[-_]at|query-(?:table|properties|sort-by|sort-desc)|ls-type|hl-(?:type|page|stamp|color)|card-[\w-]+)$/i;

/** Characters a hiccup form or an expression of many lines may span. */
const MAX_SPAN = 20_000;

/** Logseq's settings of a block, `logseq.order-list-type:: number`: how the outliner draws it. */
const LOGSEQ_SETTING = /^logseq\.[\w.-]+$/;

/** A Logseq (org-mode) block's opening marker at the start of a line: `#+BEGIN_SRC`, `#+begin_note`. */
const ORG_BLOCK_OPENING = /^#\+(BEGIN|begin)_([A-Za-z]+)(?![\w-])/;

/** The Logseq blocks shown as code (a query shows its results, and its text is no prose). */
const ORG_CODE_BLOCKS = new Set(["SRC", "QUERY", "EXAMPLE", "EXPORT"]);

/**
 * A `key:: value` line as a shown note gives it: as the frontmatter's properties are shown, by the
 * same rule ("type: Feature;", no id, url or tags, no blob), its value as `words` read it; or nothing.
 */
function shownLogseqProperty(name: string, value: string, words: string): string {
  if (LOGSEQ_STATE.test(name)) return "";
  const [property] = shownProperties({ [name]: value });
  return property === undefined ? "" : (propertyLine(property, () => words) ?? "");
}

function pushText(lines: string[], s: string): boolean {
  if (s === "") return false;
  lines.push(s);
  return true;
}

function isIndent(c: number): boolean {
  return c === 32 || c === 9;
}

function runLength(s: string, at: number, c: number): number {
  let i = at;
  while (codeAt(s, i) === c) i++;
  return i - at;
}

/** Counts a line of only `marker` characters (spaces allowed between them); null if it is not one. */
function ruleLine(raw: string, from: number, marker: number): { count: number; spaced: boolean } | null {
  let count = 0;
  let spaced = false;
  let sawSpace = false;
  for (let i = from; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c === marker) {
      if (sawSpace) spaced = true;
      count++;
    } else if (isIndent(c)) {
      sawSpace = true;
    } else return null;
  }
  return { count, spaced };
}

/** End of a list marker (`- `, `* `, `+ `, `1. `, `1) `) at `i`, or -1. */
function listMarkerEnd(raw: string, i: number): number {
  const c = codeAt(raw, i);
  if (c === 45 || c === 42 || c === 43) {
    const next = codeAt(raw, i + 1);
    return i + 1 === raw.length || isIndent(next) ? i + 1 : -1;
  }
  let j = i;
  while (j - i < 9 && codeAt(raw, j) >= 48 && codeAt(raw, j) <= 57) j++;
  if (j === i) return -1;
  const d = codeAt(raw, j);
  if ((d === 46 || d === 41) && (j + 1 === raw.length || isIndent(codeAt(raw, j + 1)))) return j + 1;
  return -1;
}

/** Where a line's text starts past its indent (`indent`), quote markers and one list marker. */
function afterBlockMarkers(raw: string, indent: number): number {
  let i = indent;
  while (codeAt(raw, i) === 62 /* > */ || (i > indent && isIndent(codeAt(raw, i)))) i++;
  const afterMarker = listMarkerEnd(raw, i);
  if (afterMarker < 0) return i;
  i = afterMarker;
  while (isIndent(codeAt(raw, i))) i++;
  return i;
}

function stripClosingHashes(s: string): string {
  let end = s.length;
  while (end > 0 && isIndent(s.charCodeAt(end - 1))) end--;
  let j = end;
  while (j > 0 && s.charCodeAt(j - 1) === 35) j--;
  // `## Title ##` closes; `## C#` does not (the hashes must follow a space).
  if (j < end && (j === 0 || isIndent(s.charCodeAt(j - 1)))) end = j;
  return s.slice(0, end);
}

function isTableDivider(s: string): boolean {
  let dash = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 45) dash = true;
    else if (c !== 124 && c !== 58 && !isIndent(c)) return false;
  }
  return dash;
}

/** Obsidian block ids: `^` then letters, digits and dashes to the end of the line. */
function isBlockId(s: string, from: number): boolean {
  if (from >= s.length) return false;
  for (let i = from; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const ok = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 45;
    if (!ok) return false;
  }
  return true;
}

function forEachLine(text: string, from: number, to: number, visit: (line: string) => void): void {
  let pos = from;
  while (pos < to) {
    let end = text.indexOf("\n", pos);
    if (end < 0 || end > to) end = to;
    visit(text.slice(pos, end).trim());
    pos = end + 1;
  }
}

function countReplacementChars(text: string): number {
  let count = 0;
  for (let at = text.indexOf("\uFFFD"); at >= 0; at = text.indexOf("\uFFFD", at + 1)) count++;
  return count;
}

/** Lower-cased, `#`-less, with every parent of a nested tag (`a/b/c` → `a/b/c`, `a/b`, `a`). */
function addTag(raw: string, out: string[], seen: Set<string>): void {
  const parts = raw.trim().replace(/^#+/, "").toLowerCase().split("/").filter((p) => p !== "");
  for (let k = parts.length; k >= 1; k--) {
    const tag = parts.slice(0, k).join("/");
    if (!seen.has(tag)) {
      seen.add(tag);
      out.push(tag);
    }
  }
}

/** The note's file name without folders and `.md` (only that: `a.b.c.md` → `a.b.c`): its title when nothing else gives one, and what a `[[link]]` to it says. */
export function fileTitle(path: string): string {
  const slash = path.lastIndexOf("/");
  const name = slash >= 0 ? path.slice(slash + 1) : path;
  return name.length > 3 && name.slice(-3).toLowerCase() === ".md" ? name.slice(0, -3) : name;
}

function unique(items: string[]): string[] {
  return [...new Set(items)];
}
