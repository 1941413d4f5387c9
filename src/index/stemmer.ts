// English suffix stripping after M. F. Porter's 1980 algorithm ("An algorithm for suffix
// stripping"), written from the paper's description. It is deliberately the classic algorithm:
// predictable, fast, and good enough to make "configuring" find "configure" and "tasks" find
// "task". Only lower-case ASCII words of three or more letters are stemmed; anything else is
// returned as is, so names, code and non-English words are left alone.

const ASCII_WORD = /^[a-z]+$/;

function isConsonant(w: string, i: number): boolean {
  const c = w.charCodeAt(i);
  // a e i o u
  if (c === 97 || c === 101 || c === 105 || c === 111 || c === 117) return false;
  if (c === 121) return i === 0 ? true : !isConsonant(w, i - 1); // 'y' after a consonant acts as a vowel
  return true;
}

/** m in the paper: the number of vowel-consonant sequences in w[0..end). */
function measure(w: string, end: number): number {
  let n = 0;
  let i = 0;
  while (i < end && isConsonant(w, i)) i++;
  while (i < end) {
    while (i < end && !isConsonant(w, i)) i++;
    if (i >= end) break;
    n++;
    while (i < end && isConsonant(w, i)) i++;
  }
  return n;
}

function hasVowel(w: string, end: number): boolean {
  for (let i = 0; i < end; i++) if (!isConsonant(w, i)) return true;
  return false;
}

function endsDoubleConsonant(w: string, end: number): boolean {
  return end >= 2 && w[end - 1] === w[end - 2] && isConsonant(w, end - 1);
}

/** *o in the paper: stem ends consonant-vowel-consonant, the last not w, x or y. */
function endsCvc(w: string, end: number): boolean {
  if (end < 3) return false;
  if (!isConsonant(w, end - 1) || isConsonant(w, end - 2) || !isConsonant(w, end - 3)) return false;
  const last = w[end - 1];
  return last !== "w" && last !== "x" && last !== "y";
}

/** Replaces `suffix` by `replacement` when the remaining stem has measure > minMeasure. */
type Rule = [suffix: string, replacement: string];

/**
 * A table of suffixes split by their last letter, each part in the table's order: a word is tried
 * only against the suffixes it could end with, and the first of them that it ends with is the
 * first of the whole table. Trying every suffix of the three tables was about fifty `endsWith`
 * calls a word, for each distinct word of the vault: 4 % of the instructions of a cold index.
 */
type ByLastLetter<T> = readonly (readonly T[])[];

const NONE: readonly never[] = [];

function byLastLetter<T>(items: readonly T[], suffixOf: (item: T) => string): ByLastLetter<T> {
  const groups: T[][] = Array.from({ length: 26 }, () => []);
  for (const item of items) {
    const suffix = suffixOf(item);
    groups[suffix.charCodeAt(suffix.length - 1) - 97].push(item);
  }
  return groups;
}

/** The part of `table` whose suffixes end as `w` does (`w` is lower-case ASCII, as stemEnglish checks). */
function endingAs<T>(table: ByLastLetter<T>, w: string): readonly T[] {
  return table[w.charCodeAt(w.length - 1) - 97] ?? NONE;
}

function applyFirstMatching(w: string, rules: ByLastLetter<Rule>, minMeasure: number): string {
  for (const [suffix, replacement] of endingAs(rules, w)) {
    if (w.endsWith(suffix)) {
      const stemEnd = w.length - suffix.length;
      return measure(w, stemEnd) > minMeasure ? w.slice(0, stemEnd) + replacement : w;
    }
  }
  return w;
}

const STEP2_RULES: Rule[] = [
  ["ational", "ate"], ["tional", "tion"], ["enci", "ence"], ["anci", "ance"], ["izer", "ize"],
  ["bli", "ble"], ["alli", "al"], ["entli", "ent"], ["eli", "e"], ["ousli", "ous"],
  ["ization", "ize"], ["ation", "ate"], ["ator", "ate"], ["alism", "al"], ["iveness", "ive"],
  ["fulness", "ful"], ["ousness", "ous"], ["aliti", "al"], ["iviti", "ive"], ["biliti", "ble"],
  ["logi", "log"],
];
// Longest suffixes must be tried first where one ends another ("ational" before "tional").
STEP2_RULES.sort((a, b) => b[0].length - a[0].length);
const STEP2 = byLastLetter(STEP2_RULES, (rule) => rule[0]);

const STEP3_RULES: Rule[] = [
  ["icate", "ic"], ["ative", ""], ["alize", "al"], ["iciti", "ic"], ["ical", "ic"], ["ful", ""], ["ness", ""],
];
STEP3_RULES.sort((a, b) => b[0].length - a[0].length);
const STEP3 = byLastLetter(STEP3_RULES, (rule) => rule[0]);

const STEP4_SUFFIXES = [
  "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion", "ou",
  "ism", "ate", "iti", "ous", "ive", "ize",
].sort((a, b) => b.length - a.length);
const STEP4 = byLastLetter(STEP4_SUFFIXES, (suffix) => suffix);

function step1a(w: string): string {
  if (w.endsWith("sses")) return w.slice(0, -2);
  if (w.endsWith("ies")) return w.slice(0, -2);
  if (w.endsWith("ss")) return w;
  if (w.endsWith("s")) return w.slice(0, -1);
  return w;
}

function step1b(w: string): string {
  if (w.endsWith("eed")) {
    return measure(w, w.length - 3) > 0 ? w.slice(0, -1) : w;
  }
  let stem: string | null = null;
  if (w.endsWith("ed") && hasVowel(w, w.length - 2)) stem = w.slice(0, -2);
  else if (w.endsWith("ing") && hasVowel(w, w.length - 3)) stem = w.slice(0, -3);
  if (stem === null) return w;
  if (stem.endsWith("at") || stem.endsWith("bl") || stem.endsWith("iz")) return stem + "e";
  if (endsDoubleConsonant(stem, stem.length)) {
    const last = stem[stem.length - 1];
    if (last !== "l" && last !== "s" && last !== "z") return stem.slice(0, -1);
    return stem;
  }
  if (measure(stem, stem.length) === 1 && endsCvc(stem, stem.length)) return stem + "e";
  return stem;
}

function step1c(w: string): string {
  if (w.endsWith("y") && hasVowel(w, w.length - 1)) return w.slice(0, -1) + "i";
  return w;
}

function step4(w: string): string {
  for (const suffix of endingAs(STEP4, w)) {
    if (!w.endsWith(suffix)) continue;
    const stemEnd = w.length - suffix.length;
    if (measure(w, stemEnd) <= 1) return w;
    if (suffix === "ion") {
      const before = w[stemEnd - 1];
      if (before !== "s" && before !== "t") return w;
    }
    return w.slice(0, stemEnd);
  }
  return w;
}

function step5(w: string): string {
  if (w.endsWith("e")) {
    const m = measure(w, w.length - 1);
    if (m > 1 || (m === 1 && !endsCvc(w, w.length - 1))) w = w.slice(0, -1);
  }
  if (w.endsWith("ll") && measure(w, w.length) > 1) w = w.slice(0, -1);
  return w;
}

/** The Porter stem of a lower-case English word ("indexing" → "index", "queries" → "queri"). */
export function stemEnglish(word: string): string {
  if (word.length < 3 || !ASCII_WORD.test(word)) return word;
  let w = step1a(word);
  w = step1b(w);
  w = step1c(w);
  w = applyFirstMatching(w, STEP2, 0);
  w = applyFirstMatching(w, STEP3, 0);
  w = step4(w);
  w = step5(w);
  return w;
}
