// Words whose dot ends no sentence. The planner reads a question's sentences by them, the index starts a
// snippet where a sentence does by them, and the evidence brief splits no sentence after them: one list,
// or a snippet would start at a "sentence" the brief reads as the middle of one.

/** Words whose dot ends no sentence (lower case, without the dot). */
export const ABBREVIATIONS: ReadonlySet<string> = new Set(["vs", "e.g", "i.e", "etc", "cf", "eg", "ie", "approx", "incl", "vol", "ver", "v", "mr", "mrs", "dr", "prof", "jr", "sr", "fig", "al", "pp", "ca"]);

/**
 * Abbreviations only as written with a capital: in lower case each is a word that ends sentences
 * ("I said no.", "it took 200 ms.", "the 1st."), while "No. 5", "Ms. Lee" and "Main St." go on.
 */
const CAPITALISED_ABBREVIATIONS: ReadonlySet<string> = new Set(["No", "Ms", "St"]);

/** Whether `word` (without its dot) is an abbreviation whose dot ends no sentence. */
export function isAbbreviation(word: string): boolean {
  return ABBREVIATIONS.has(word.toLowerCase()) || CAPITALISED_ABBREVIATIONS.has(word);
}

/** Whether the word before the dot at `at` is an abbreviation ("e.g", "vs", "Dr", "U.S") or an initial ("J"). */
export function abbreviationBefore(text: string, at: number): boolean {
  const word = /[\p{L}.]+$/u.exec(text.slice(Math.max(0, at - 16), at))?.[0];
  if (word === undefined) return false;
  // Short parts between dots ("e.g", "U.S", "Ph.D"), not a file's or a site's name ("config.json").
  return word.length === 1 || (word.includes(".") && word.split(".").every((part) => part.length <= 3)) || isAbbreviation(word);
}
