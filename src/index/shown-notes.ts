// The parses of recently shown notes, kept while their text is unchanged: follow-up questions and
// typing in the search box show the same long notes again and again, and parsing a long note costs
// more than the search that found it. Bounded by total characters, least recently shown dropped first.
// A shown note's section text also keeps its blocks apart (`ParseOptions.blocks`): what a snippet
// quotes must not run a code block into the paragraph after it, or a table's rows into one line.
import { parseNoteSafely } from "./parse-note-safely";
import type { ParsedNote } from "./types";

/** Characters of recently shown notes whose parse is kept (text and parse together, a few MB). */
const SHOWN_NOTES_CHARS = 2_000_000;

/** A shown note's parse: each property a line of its own ("director: Ridley Scott;"), and its blocks kept apart. */
const SHOWN_PARSE = { propertyLines: true, blocks: true, readingView: true } as const;

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
    const parsed = parseNoteSafely(path, text, SHOWN_PARSE);
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
