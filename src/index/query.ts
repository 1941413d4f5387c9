// Reading what the user typed into a search: free words, "quoted phrases" that must appear as
// written, and #tags that must be on the note (nested tags count: #project finds #project/alpha).
import { isStopWord } from "./stopwords";
import { foldCase, isIdentifier, words } from "./tokenize";
import { straightApostrophes } from "../text/apostrophes";
import { questionRead } from "../text/cut-text";
import { TYPED_TAG } from "../text/typed-tags";

export interface ParsedQuery {
  /** Free words, case-folded, in order, a possessive's "'s" dropped, stop words removed unless nothing else is left. */
  words: string[];
  /** Words that were dropped as stop words (kept for explanations). */
  stopWords: string[];
  /** Every word, case-folded, in order, stop words and phrases' words included (what names a note). */
  sequence: string[];
  /** The words written in lowerCamelCase ("siteUrl"), case-folded: a setting's name, which names a note alone. */
  identifiers: string[];
  /** Quoted phrases, case-folded. Their words are also searched as free words. */
  phrases: string[];
  /** Tags without `#`, lower-cased. */
  tags: string[];
}

// `*`, not `+`: an empty pair of quotes must be consumed whole, or it pairs with the next phrase's
// opening quote. Curly and German quotes count (a phone types “ ” as you type ").
const PHRASE_RE = /["“”„]([^"“”„]*)["“”„]/g;

/** "mac's display" asks about a mac's display: the word searched is "mac", as the plan's terms have it. */
function withoutPossessive(word: string): string {
  return word.replace(/^(.{2,})'s$/u, "$1");
}

export function parseQuery(input: string): ParsedQuery {
  const phrases: string[] = [];
  // A curly apostrophe is an apostrophe ("it’s" is the stop word "it's", "O’Reilly" is "o'reilly").
  let rest = straightApostrophes(questionRead(input)).replace(PHRASE_RE, (_m, phrase: string) => {
    const folded = foldCase(phrase).trim();
    if (folded) phrases.push(folded);
    return ` ${phrase} `;
  });
  const tags: string[] = [];
  rest = rest.replace(TYPED_TAG, (_m, lead: string, tag: string) => {
    // Spelled as a note's tags are kept (markdown.ts): no empty levels ("#a//b/" is #a/b).
    const clean = tag.toLowerCase().split("/").filter((level) => level !== "").join("/");
    if (clean) tags.push(clean);
    return lead;
  });
  const typed = words(rest);
  const all = typed.map(foldCase);
  const content = all.filter((w) => !isStopWord(w));
  const kept = new Set(content.length > 0 ? content : all);
  return {
    words: content.length > 0 ? content.map(withoutPossessive) : all,
    stopWords: all.filter((w) => !kept.has(w)),
    sequence: all,
    identifiers: Array.from(new Set(typed.filter(isIdentifier).map(foldCase))),
    phrases,
    tags: Array.from(new Set(tags)),
  };
}
