// The parses of recently shown notes, kept while their text is unchanged: follow-up questions and
// typing in the search box show the same long notes again and again, and parsing a long note costs
// more than the search that found it. Bounded by total characters, least recently shown dropped first.
// A shown note's section text also tells its blocks apart (see `withBlocks`): what a snippet quotes
// must not run a code block into the paragraph after it, or a table's rows into one line.
import { FenceReader } from "../text/code-fences";
import { parseShownNote } from "./parse-note-safely";
import type { NoteSection, ParsedNote } from "./types";

/** Characters of recently shown notes whose parse is kept (text and parse together, a few MB). */
const SHOWN_NOTES_CHARS = 2_000_000;

export class ShownNotes {
  /** Oldest first: a Map iterates in insertion order, and a hit is re-inserted at the end. */
  private readonly entries = new Map<string, { text: string; parsed: ParsedNote }>();
  private chars = 0;

  constructor(private readonly maxChars = SHOWN_NOTES_CHARS) {}

  /** The parse of `text`, reused when the note was shown before with exactly this text. */
  parse(path: string, text: string): ParsedNote {
    const cached = this.entries.get(path);
    if (cached && cached.text === text) {
      this.entries.delete(path);
      this.entries.set(path, cached);
      return cached.parsed;
    }
    const parsed = withBlocks(text, parseShownNote(path, text));
    if (cached) this.chars -= cached.text.length;
    // Delete first so a changed note moves to the newest end.
    this.entries.delete(path);
    this.entries.set(path, { text, parsed });
    this.chars += text.length;
    this.evictBeyondLimit(path);
    return parsed;
  }

  /** Paths whose parse is kept, oldest first. */
  paths(): string[] {
    return Array.from(this.entries.keys());
  }

  /** Drops the oldest parses until the total fits; the one just shown stays, however long. */
  private evictBeyondLimit(keep: string): void {
    for (const [oldest, entry] of this.entries) {
      if (this.chars <= this.maxChars || oldest === keep) break;
      this.entries.delete(oldest);
      this.chars -= entry.text.length;
    }
  }
}

/** What a line of the note is to the blocks around it; `block` counts the blocks from the top. */
interface BlockLine {
  start: number;
  /** Its letters and digits, all the parser's text keeps of a line in the same order. */
  letters: string;
  block: number;
  code: boolean;
}

/** A line that starts a block of its own even with no blank line above it: a list item, a table row, a heading. */
const OWN_BLOCK_START = /^(?:[-*+][ \t]|\d{1,9}[.)](?:[ \t]|$)|\||#{1,6}(?:[ \t]|$))/;
/** Quote markers (callouts live inside them) before a line's text. */
const QUOTE_MARKERS = /^[ \t]*(?:>[ \t]?)+/;

/**
 * The parse with each section's text keeping where its blocks end: lines of one block joined by a
 * line break as the parser joins them, blocks by a blank line, and a fenced code block's lines as
 * one code span. The parser keeps a line's words, one text line for each, in order, so each is found
 * again in the note by the letters it starts and ends with; one not found stays in the block before it.
 */
export function withBlocks(text: string, parsed: ParsedNote): ParsedNote {
  if (parsed.sections.length === 0 || parsed.sections.every((s) => !s.text.includes("\n"))) return parsed;
  const lines = blockLines(text, parsed.sections[0].start);
  // Sections come in the note's order: each one's lines are the next run of them.
  let from = 0;
  const sections = parsed.sections.map((s) => {
    while (from < lines.length && lines[from].start < s.start) from++;
    let to = from;
    while (to < lines.length && lines[to].start < s.end) to++;
    return sectionWithBlocks(s, lines.slice(from, to));
  });
  return { ...parsed, sections };
}

