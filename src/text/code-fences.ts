// Fenced code blocks as CommonMark reads them, which is how Obsidian renders them: the one home of
// that rule. The answer's escaper, the web page cleaner, the bare-note reader, the page's passages
// and the index's note parser each read fences; with a copy each, they disagreed on the same text (a `~~~` inside a
// ``` block ended it for one of them, a closer followed by a no-break space for another).
//
// The rule: a fence is up to three spaces, then three or more backticks or tildes, taken whole; an
// opener's info string follows (a backtick fence's may hold no backtick: that line is text with a
// code span); a closer is a run of the opener's character at least as long, then nothing but spaces
// and tabs, up to three spaces in. A block never closed runs to the end of its container.

/** A line shaped like a fence: what a block opens or closes with. */
export interface FenceLine {
  /** The spaces before the run (none to three). */
  indent: string;
  /** The run of backticks or tildes, whole. */
  marker: string;
  /** The rest of the line (an opener's info string, as written). */
  rest: string;
}

/** Nothing a closing fence may have after its run: spaces and tabs only (a no-break space is text). */
const SPACES_AND_TABS = /^[ \t]*$/;

/**
 * The fence a line starts with, whether it could open or close a block, or null. Read in one step
 * along the line, however long its run (a line of 100,000 backticks is read once).
 */
export function fenceLine(line: string): FenceLine | null {
  // Every read stays inside the line: one past its end makes the engine drop the code it compiled for this and its callers, and compile again.
  const { length } = line;
  let at = 0;
  while (at < 3 && at < length && line.charCodeAt(at) === 32) at++;
  if (at === length) return null;
  const char = line[at];
  if (char !== "`" && char !== "~") return null;
  let end = at + 1;
  while (end < length && line[end] === char) end++;
  if (end - at < 3) return null;
  return { indent: line.slice(0, at), marker: line.slice(at, end), rest: line.slice(end) };
}

/** Whether a fence-shaped line opens a block: a backtick fence's info string may hold no backtick. */
export function opensBlock(fence: FenceLine): boolean {
  return fence.marker[0] === "~" || !fence.rest.includes("`");
}

/** The block a line opens, or null. */
export function fenceOpening(line: string): FenceLine | null {
  const fence = fenceLine(line);
  return fence !== null && opensBlock(fence) ? fence : null;
}

/** Whether a fence-shaped line closes the block `open` opened. */
export function isCloserOf(open: { marker: string }, fence: FenceLine): boolean {
  return fence.marker[0] === open.marker[0] && fence.marker.length >= open.marker.length && SPACES_AND_TABS.test(fence.rest);
}

/** Whether `line` closes the block `open` opened. */
export function closesFence(open: { marker: string }, line: string): boolean {
  const fence = fenceLine(line);
  return fence !== null && isCloserOf(open, fence);
}

/** An info string's first word, what a code block processor is chosen by (`dataviewjs`, `tasks`). */
export function fenceLanguage(info: string): string {
  return /^[ \t]*([^ \t]*)/.exec(info)![1];
}

// ── whole texts ───────────────────────────────────────────────────────────────────────────────

/** What a line is to the fenced blocks around it. */
export type FencePart = "opener" | "code" | "closer" | "outside";

/**
 * What a block stands in: a block quote, or a list item whose text starts `width` columns past the
 * text of what holds it (the marker's indent, the marker, the spaces after it). Lists themselves
 * are left out: they hold items and nothing else, so no line ends one that did not end its item.
 */
type Container = { kind: "quote" } | { kind: "item"; width: number };

/** The block open inside the deepest container, which a line may go on. */
type Leaf = "none" | "paragraph" | "indented code" | "fenced code";

/**
 * What reads a text's lines in order and says which are fenced code: `read(line)` for each line,
 * with line ends already taken off (`\r` too). `fenceReaderFor` picks one for a text.
 */
export interface FenceLines {
  read(line: string): FencePart;
  /** The block the last line opened, was in or closed; null outside one. */
  readonly fence: FenceLine | null;
  /** Whether the last line, read as "outside", is indented code (where a fence may be shown, not opened). */
  readonly indentedCode: boolean;
}

