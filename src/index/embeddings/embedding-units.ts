// What of a note is embedded, each kept separately so a note can match through one part (level 3):
// its title (with aliases), its headings (one unit, the note's outline), and each section with
// text. A section is sent with its title and heading path in front, because "Setup" alone means
// nothing; sections longer than MAX_UNIT_CHARS are embedded by their start (about 500 tokens,
// within the 2,048-token context Ollama gives a model by default).
import { cutText } from "../../text/cut-text";
import { fnv1a32 } from "../../text/string-hash";
import { INDEX_FORMAT_VERSION } from "../cache-file";
import type { ParsedNote } from "../types";

/**
 * How units are cut from a note: the parser's version (the index format, raised whenever what it
 * reads out of a note may change) and this file's own, raised whenever `embeddingUnits` changes
 * what it sends. A note's vectors cut another way are checked against its text once more, and
 * embedded again only if the text they would now be made from differs.
 */
export const UNITS_CUT = `${INDEX_FORMAT_VERSION}.1`;

export type UnitKind = "title" | "headings" | "section";

/** Where a unit sits in its note: enough to name the matched section without the note's text. */
export interface UnitPlace {
  kind: UnitKind;
  /** Headings from the top of the note down to the section ([] for the title, the outline and the preamble). */
  headingPath: string[];
  /** 1-based line of the section's heading (the title and outline: 1). */
  line: number;
  /** UTF-16 offsets of the section in the note (the title and outline: 0, 0). */
  start: number;
  end: number;
}

export interface EmbeddingUnit extends UnitPlace {
  /** The text sent to the embedding model. */
  text: string;
}

export const MAX_UNIT_CHARS = 2000;

/** A 64-bit fingerprint of what a note's units send (hex): the same text, the same fingerprint. */
export function unitsTextHash(units: readonly EmbeddingUnit[]): string {
  const joined = units.map((u) => `${u.kind}\u0000${u.text}`).join("\u0001");
  const hex = (n: number) => n.toString(16).padStart(8, "0");
  // Two FNV-1a passes from different starting points: a changed text keeps both far more rarely than one.
  return hex(fnv1a32(joined)) + hex(fnv1a32(joined, 0x9747b28c));
}

export function embeddingUnits(note: ParsedNote): EmbeddingUnit[] {
  const units: EmbeddingUnit[] = [];
  const aliases = note.aliases.length > 0 ? ` (also: ${note.aliases.join(", ")})` : "";
  units.push({ kind: "title", headingPath: [], line: 1, start: 0, end: 0, text: cutText(`${note.title}${aliases}`, MAX_UNIT_CHARS) });
  // A first heading that repeats the title (the usual `# Title`) says nothing the title does not.
  const repeatsTitle = (heading: string | undefined) => heading !== undefined && heading.trim().toLowerCase() === note.title.trim().toLowerCase();
  const headings = note.sections.filter((s) => s.heading !== "" && !(s.level === 1 && repeatsTitle(s.heading))).map((s) => s.heading);
  if (headings.length > 0) {
    units.push({ kind: "headings", headingPath: [], line: 1, start: 0, end: 0, text: cutText(`${note.title}: ${headings.join(" · ")}`, MAX_UNIT_CHARS, { atWord: true }) });
  }
  for (const section of note.sections) {
    const body = section.text.replace(/\s+/g, " ").trim();
    if (body === "") continue;
    const path = repeatsTitle(section.headingPath[0]) ? section.headingPath.slice(1) : section.headingPath;
    const where = [note.title, ...path].join(" > ");
    units.push({
      kind: "section",
      headingPath: section.headingPath,
      line: section.line,
      start: section.start,
      end: section.end,
      text: cutText(`${where}\n\n${body}`, MAX_UNIT_CHARS, { atWord: true }),
    });
  }
  return units;
}
