// How much of a note is indexed: the first `maxNoteChars` characters (2,000,000 unless the index is
// told otherwise). A note past that is indexed cut, and told so; the vault-language lane, which reads
// the notes again, learns from the same part, and never hands a worker more of a note than that.

/** The index's default limit on a note's text, in characters. */
export const MAX_NOTE_CHARS = 2_000_000;

/** The part of `text` the index indexes. */
export function indexedPart(text: string, maxNoteChars: number): string {
  return text.length > maxNoteChars ? text.slice(0, maxNoteChars) : text;
}