/**
 * The reader for a text's lines, or null where no line can be fenced code (no three backticks or
 * tildes in a row: most notes). Where every such run stands at a line's start, or behind a character
 * no quote or list marker or indent is made of, no container can stand before a fence, and the
 * margin's rule alone reads the text as the full reader would (MarginFenceReader); elsewhere
 * FenceReader follows the blocks. Reading a note's lines through the full reader made a cold index
 * (a fresh process) 15 % slower to parse, most of it the engine compiling that reader.
 */
export function fenceReaderFor(text: string): FenceLines | null {
  const backticks = whereRunsStand(text, "```");
  const tildes = whereRunsStand(text, "~~~");
  if (backticks === "none" && tildes === "none") return null;
  return backticks === "behind markers" || tildes === "behind markers" ? new FenceReader() : new MarginFenceReader();
}

/**
 * Where a text's runs of three `run` characters stand: nowhere, each at a line's start or behind
 * text, or one of them behind what a container's markers and indents could be (spaces, tabs, `>`,
 * a list marker's characters), where only the full reader says what it is. Conservative on purpose:
 * a run after `1.2 ` or `--- ` goes to the full reader too. A `\r` counts as a line's end, in case a
 * caller splits lines there.
 */
function whereRunsStand(text: string, run: string): "none" | "at the margin" | "behind markers" {
  let at = text.indexOf(run);
  if (at < 0) return "none";
  while (at >= 0) {
    let from = at;
    while (from > 0 && isContainerChar(text.charCodeAt(from - 1))) from--;
    if (from < at && (from === 0 || isLineEnd(text.charCodeAt(from - 1)))) return "behind markers";
    // A later run on this line stands behind this one's characters, so behind text.
    const lineEnd = text.indexOf("\n", at);
    if (lineEnd < 0) break;
    at = text.indexOf(run, lineEnd);
  }
  return "at the margin";
}

/** The characters a line's containers can put before its block: indents, quote markers, list markers (`-`, `+`, `*`, `1.`, `1)`). */
function isContainerChar(char: number): boolean {
  return isSpaceOrTab(char) || char === 62 || char === 45 || char === 43 || char === 42 || char === 46 || char === 41 || (char >= 48 && char <= 57);
}

function isLineEnd(char: number): boolean {
  return char === 10 || char === 13;
}

/**
 * The reader for a text whose fence-shaped runs all stand at a line's start or behind text
 * (`fenceReaderFor`). There a line opens a block only at the margin, so at the top level, in no
 * quote or item: no container is open around that block to end it early, and no lazy line, list
 * item or indent changes what its lines are. So the top level's rule is the whole rule: an opener
 * at the margin, then code up to a closer (up to three spaces in) or the text's end. It says what
 * FenceReader says of every line (its part and its `fence`; the tests compare the two on random
 * texts, and both with CommonMark's reference parser). `indentedCode` stays false: it is asked to find a fence shown in
 * indented code, and such a text shows none (a fence-shaped run there would stand behind an indent).
 */
class MarginFenceReader implements FenceLines {
  fence: FenceLine | null = null;
  readonly indentedCode = false;
  private inBlock = false;

  read(line: string): FencePart {
    if (this.inBlock) return this.blockLine(line);
    this.fence = null;
    // No fence-shaped run in this text stands behind spaces, so an opener starts the line.
    const first = line.length > 0 ? line.charCodeAt(0) : 0;
    if (first !== 96 && first !== 126) return "outside";
    this.fence = fenceOpening(line);
    if (this.fence === null) return "outside";
    this.inBlock = true;
    return "opener";
  }

  /** A line in the open block: its closer, or its code. */
  private blockLine(line: string): FencePart {
    const fence = fenceLine(line);
    if (fence === null || !isCloserOf(this.fence!, fence)) return "code";
    this.inBlock = false;
    return "closer";
  }
}

/**
 * Reads a text's lines in order and says which are fenced code: `read(line)` for each line, with
 * line ends already taken off (`\r` too). It follows CommonMark's block structure as its reference
 * parser does, for what can hold or hide a fence: block quotes (callouts too) and list items,
 * nested in each other to any depth by spaces or tabs (Logseq's outlines are nothing else), and
 * the paragraphs, headings, rules and indented code beside them. So a fence stands behind its
 * containers' markers or indented under its item, and ends with them; a paragraph is interrupted
 * only by what may interrupt one (not an item numbered other than 1, nor an empty one) and goes
 * on, lazily, on a line that leaves its quote. Where a block is never closed, it runs to the end.
 * Not read: HTML blocks and link reference definitions (a ``` inside a `<div>` counts as a fence).
 */
