// Fenced code blocks as CommonMark reads them, which is how Obsidian renders them: the one home of
// that rule. The answer's escaper, the web page cleaner, the bare-note reader and the page's
// passages each read fences; with a copy each, they disagreed on the same text (a `~~~` inside a
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
  let at = 0;
  while (at < 3 && line.charCodeAt(at) === 32) at++;
  const char = line[at];
  if (char !== "`" && char !== "~") return null;
  let end = at + 1;
  while (line[end] === char) end++;
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
 * What a fence stands behind: a block quote's `>`, or a list item whose text starts `column`
 * columns in. Each later line of its block must stand behind the same, or the block has ended.
 */
type Container = { kind: "quote" } | { kind: "item"; column: number };

interface OpenBlock {
  fence: FenceLine;
  containers: Container[];
}

/** A list item's marker: `-`, `+`, `*`, `1.`, `1)`, then spaces, or nothing (an empty item, Logseq's empty bullet). */
const LIST_MARKER = /^(?:[-+*]|\d{1,9}[.)])(?=[ \t]|$)/;

/**
 * Reads a text's lines in order and says which are fenced code: `read(line)` for each line, with
 * line ends already taken off (`\r` too). Fences behind block quote markers (callouts too) and list
 * markers count, and end with their quote or item. A fence indented under the list item above it
 * (`- x` over `  ```js`) is the item's: it ends at a line less indented than the item's text, and
 * closes up to three spaces past it. Lists nest to any depth, by spaces or tabs (Logseq's outlines
 * are nothing else): a line is in each item above it whose text it is indented as far as, and a
 * marker up to three columns past the deepest of those starts an item inside it. (Quote markers
 * aside: items are followed by columns from the start of the line.) Where a block is never closed,
 * it runs to the end.
 */
export class FenceReader {
  private open: OpenBlock | null = null;
  /** Where the text of each list item the next line may be in starts, outermost first (so ascending). */
  private items: number[] = [];
  /** Whether the last line was paragraph text, which a less indented line may go on (a lazy line). */
  private inParagraph = false;
  /** The block the last line opened, was in or closed; null outside one. */
  fence: FenceLine | null = null;
  /** Whether the last line, read as "outside", is indented code (four columns past its list item's text, where no paragraph goes on). */
  indentedCode = false;

  read(line: string): FencePart {
    this.indentedCode = false;
    if (this.open !== null) {
      this.inParagraph = false;
      const inside = withinContainers(line, this.open.containers);
      if (inside !== null) {
        const fence = fenceLine(inside);
        if (fence !== null && isCloserOf(this.open.fence, fence)) {
          this.open = null;
          return "closer";
        }
        return "code";
      }
      // Its quote or list item ended, and the block with it: the line is read anew.
      this.open = null;
    }
    this.open = openedBlock(line, this.items);
    this.fence = this.open?.fence ?? null;
    // What a line is, is read on the item's text it stands on: `\t- b` under `- a` starts an item.
    const inItem = inDeepestItem(line, this.items).rest;
    const lazy = this.open === null && this.inParagraph && !startsBlock(inItem);
    if (!lazy) this.items = itemsAfter(line, this.items);
    // Four columns in, where no paragraph goes on, is indented code: no paragraph a lazy line could go on either.
    const indented = leadingColumns(inItem);
    this.indentedCode = this.open === null && !this.inParagraph && indented.length < inItem.length && indented.columns >= 4;
    this.inParagraph = this.open === null && !this.indentedCode && !NO_PARAGRAPH.test(line);
    return this.open === null ? "outside" : "opener";
  }
}

