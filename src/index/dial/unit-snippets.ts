// The vectors know where a matched unit sits, not what it says (the index keeps no note text), so
// the few results shown are re-read for their snippet, as the lexical lane re-reads its own: through
// the shown parse (`ShownNotes`: a property as "name: value;", the note's blocks apart) and the lexical
// lane's snippet rule (`snippetAround`), so a table's rows or a code block are not one run of words.
import type { NoteStore } from "../../ports";
import { oneLine } from "../../text/one-line";
import type { UnitPlace } from "../embeddings/embedding-units";
import { indexedPart } from "../note-limit";
import { readNotes } from "../read-notes";
import { SNIPPET_CHARS, snippetAround } from "../section-hits";
import type { ShownNotes } from "../shown-notes";
import type { ParsedNote } from "../types";

/** Where the snippets' notes come from, and how much of each the index holds. */
export interface UnitSnippetSource {
  notes: NoteStore;
  shown: ShownNotes;
  /** The index's limit on a note's text (`note-limit.ts`): no unit sits past it, and no more of a note is parsed. */
  maxNoteChars: number;
}

/** One snippet per wanted unit, in order: the section's words, the note's title or its headings; "" when the note cannot be read or no longer has that section. */
export async function unitSnippets(source: UnitSnippetSource, wanted: readonly { path: string; unit: UnitPlace }[]): Promise<string[]> {
  if (wanted.length === 0) return [];
  const texts = await readNotes(
    source.notes,
    wanted.map((w) => w.path),
  );
  return wanted.map(({ path, unit }, i) => {
    const text = texts[i];
    if (typeof text !== "string") return "";
    // Only the part the index holds, as its own search reads it: no unit sits past it, and a huge note is not parsed whole at every search.
    const note = source.shown.parse(path, indexedPart(text, source.maxNoteChars));
    if (unit.kind === "title") return oneLine(note.title, SNIPPET_CHARS);
    if (unit.kind === "headings") return oneLine(note.sections.filter((s) => s.heading !== "").map((s) => s.heading).join(" · "), SNIPPET_CHARS);
    const section = sectionAt(note, unit);
    return section ? snippetAround(section.text, []).snippet : "";
  });
}

/**
 * The section the unit names: the one at its offset, or (the note was edited since the index read it,
 * and the sections moved) the one with its heading path nearest its line. Never another section's
 * words under this one's heading: a note edited since may have lost the section, and then there is none.
 */
function sectionAt(note: ParsedNote, unit: UnitPlace): ParsedNote["sections"][number] | undefined {
  const samePath = note.sections.filter((s) => sameHeadings(s.headingPath, unit.headingPath));
  const exact = samePath.find((s) => s.start === unit.start);
  if (exact) return exact;
  let nearest: ParsedNote["sections"][number] | undefined;
  for (const s of samePath) if (!nearest || Math.abs(s.line - unit.line) < Math.abs(nearest.line - unit.line)) nearest = s;
  return nearest;
}

function sameHeadings(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((heading, i) => heading === b[i]);
}
