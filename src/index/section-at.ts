// A section found earlier, found again in a note read now. A vector (or a search) knows a section by
// its place in the text the index read: its heading path, line and offsets. The note may have been
// edited since, before the index caught up, and then the offsets name some other section's words:
// so a section is the one of the same heading path, at the same offset, else the nearest its line;
// when no section has that heading path, the section is gone, and there is none.
//
// One exception: the place's headings are read as the index reads them, and the shown parse reads a
// few otherwise (`Q&amp;A` as "Q&A", a comment or an embed in a heading left out). A section spanning
// exactly the place's characters, at its line and depth, is that section however its heading reads.
import type { NoteSection, ParsedNote } from "./types";

/** Where a section was when the index read its note. */
export interface SectionPlace {
  headingPath: readonly string[];
  /** 1-based line of its heading. */
  line: number;
  /** UTF-16 offsets of the whole section in the note. */
  start: number;
  end: number;
}

/** The section of `note` at `place`, or none when the note no longer has it. */
export function sectionAt(note: ParsedNote, place: SectionPlace): NoteSection | undefined {
  const samePath = note.sections.filter((s) => sameHeadings(s.headingPath, place.headingPath));
  if (samePath.length === 0) return note.sections.find((s) => sameSpan(s, place));
  const exact = samePath.find((s) => s.start === place.start);
  if (exact) return exact;
  let nearest: NoteSection | undefined;
  for (const s of samePath) if (!nearest || Math.abs(s.line - place.line) < Math.abs(nearest.line - place.line)) nearest = s;
  return nearest;
}

function sameHeadings(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((heading, i) => heading === b[i]);
}

/** The very characters the place spanned, its heading on the same line at the same depth. */
function sameSpan(s: NoteSection, place: SectionPlace): boolean {
  return s.start === place.start && s.end === place.end && s.line === place.line && s.headingPath.length === place.headingPath.length;
}