/** A heading, a quote, a rule or a list item: what ends a paragraph instead of going on with it (a fence too). */
const BLOCK_START = /^ {0,3}(?:#{1,6}(?:[ \t]|$)|>|(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$|(?:[-+*]|\d{1,9}[.)])[ \t]+\S)/;

/** A line with no paragraph text that a lazy line could go on: blank, a heading or a rule. */
const NO_PARAGRAPH = /^(?:[ \t]*|(?: {0,3}(?:#{1,6}(?:[ \t].*)?|(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})))$/;

function startsBlock(line: string): boolean {
  return BLOCK_START.test(line) || fenceOpening(line) !== null;
}

/** The list items a line read outside code leaves the next lines in: those it stands in, and the one it starts. */
function itemsAfter(line: string, items: number[]): number[] {
  const spaces = leadingColumns(line);
  if (spaces.length === line.length) return items;
  const kept = itemsHolding(spaces.columns, items);
  const marker = spaces.columns - (kept.at(-1) ?? 0) <= 3 ? LIST_MARKER.exec(line.slice(spaces.length)) : null;
  if (marker === null) return kept;
  return [...kept, spaces.columns + marker[0].length + itemGap(line.slice(spaces.length + marker[0].length)).columns];
}

/** The items a line indented `columns` stands in: those whose text starts no further in. */
function itemsHolding(columns: number, items: number[]): number[] {
  let count = 0;
  while (count < items.length && items[count] <= columns) count++;
  return count === items.length ? items : items.slice(0, count);
}

/** The spaces after a list marker that belong to it: one to four; five or more start indented code one space in, and an empty item's text starts one space in. */
function itemGap(text: string): { length: number; columns: number } {
  const gap = leadingColumns(text);
  return gap.columns > 4 || gap.length === text.length ? { length: Math.min(1, gap.length), columns: 1 } : gap;
}

/** The block a line opens, behind whatever quote and list markers it stands, in the deepest item above it that holds it. */
function openedBlock(line: string, items: number[]): OpenBlock | null {
  const inItem = inDeepestItem(line, items);
  const containers: Container[] = inItem.item === null ? [] : [inItem.item];
  let rest = inItem.rest;
  for (;;) {
    const spaces = leadingColumns(rest);
    const after = rest.slice(spaces.length);
    if (spaces.columns <= 3 && after[0] === ">") {
      containers.push({ kind: "quote" });
      rest = after.slice(after[1] === " " || after[1] === "\t" ? 2 : 1);
      continue;
    }
    const marker = spaces.columns <= 3 ? LIST_MARKER.exec(after) : null;
    if (marker !== null) {
      const text = after.slice(marker[0].length);
      const gap = itemGap(text);
      containers.push({ kind: "item", column: spaces.columns + marker[0].length + gap.columns });
      rest = text.slice(gap.length);
      continue;
    }
    break;
  }
  const fence = fenceOpening(rest);
  return fence === null ? null : { fence, containers };
}

/**
 * The line as the deepest list item above that holds it sees it (a fence up to three spaces in, or a
 * nested item, stands on the item's text), with that item; the line itself when none holds it.
 */
function inDeepestItem(line: string, items: number[]): { item: Container | null; rest: string } {
  const column = itemsHolding(leadingColumns(line).columns, items).at(-1);
  if (column === undefined) return { item: null, rest: line };
  const item: Container = { kind: "item", column };
  return { item, rest: withinContainers(line, [item])! };
}

/** The line as its block sees it, behind its containers' markers and indents; null when a container ended. */
function withinContainers(line: string, containers: Container[]): string | null {
  let rest = line;
  for (const container of containers) {
    const spaces = leadingColumns(rest);
    if (container.kind === "quote") {
      if (spaces.columns > 3 || rest[spaces.length] !== ">") return null;
      const after = rest.slice(spaces.length + 1);
      rest = after[0] === " " || after[0] === "\t" ? after.slice(1) : after;
    } else if (spaces.length === rest.length) {
      rest = "";
    } else if (spaces.columns < container.column) {
      return null;
    } else {
      rest = " ".repeat(spaces.columns - container.column) + rest.slice(spaces.length);
    }
  }
  return rest;
}

/** The spaces and tabs a text starts with: how many characters, and how many columns (a tab to the next multiple of four). */
function leadingColumns(text: string): { length: number; columns: number } {
  let length = 0;
  let columns = 0;
  for (;;) {
    const char = text.charCodeAt(length);
    if (char === 32) columns++;
    else if (char === 9) columns += 4 - (columns % 4);
    else return { length, columns };
    length++;
  }
}
