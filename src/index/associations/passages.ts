// The passages a note is cut into for learning which words go together: its name (title, aliases,
// tags) with its opening lines, then every section in runs of a few dozen words, each run with its
// section's heading (a heading names what the lines under it are about).
import type { Analyzer } from "../tokenize";
import type { ParsedNote } from "../types";

/** Words of text per passage: about two or three lines, or one example of a cheat sheet. */
export const PASSAGE_WORDS = 30;

/** Web addresses: their words (github, com, windows-server) say where a page lives, not what a passage is about. */
const URL = /<?\b(?:https?:\/\/|www\.)[^\s>)\]]+>?/gi;

export function notePassages(note: Pick<ParsedNote, "title" | "aliases" | "tags" | "sections">, analyzer: Analyzer, size = PASSAGE_WORDS): string[][] {
  const name = analyzer.terms([note.title, ...note.aliases, ...note.tags].join("\n"));
  const passages: string[][] = [];
  let first = true;
  for (const section of note.sections) {
    const heading = section.heading ? analyzer.terms(section.heading) : [];
    const text = analyzer.terms(section.text.replace(URL, " "));
    if (text.length === 0 && heading.length === 0) continue;
    for (let at = 0; at < Math.max(1, text.length); at += size) {
      const run = text.slice(at, at + size);
      passages.push(first ? [...name, ...heading, ...run] : [...heading, ...run]);
      first = false;
    }
  }
  if (first) passages.push(name);
  return passages;
}
