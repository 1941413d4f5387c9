// The one rule for a file named `.md` that is no text: a NUL in its start. The index leaves such a
// file out with this problem, and the MCP server's read_note refuses it, so what search never shows
// is not read either.
import type { NoteProblem } from "./types";

/** Characters looked at for a NUL, as git looks at a file's first 8,000 bytes to call it binary. */
export const BINARY_SNIFF_CHARS = 8_000;

/**
 * Why a file named `.md` is no text to index, or null. A NUL character never occurs in a note; a
 * picture, PDF or archive given that name (or a note saved as UTF-16) holds them at once. Indexed,
 * such a file filled the index with millions of random words, and every search's spelling-tolerant
 * matching went through them.
 */
export function binaryProblem(text: string): NoteProblem | null {
  const head = text.length > BINARY_SNIFF_CHARS ? text.slice(0, BINARY_SNIFF_CHARS) : text;
  if (!head.includes("\0")) return null;
  return { kind: "encoding", message: "The file holds NUL bytes: it is not text (a binary file, or a note saved as UTF-16), so it was not indexed." };
}