export class FenceReader implements FenceLines {
  /** The open quotes and items, outermost first. */
  private containers: Container[] = [];
  /** Where in `containers` the quotes stand, ascending: a blank line keeps every item open up to the first of them. */
  private quotes: number[] = [];
  /** Whether the deepest container is an item with nothing in it yet, which a blank line ends. */
  private emptyItem = false;
  private leaf: Leaf = "none";
  /** The block the last line opened, was in or closed; null outside one. */
  fence: FenceLine | null = null;
  /** Whether the last line, read as "outside", is indented code (four columns past its container's text, where no paragraph goes on). */
  indentedCode = false;

  read(line: string): FencePart {
    this.indentedCode = false;
    const at = new LineCursor(line);
    const matched = this.matchContainers(at);
    const allMatched = matched === this.containers.length;
    if (allMatched && this.leaf === "fenced code") return this.fencedLine(at);
    if (allMatched && this.leaf === "indented code" && (at.indent() >= 4 || at.blank())) {
      this.indentedCode = !at.blank();
      return "outside";
    }
    return this.newBlocks(at, matched, allMatched);
  }

  /**
   * Goes past the markers and indents of the open containers the line stays in; how many it does.
   * A blank rest stays in every item up to the next quote (each item's walk would make a thousand
   * blank lines under an outline a thousand deep a million steps).
   */
  private matchContainers(at: LineCursor): number {
    let quotesPassed = 0;
    for (let i = 0; i < this.containers.length; i++) {
      if (at.blank()) {
        const nextQuote = this.quotes[quotesPassed] ?? this.containers.length;
        if (nextQuote < this.containers.length) return nextQuote;
        return this.emptyItem ? this.containers.length - 1 : this.containers.length;
      }
      const container = this.containers[i];
      if (container.kind === "quote") {
        if (!at.passQuoteMarker()) return i;
        quotesPassed++;
      } else {
        if (at.indent() < container.width) return i;
        at.advanceOffset(container.width, true);
      }
    }
    return this.containers.length;
  }

  /** A line in the open fenced block's containers: its closer, or its code. */
  private fencedLine(at: LineCursor): FencePart {
    if (at.indent() > 3) return "code";
    const fence = fenceLine(at.line.slice(at.nonspace()));
    if (fence === null || !isCloserOf(this.fence!, fence)) return "code";
    this.leaf = "none";
    return "closer";
  }

  /**
   * The quotes and items a line starts where its open containers leave it, and the block it
   * starts in them (a fence, a heading, a rule, indented code), or the paragraph it is text of.
   */
  private newBlocks(at: LineCursor, matched: number, allMatched: boolean): FencePart {
    const tipWasParagraph = this.leaf === "paragraph";
    // A paragraph the line goes on in its own containers may be interrupted by less.
    let interrupting = allMatched && tipWasParagraph && !at.blank();
    let started = false;
    let leaf: LeafStart | null = null;
    for (;;) {
      const start = blockStart(at, interrupting, tipWasParagraph && !started);
      if (start === null) break;
      if (start.kind === "leaf") {
        leaf = start;
        break;
      }
      // The first container a line starts ends those it did not stay in.
      if (!started) this.closeContainersFrom(matched);
      this.enter(start.container);
      started = true;
      interrupting = false;
    }
    // A lazy line: text that leaves some container of a paragraph is still that paragraph's.
    if (!started && leaf === null && !allMatched && !at.blank() && tipWasParagraph) return "outside";
    if (!started) this.closeContainersFrom(matched);
    this.emptyItem = started && leaf === null && at.blank() && this.containers.at(-1)!.kind === "item";
    this.leaf = leaf?.leaf ?? (at.blank() ? "none" : "paragraph");
    this.fence = leaf?.fence ?? null;
    this.indentedCode = this.leaf === "indented code";
    return this.leaf === "fenced code" ? "opener" : "outside";
  }

  private enter(container: Container): void {
    if (container.kind === "quote") this.quotes.push(this.containers.length);
    this.containers.push(container);
  }

