// The vectors know where a matched unit sits, not what it says (the index keeps no note text), so
// the few results shown are re-read for their snippet, as the lexical lane re-reads its own.
import type { NoteStore } from "../../ports";
import { oneLine } from "../../text/one-line";
import type { UnitPlace } from "../embeddings/embedding-units";
import { parseNoteSafely } from "../parse-note-safely";
import { readNotes } from "../read-notes";

export const SNIPPET_CHARS = 240;

/** One snippet per wanted unit, in order: the section's words, the note's title or its headings; "" when the note cannot be read. */
export async function unitSnippets(store: NoteStore, wanted: readonly { path: string; unit: UnitPlace }[]): Promise<string[]> {
  const texts = await readNotes(
    store,
    wanted.map((w) => w.path),
  );
  return wanted.map(({ path, unit }, i) => {
    const text = texts[i];
    if (typeof text !== "string") return "";
    const note = parseNoteSafely(path, text);
    if (unit.kind === "title") return oneLine(note.title, SNIPPET_CHARS);
    if (unit.kind === "headings") return oneLine(note.sections.filter((s) => s.heading !== "").map((s) => s.heading).join(" · "), SNIPPET_CHARS);
    const section = note.sections.find((s) => s.start === unit.start) ?? note.sections.find((s) => s.line === unit.line);
    return section ? oneLine(section.text, SNIPPET_CHARS) : "";
  });
}
