// Where a sentence ends. The index starts a snippet where a sentence starts, and the evidence brief
// quotes whole sentences and refuses one the snippet cut: read by two rules, a snippet started at a
// "sentence" the brief took for the middle of one, and its first sentence was never quoted.
import { abbreviationBefore } from "./abbreviations";

/**
 * A full stop, "!" or "?" (or Arabic's "؟"), with the quotation marks and brackets that close on it,
 * before a space and what may start a sentence: a capital, a figure, a quotation mark, a bracket, or a
 * letter of a script without capitals (Arabic, Hebrew, Hindi: there no capital ever followed, and a
 * whole paragraph was one "sentence").
 */
const STOP_THEN_START = /[.!?؟]["”’')\]]*\s+(?=["“(\p{Lu}\p{Lt}\p{Lo}\p{N}])/gu;
/** The full stops of Chinese and Japanese, Hindi (।, ॥), Urdu (۔), Khmer (។) and Burmese (။), wherever they stand. */
const STOP_ANYWHERE = /[。！？।॥۔។။]\s*/gu;
/** Thai and Lao end a sentence with a space and no mark: a space between two of their letters. */
const THAI_SPACE = /[\p{Script=Thai}\p{Script=Lao}]\s+(?=[\p{Script=Thai}\p{Script=Lao}])/gu;

/** A block that ends as a sentence does (a list item or a table row often ends with none). */
export const ENDS_WITH_STOP = /[.!?؟。！？।॥۔។။]["”’')\]]*$/u;

/**
 * Where the sentences of `text` after its first start, in order. Not after the dot of an
 * abbreviation or an initial (`abbreviations.ts`): "a plugin, e.g. Dataview, which…" is one sentence.
 */
export function sentenceStarts(text: string): number[] {
  const starts = new Set<number>();
  for (const end of text.matchAll(STOP_THEN_START)) {
    if (!(end[0][0] === "." && abbreviationBefore(text, end.index))) starts.add(end.index + end[0].length);
  }
  for (const end of text.matchAll(STOP_ANYWHERE)) starts.add(end.index + end[0].length);
  // (The letter before the space is matched, not looked behind at: iOS before 16.4 has no lookbehind.)
  for (const space of text.matchAll(THAI_SPACE)) starts.add(space.index + space[0].length);
  return [...starts].filter((at) => at < text.length).sort((a, b) => a - b);
}

/** The sentences of `text`, each trimmed; none empty. */
export function sentencesIn(text: string): string[] {
  const bounds = [0, ...sentenceStarts(text), text.length];
  return bounds
    .slice(0, -1)
    .map((start, i) => text.slice(start, bounds[i + 1]).trim())
    .filter((sentence) => sentence !== "");
}

/**
 * Whether `text` (trimmed) may end there as a sentence: with a stop (`ENDS_WITH_STOP`), or with "…",
 * a text cut there or trailing off, which a full stop after it would end no better.
 */
export function endsAsSentence(text: string): boolean {
  return ENDS_WITH_STOP.test(text) || text.endsWith("…");
}

/** What a sentence may be left ending with that ends none: a full stop takes its place. */
const DANGLING = /[\s,;:]+$/u;

/**
 * `text` as a sentence that another may follow: ended as it was (a stop, the quotation marks closing
 * on it, "…"), else with a full stop. Error messages come without one: "…HTTP 503: Service
 * Unavailable Vault results are kept." ran two sentences into one.
 */
export function asSentence(text: string): string {
  const trimmed = text.trim();
  if (trimmed === "" || endsAsSentence(trimmed)) return trimmed;
  const bare = trimmed.replace(DANGLING, "");
  return bare === "" ? "" : `${bare}.`;
}

/** Sentences one after another, each ended (`asSentence`), the empty ones left out. */
export function joinSentences(...texts: string[]): string {
  return texts
    .map(asSentence)
    .filter((s) => s !== "")
    .join(" ");
}