function blockLines(text: string, from: number): BlockLine[] {
  const out: BlockLine[] = [];
  // A note without three backticks or tildes in a row has no fence to read (most notes; as markdown.ts).
  const fences = text.includes("```") || text.includes("~~~") ? new FenceReader() : null;
  let block = 0;
  let broken = true;
  let wasQuoted = false;
  let wasCode = false;
  for (let pos = from; pos < text.length; ) {
    let end = text.indexOf("\n", pos);
    if (end < 0) end = text.length;
    const raw = text.slice(pos, end > pos && text.charCodeAt(end - 1) === 13 ? end - 1 : end);
    const part = fences?.read(raw) ?? "outside";
    if (part === "code") {
      if (!wasCode) block++;
      out.push({ start: pos, letters: lettersOf(raw), block, code: true });
      wasCode = true;
    } else {
      const quote = QUOTE_MARKERS.exec(raw)?.[0] ?? "";
      const rest = raw.slice(quote.length).trimStart();
      if (part !== "outside" || rest === "") broken = true;
      else {
        // A quote interrupts a paragraph; a line after a quote goes on in it (CommonMark's lazy continuation).
        if (broken || wasCode || (quote !== "" && !wasQuoted) || OWN_BLOCK_START.test(rest)) block++;
        out.push({ start: pos, letters: lettersOf(raw), block, code: false });
        broken = false;
        wasQuoted = quote !== "";
      }
      wasCode = false;
    }
    pos = end + 1;
  }
  return out;
}

/** A property line the parser put before a note's first words ("director: Ridley Scott;"): no line of the body. */
const PROPERTY_TEXT = /^[^\s:;][^:;]{0,59}: .*;$/u;

function sectionWithBlocks(section: NoteSection, inSection: BlockLine[]): NoteSection {
  if (!section.text.includes("\n")) return section;
  // A heading's own line holds no text of the section.
  const lines = section.level > 0 && inSection[0]?.start === section.start ? inSection.slice(1) : inSection;
  const groups: { block: number | "properties" | "unknown"; code: boolean; lines: string[] }[] = [];
  let at = 0;
  let properties = section.level === 0;
  for (const line of section.text.split("\n")) {
    properties &&= PROPERTY_TEXT.test(line);
    const last = groups[groups.length - 1];
    const i = properties ? -1 : findLine(line, lines, at);
    if (i >= 0) at = i + 1;
    const block = properties ? "properties" : i >= 0 ? lines[i].block : last && last.block !== "properties" ? last.block : "unknown";
    if (last && last.block === block) last.lines.push(line);
    else groups.push({ block, code: i >= 0 && lines[i].code, lines: [line] });
  }
  const text = groups.map((g) => (g.code ? codeSpan(g.lines.join("\n")) : g.lines.join("\n"))).join("\n\n");
  return text === section.text ? section : { ...section, text };
}

/** A code block's text as one code span, fenced by more backticks than any run inside it. */
function codeSpan(code: string): string {
  const longest = Math.max(0, ...(code.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  const pad = longest > 0 ? " " : "";
  return `${fence}${pad}${code}${pad}${fence}`;
}

/** How many lines past the last one found a text line is looked for: the parser drops only lines without words. */
const LOOKAHEAD_LINES = 64;

/**
 * The first line at or after `from` that holds the start and the end of `text`'s letters. The parser
 * drops markup (`[c]reate`, a link's target, a tag's `#`), never letters of the words it keeps.
 */
function findLine(text: string, lines: BlockLine[], from: number): number {
  const letters = lettersOf(text);
  if (letters === "") return -1;
  const head = letters.slice(0, MATCHED_LETTERS);
  const tail = letters.slice(-MATCHED_LETTERS);
  for (let i = from; i < Math.min(lines.length, from + LOOKAHEAD_LINES); i++) {
    const at = lines[i].letters.indexOf(head);
    if (at >= 0 && lines[i].letters.lastIndexOf(tail) >= at) return i;
  }
  return -1;
}

/** How many letters at each end of a text line must be found in its line of the note. */
const MATCHED_LETTERS = 12;

function lettersOf(text: string): string {
  // Most lines are ASCII, where the plain classes say the same and cost a fraction of the Unicode ones.
  return !NOT_ASCII.test(text) ? text.replace(/[^A-Za-z0-9]+/g, "") : text.replace(/[^\p{L}\p{N}]+/gu, "");
}

const NOT_ASCII = /[^\p{ASCII}]/u;
