// The two sides of a question that compares or relates two things: "what is the difference
// between foam grep and foam search?", "iostat vs vmstat", "how does X relate to Y", "should I use
// share or export". An answer says something of each side; a note named after one side that never
// says the other ("foam search" for the difference with foam grep) answers half the question, and
// the judge's title lever took it for the whole (judge.ts). Only a question that says it compares
// or relates has sides: "sync X with Y" or "X and Y" alone are one thing asked of two words.
import { indexWords, type Concepts } from "./judge-coverage";

/** Where a side ends: the end of the clause (a stop, a comma, a dash) or a second question ("…, and how do I…"). */
const END = String.raw`(?=\s*(?:[?!;:,]|\.(?:\s|$)|\s[-–—]\s|$)|\s+and\s+(?:how|what|which|why|when|where|can|could|does|do|is|are|should)\b)`;

/** A clause's start, for a side that comes before its cue ("iostat vs vmstat"). */
const START = String.raw`(?:^|[?!;:,.]\s*|\s[-–—]\s)`;

/** One side: words within one clause (a dot inside a word, "a.txt", is no clause's end): a side
 * never runs on into the next clause, and a try never reads past its own clause. */
const SIDE = String.raw`((?:[^?!;:,.]|\.(?=\S))+?)`;

/** "vs" or "versus" as a cue: not the "VS" of "VS Code" ("catch typos in vs code" asks of one editor, it sets "code" against nothing). */
const VERSUS = String.raw`(?:vs\.?(?! cod(?:e|ium)\b)|versus)`;

/** The first of two sides joined by "and": up to the clause's first "and" ("how do rock and roll and
 * jazz differ" reads "rock" and "roll and jazz"), so a question of many "and"s is tried once at each. */
const SIDE_BEFORE_AND = String.raw`((?:(?! and )(?:[^?!;:,.]|\.(?=\S)))+?)`;

/** Each: the question's two sides as its first and second group. Tried in order; the first that matches decides. */
const SIDE_PATTERNS: readonly RegExp[] = [
  // "the difference between X and Y", "the relationship between X and Y"
  new RegExp(String.raw`\b(?:differences?|distinctions?|relationships?|relations?|connections?) between ${SIDE_BEFORE_AND} and ${SIDE}${END}`),
  // "how do X and Y differ", "how are X and Y related"
  new RegExp(String.raw`\bhow (?:do|does|are|is|did) ${SIDE_BEFORE_AND} and ${SIDE} (?:differ|compare|relate|related|connect|connected|fit together|work together|interact)\b`),
  // "how does X relate to Y", "how is X different from Y", "how does X compare with Y"
  new RegExp(String.raw`\bhow (?:do|does|are|is|did) ${SIDE} (?:relate|relates|related|compare|compares|differ|differs|different|connect|connects|connected) (?:to|with|from|against) ${SIDE}${END}`),
  // "compare X with Y", "compare X and Y"
  new RegExp(String.raw`\b(?:compare|comparing|contrast|contrasting) ${SIDE} (?:with|to|and|against|${VERSUS}) ${SIDE}${END}`),
  // "X vs Y", "X versus Y", "X compared to Y"
  new RegExp(String.raw`${START}${SIDE} (?:${VERSUS}|compared (?:to|with)) ${SIDE}${END}`),
  // "should I use X or Y", "whether X or Y", "choose between X or Y"
  new RegExp(String.raw`\b(?:use|choose|pick|prefer|between|whether) ${SIDE} or ${SIDE}${END}`),
];

/** The two sides' text, as the question writes them; null for a question that compares or relates nothing. */
export function questionSides(normalized: string): [string, string] | null {
  for (const pattern of SIDE_PATTERNS) {
    const m = pattern.exec(normalized);
    if (m && m[1].trim() !== "" && m[2].trim() !== "") return [m[1].trim(), m[2].trim()];
  }
  return null;
}

/**
 * Each side's concepts that the other side lacks (the words both share are the subject: "foam" of
 * "foam grep" and "foam search"); null when either side has none left, as there is then nothing to
 * tell the sides apart by. `required`: the plan's terms, in the question's own words.
 */
export function sideConcepts(sides: readonly [string, string], concepts: Concepts, required: readonly string[]): [string[], string[]] | null {
  const [a, b] = sides.map((side) => conceptsIn(side, concepts, required));
  const only = (x: Set<string>, y: Set<string>) => [...x].filter((t) => !y.has(t));
  const sideA = only(a, b);
  const sideB = only(b, a);
  return sideA.length > 0 && sideB.length > 0 ? [sideA, sideB] : null;
}

/** The concepts whose words a side's text holds (a term the judge folded into another counts as that one). */
function conceptsIn(side: string, concepts: Concepts, required: readonly string[]): Set<string> {
  const words = new Set(indexWords(side));
  const held = required.filter((term) => {
    const termWords = indexWords(term);
    return termWords.length > 0 && termWords.every((w) => words.has(w));
  });
  return new Set(held.map((t) => concepts.sameAs.get(t) ?? t).filter((t) => concepts.parts.has(t)));
}
