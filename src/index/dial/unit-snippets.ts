// The vectors know where a matched unit sits, not what it says (the index keeps no note text), so
// the few results shown are re-read for their snippet, as the lexical lane re-reads its own: through
// the index's shown parse (`VaultIndex.shownNote`: a property as "name: value;", the note's blocks
// apart, no more of a note than the index holds, the parse kept for the next search) and the lexical
// lane's snippet rule (`snippetAround`), so a table's rows or a code block are not one run of words.
import type { NoteStore } from "../../ports";
import { oneLine } from "../../text/one-line";
import type { UnitPlace } from "../embeddings/embedding-units";
import { readNotes } from "../read-notes";
import { sectionAt } from "../section-at";
import { SNIPPET_CHARS, snippetAround } from "../section-hits";
import type { VaultIndex } from "../vault-index";

/** Where the snippets' notes come from, and the index that shows them. */
export interface UnitSnippetSource {
  notes: NoteStore;
  index: Pick<VaultIndex, "shownNote">;
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
    const note = source.index.shownNote(path, text);
    if (unit.kind === "title") return oneLine(note.title, SNIPPET_CHARS);
    if (unit.kind === "headings") return oneLine(note.sections.filter((s) => s.heading !== "").map((s) => s.heading).join(" · "), SNIPPET_CHARS);
    // Found again by its heading path: a note edited since must not show another section's words under this one's heading.
    const section = sectionAt(note, unit);
    return section ? snippetAround(section.text, []).snippet : "";
  });
}
