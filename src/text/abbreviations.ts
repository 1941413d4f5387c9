// Words whose dot ends no sentence. The planner reads a question's sentences by them, the index starts a
// snippet where a sentence does by them, and the evidence brief splits no sentence after them: one list,
// or a snippet would start at a "sentence" the brief reads as the middle of one.

/** Words whose dot ends no sentence (lower case, without the dot). */
export const ABBREVIATIONS: ReadonlySet<string> = new Set(["vs", "e.g", "i.e", "etc", "cf", "eg", "ie", "approx", "incl", "no", "vol", "ver", "v", "mr", "mrs", "ms", "dr", "st", "prof", "jr", "sr", "fig", "al", "pp", "ca"]);

/** Whether the word before the dot at `at` is an abbreviation ("e.g", "vs", "Dr", "U.S") or an initial ("J"). */
export function abbreviationBefore(text: string, at: number): boolean {
  const word = /[\p{L}.]+$/u.exec(text.slice(Math.max(0, at - 16), at))?.[0];
  if (word === undefined) return false;
  // Short parts between dots ("e.g", "U.S", "Ph.D"), not a file's or a site's name ("config.json").
  return word.length === 1 || (word.includes(".") && word.split(".").every((part) => part.length <= 3)) || ABBREVIATIONS.has(word.toLowerCase());
}