  /** Ends the open containers past the first `kept` (the quotes' places with them). */
  private closeContainersFrom(kept: number): void {
    if (kept >= this.containers.length) return;
    this.containers.length = kept;
    while (this.quotes.length > 0 && this.quotes[this.quotes.length - 1] >= kept) this.quotes.pop();
  }
}

/** A block a line starts: a heading or a rule (which hold no fence), indented code, or a fenced block and its fence. */
type LeafStart = { kind: "leaf"; leaf: Leaf; fence?: FenceLine };

/**
 * What starts where `at` stands, passed if it is a container: a quote or a list item, or a leaf
 * block; null for text. `interrupting`: the line goes on a paragraph in its own containers, which
 * only a bullet or an item numbered 1 with text after it interrupts, and a setext underline ends.
 * `paragraphTip`: a paragraph is still open, which indented code does not interrupt.
 */
function blockStart(at: LineCursor, interrupting: boolean, paragraphTip: boolean): { kind: "container"; container: Container } | LeafStart | null {
  // A blank rest starts nothing (and reading its first character would read past the line's end).
  if (at.blank()) return null;
  if (at.indent() >= 4) return paragraphTip ? null : { kind: "leaf", leaf: "indented code" };
  const rest = at.nonspace();
  const char = at.line[rest];
  if (char === ">") {
    at.passQuoteMarker();
    return { kind: "container", container: { kind: "quote" } };
  }
  if (char === "#" && ATX_HEADING.test(at.line.slice(rest, rest + 8))) return { kind: "leaf", leaf: "none" };
  const fence = char === "`" || char === "~" ? fenceOpening(at.line.slice(rest)) : null;
  if (fence !== null) return { kind: "leaf", leaf: "fenced code", fence: { ...fence, indent: " ".repeat(at.indent()) } };
  if (interrupting && SETEXT_UNDERLINE.test(at.line.slice(rest))) return { kind: "leaf", leaf: "none" };
  if (at.thematicBreakHere()) return { kind: "leaf", leaf: "none" };
  const item = enterListItem(at, interrupting);
  return item === null ? null : { kind: "container", container: item };
}

/** An ATX heading's opening: one to six `#`, then a space, a tab or the line's end. */
const ATX_HEADING = /^#{1,6}(?:[ \t]|$)/;
/** A setext heading's underline, which only a paragraph's next line can be. */
const SETEXT_UNDERLINE = /^(?:=+|-+)[ \t]*$/;
/** A list marker: `-`, `+`, `*`, or a number of up to nine digits and `.` or `)`. */
const LIST_MARKER = /[-+*]|(\d{1,9})[.)]/y;

/** The list item a line starts where `at` stands, its marker and the spaces that go with it passed; or null. */
function enterListItem(at: LineCursor, interrupting: boolean): Container | null {
  const line = at.line;
  // Most lines start with a letter: no regular expression is run for them (it cost about a sixth of the reader's own instructions).
  if (!isListMarkerStart(line.charCodeAt(at.nonspace()))) return null;
  LIST_MARKER.lastIndex = at.nonspace();
  const marker = LIST_MARKER.exec(line);
  if (marker === null) return null;
  const after = at.nonspace() + marker[0].length;
  if (after < line.length && !isSpaceOrTab(line.charCodeAt(after))) return null;
  if (interrupting && (Number(marker[1] ?? 1) !== 1 || /^[ \t]*$/.test(line.slice(after)))) return null;
  const markerIndent = at.indent();
  at.advanceNextNonspace();
  at.advanceOffset(marker[0].length, true);
  return { kind: "item", width: markerIndent + marker[0].length + at.passItemGap() };
}

/** `-`, `+`, `*` or a digit: what a list marker starts with. */
function isListMarkerStart(char: number): boolean {
  return char === 45 || char === 43 || char === 42 || (char >= 48 && char <= 57);
}

function isSpaceOrTab(char: number): boolean {
  return char === 32 || char === 9;
}

/**
 * A place on a line as CommonMark's parser keeps one: a character offset and a column (a tab
 * reaches the next multiple of four, and containers may take part of one).
 */
