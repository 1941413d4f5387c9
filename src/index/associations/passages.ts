// The passages a note is cut into for learning which words go together: its name (title, aliases,
// tags) with its opening lines, then every section in runs of a few dozen words, each run with its
// section's heading (a heading names what the lines under it are about). A name or heading longer
// than a run is read as words of its own, once: no passage is much longer than three runs.
import type { Analyzer } from "../tokenize";
import type { ParsedNote } from "../types";

/** Words of text per passage: about two or three lines, or one example of a cheat sheet. */
export const PASSAGE_WORDS = 30;

/** Web addresses: their words (github, com, windows-server) say where a page lives, not what a passage is about. */
const URL = /<?\b(?:https?:\/\/|www\.)[^\s>)\]]+>?/gi;

export function notePassages(note: Pick<ParsedNote, "title" | "aliases" | "tags" | "sections">, analyzer: Analyzer, size = PASSAGE_WORDS): string[][] {
  const passages: string[][] = [];
  // The name goes with the opening lines. A name longer than a passage (scores of tags or aliases)
  // is passages of its own: joined to the opening, it made one passage as long as it was.
  let lead: string[] | null = analyzer.terms([note.title, ...note.aliases, ...note.tags].join("\n"));
  if (lead.length > size) {
    for (let at = 0; at < lead.length; at += size) passages.push(lead.slice(at, at + size));
    lead = null;
  }
  for (const section of note.sections) {
    let heading = section.heading ? analyzer.terms(section.heading) : [];
    let text = analyzer.terms(section.text.replace(URL, " "));
    // A heading longer than a passage is a paragraph made one (a long line over "---"), not a name
    // for the lines under it: its words are read once, as the section's first, not in every passage
    // of the section (10,000 words over a 2 MB section made 10,000 passages of 10,000 words: a
    // sample of over a gigabyte, and a learning that took most of an hour).
    if (heading.length > size) {
      text = heading.concat(text);
      heading = [];
    }
    if (text.length === 0 && heading.length === 0) continue;
    for (let at = 0; at < Math.max(1, text.length); at += size) {
      const run = text.slice(at, at + size);
      passages.push(lead ? [...lead, ...heading, ...run] : [...heading, ...run]);
      lead = null;
    }
  }
  if (lead) passages.push(lead);
  return passages;
}
