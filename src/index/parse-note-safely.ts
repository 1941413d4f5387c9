// `parseNote` is meant never to throw; this is what happens if it does anyway.
import { errorMessage } from "../text/error-message";
import { fileTitle, parseNote, type ParseOptions } from "./markdown";
import type { ParsedNote } from "./types";

/** The note's parse, or — should the parser throw — the whole text as one section, with a problem saying so. */
export function parseNoteSafely(path: string, text: string, options: ParseOptions = {}): ParsedNote {
  try {
    return parseNote(path, text, options);
  } catch (error) {
    // The note is still searchable as plain text.
    const title = fileTitle(path);
    return {
      path,
      title,
      aliases: [],
      tags: [],
      sourceUrls: [],
      links: [],
      frontmatter: {},
      sections: [{ heading: "", level: 0, headingPath: [], start: 0, end: text.length, text, line: 1 }],
      problems: [{ kind: "frontmatter", message: `Could not be parsed (${errorMessage(error)}); indexed as plain text.` }],
    };
  }
}