class LineCursor {
  offset = 0;
  column = 0;
  /** Where the run of spaces and tabs from `offset` ends, and its column: read once per run, however many containers stand on it. */
  private runFrom = -1;
  private runEnd = -1;
  private runEndColumn = 0;
  /** The last characters of a line that could be a thematic break from some place on: their character, where they start, and the last place three of them follow. */
  private breakTail: { char: string; from: number; lastStart: number } | null | undefined;

  constructor(readonly line: string) {}

  /** The first character from here that is not a space or a tab (the line's length when none is). */
  nonspace(): number {
    if (this.offset < this.runFrom || this.offset > this.runEnd) {
      let at = this.offset;
      let columns = this.column;
      // Not one read past the line's end (see fenceLine).
      for (const end = this.line.length; at < end && isSpaceOrTab(this.line.charCodeAt(at)); at++) columns = this.line.charCodeAt(at) === 9 ? columns + 4 - (columns % 4) : columns + 1;
      this.runFrom = this.offset;
      this.runEnd = at;
      this.runEndColumn = columns;
    }
    return this.runEnd;
  }

  /** How many columns of spaces and tabs stand before the next other character. */
  indent(): number {
    this.nonspace();
    return this.runEndColumn - this.column;
  }

  /** Whether nothing but spaces and tabs is left. */
  blank(): boolean {
    return this.nonspace() >= this.line.length;
  }

  advanceNextNonspace(): void {
    this.offset = this.nonspace();
    this.column = this.runEndColumn;
  }

  /** Passes `count` characters, or with `columns` that many columns (a tab then taken in part, where it must be). */
  advanceOffset(count: number, columns: boolean): void {
    while (count > 0 && this.offset < this.line.length) {
      if (this.line.charCodeAt(this.offset) === 9) {
        const toTab = 4 - (this.column % 4);
        const taken = columns ? Math.min(toTab, count) : 1;
        this.column += columns ? taken : toTab;
        if (!columns || taken === toTab) this.offset++;
        count -= taken;
      } else {
        this.offset++;
        this.column++;
        count--;
      }
    }
  }

  /** Passes a quote marker up to three columns in and one space or tab after it; whether there was one. */
  passQuoteMarker(): boolean {
    if (this.indent() >= 4 || this.line[this.nonspace()] !== ">") return false;
    this.advanceNextNonspace();
    this.advanceOffset(1, false);
    if (isSpaceOrTab(this.line.charCodeAt(this.offset))) this.advanceOffset(1, true);
    return true;
  }

  /**
   * Passes the spaces after a list marker that belong to it, and says how many columns they are:
   * one to four; five or more start indented code one column in, and an item with nothing after
   * its marker has its text one column in.
   */
  passItemGap(): number {
    const { offset, column } = this;
    do this.advanceOffset(1, true);
    while (this.column - column < 5 && isSpaceOrTab(this.line.charCodeAt(this.offset)));
    const gap = this.column - column;
    if (gap >= 1 && gap < 5 && this.offset < this.line.length) return gap;
    this.offset = offset;
    this.column = column;
    if (isSpaceOrTab(this.line.charCodeAt(this.offset))) this.advanceOffset(1, true);
    return 1;
  }

  /**
   * Whether the rest of the line is a thematic break (three or more `-`, `*` or `_`, spaces and
   * tabs between). The line's end is read once: a line of a thousand `- ` markers asks a thousand times.
   */
  thematicBreakHere(): boolean {
    this.breakTail ??= thematicBreakTail(this.line);
    const at = this.nonspace();
    return this.breakTail !== null && this.line[at] === this.breakTail.char && at >= this.breakTail.from && at <= this.breakTail.lastStart;
  }
}

/** The end of a line made of one of `-`, `*`, `_` with spaces and tabs: where it starts, and the last place three of them still follow. */
function thematicBreakTail(line: string): { char: string; from: number; lastStart: number } | null {
  let at = line.length - 1;
  while (at >= 0 && isSpaceOrTab(line.charCodeAt(at))) at--;
  const char = line[at];
  if (char !== "-" && char !== "*" && char !== "_") return null;
  let count = 0;
  let lastStart = -1;
  for (; at >= 0 && (line[at] === char || isSpaceOrTab(line.charCodeAt(at))); at--) {
    if (line[at] === char && ++count === 3) lastStart = at;
  }
  return { char, from: at + 1, lastStart };
}
