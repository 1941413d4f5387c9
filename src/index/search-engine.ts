// The MiniSearch engine under the index: one document per note, its fields, the options that
// analyse them, and the one place MiniSearch's internals are read.
import MiniSearch, { type AsPlainObject } from "minisearch";
import type { Analyzer } from "./tokenize";
import type { ParsedNote } from "./types";

/** What MiniSearch indexes of a note. Nothing is stored: the index keeps postings, not text. */
export interface EngineDoc {
  path: string;
  title: string;
  /** The opening of the note (description property, first paragraph): what the note is about. */
  lead: string;
  aliases: string;
  headings: string;
  tags: string;
  location: string;
  body: string;
}

export const FIELDS = ["title", "aliases", "lead", "headings", "tags", "location", "body"] as const;
export type Field = (typeof FIELDS)[number];

export type SearchEngine = MiniSearch<EngineDoc>;

/** Characters of a note's opening that count as its lead. */
const LEAD_CHARS = 300;

function engineOptions(analyzer: Analyzer) {
  return {
    idField: "path",
    fields: [...FIELDS],
    storeFields: [],
    // Terms arrive analysed (see tokenize.ts); MiniSearch must not process them again.
    tokenize: (text: string) => analyzer.terms(text),
    processTerm: (term: string) => term,
    autoVacuum: { minDirtCount: 200, minDirtFactor: 0.1, batchSize: 1000, batchWait: 10 },
  };
}

export function createEngine(analyzer: Analyzer): SearchEngine {
  return new MiniSearch<EngineDoc>(engineOptions(analyzer));
}

/** An engine from its saved form; throws when MiniSearch cannot read it. */
export function loadEngine(saved: AsPlainObject, analyzer: Analyzer): SearchEngine {
  return MiniSearch.loadJS<EngineDoc>(saved, engineOptions(analyzer));
}

export function toEngineDoc(note: ParsedNote): EngineDoc {
  const headings: string[] = [];
  const body: string[] = [];
  for (const section of note.sections) {
    if (section.heading) headings.push(section.heading);
    body.push(section.text);
  }
  return {
    path: note.path,
    title: note.title,
    lead: leadOf(note),
    aliases: note.aliases.join(" \n "),
    headings: headings.join(" \n "),
    tags: note.tags.join(" "),
    location: note.path.replace(/\.md$/i, ""),
    body: body.join("\n"),
  };
}

function leadOf(note: ParsedNote): string {
  for (const section of note.sections) {
    const text = section.text.trim();
    if (!text) continue;
    if (text.length <= LEAD_CHARS) return text;
    const lastSpace = text.lastIndexOf(" ", LEAD_CHARS);
    return text.slice(0, lastSpace > 0 ? lastSpace : LEAD_CHARS);
  }
  return "";
}

/**
 * How many notes hold `term` exactly, in any field. MiniSearch keeps this in its term index but
 * does not publish it; the shape read here (term → field → note → frequency) is pinned by a test,
 * so an upgrade that changes it fails loudly instead of silently ranking worse.
 */
export function notesWithTerm(engine: SearchEngine, term: string): number {
  const fields = (engine as unknown as { _index: { get(term: string): Map<number, Map<number, number>> | undefined } })._index.get(term);
  if (!fields) return 0;
  let most = 0;
  for (const notes of fields.values()) most = Math.max(most, notes.size);
  return most;
}
