// Turning text into index terms. The same analyser runs over notes at index time and over the
// user's query at search time, so both sides agree on what a "term" is:
//
// - words are runs of Unicode letters and digits; accents are folded ("café" → "cafe"), and
//   full-width Latin read as ASCII ("ＰＤＦ" → "pdf");
// - hyphen/underscore compounds yield their parts and the joined word ("e-mail" → e, mail, email);
// - camelCase and PascalCase words yield the whole word and its parts ("MiniSearch" → minisearch,
//   mini, search);
// - runs of scripts without spaces (Chinese, Japanese, Korean, Thai, Lao, Khmer, Burmese: the one
//   list in text/scripts.ts) become overlapping character bigrams;
// - optionally, English words are reduced to their Porter stem.
//
// The hot path is `analyze`, called for every word of every note: it memoises per distinct word,
// because a vault's vocabulary is far smaller than its word count.
import { hasNonAscii } from "../text/control-chars";
import { stemEnglish } from "./stemmer";
import { CJK_CHAR, CJK_RUNS, withoutAccents } from "../text/scripts";

export interface AnalyzerOptions {
  stemming: boolean;
}

// A word: letters/digits/marks, optionally joined by single - _ ' ’ (kept together so compounds can
// be split deliberately below).
const WORD_RE = /[\p{L}\p{N}\p{M}]+(?:[-_'’][\p{L}\p{N}\p{M}]+)*/gu;
const HAS_UPPER_AFTER_LOWER = /[a-z][A-Z]|[A-Z]{2}[a-z]/;

/** A word in lowerCamelCase, as a setting, a property or a function is named: a small letter and a
 * small letter or digit, then parts that each start with a capital ("siteUrl", "enableSmartRefs",
 * "h1Title"; not "iPhone", "macOS", "GitHub" or "siteURL"). */
const IDENTIFIER_RE = /^[a-z][a-z0-9]+(?:[A-Z][a-z0-9]+)+$/;

export function isIdentifier(word: string): boolean {
  return IDENTIFIER_RE.test(word);
}

/** Longest word we index; longer runs are base64, hashes or minified code (a CJK run is indexed
 * as pairs however long it is). */
const MAX_WORD = 40;

/** The full-width forms of ASCII's letters, digits and signs ("ＰＤＦ", "１２３"), as a Japanese or
 * Chinese keyboard types them: U+FF01–FF5E, each 0xFEE0 above its ASCII character. */
const FULL_WIDTH = /[\uff01-\uff5e]/g;
const toHalfWidth = (c: string) => String.fromCharCode(c.charCodeAt(0) - 0xfee0);

/** Lower-case, fold accents (not the marks of Thai or kana: `withoutAccents`), and read full-width
 * Latin as ASCII (a note's "ＰＤＦ" is the query's "pdf"). */
export function foldCase(word: string): string {
  const lower = word.toLowerCase();
  if (!hasNonAscii(lower)) return lower;
  return withoutAccents(lower.replace(FULL_WIDTH, toHalfWidth).normalize("NFD")).normalize("NFC");
}

/** A CJK run's overlapping character pairs, pushed onto `out` one by one (a run may be a whole
 * note long: spread into one push, its pairs overflowed the call stack). */
function pushBigrams(run: string, out: string[]): void {
  const chars = Array.from(run);
  if (chars.length === 1) out.push(chars[0]);
  for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i] + chars[i + 1]);
}

/** A word's parts at - _ ' ’ ("git-stash" → git, stash; a word without them is its own one part). */
export function compoundParts(word: string): string[] {
  return word.split(/[-_'’]/).filter(Boolean);
}

/** The raw words of a text, in order (no case folding). */
export function words(text: string): string[] {
  return text.match(WORD_RE) ?? [];
}

export interface Analyzer {
  /** Index terms for one raw word (may be several, or none). */
  analyzeWord(word: string): readonly string[];
  /** Index terms for a whole text. */
  terms(text: string): string[];
  /** The single normalised form used to match a query word against terms (no splitting). */
  normalizeTerm(word: string): string;
  readonly options: AnalyzerOptions;
}

export function createAnalyzer(options: AnalyzerOptions): Analyzer {
  const memo = new Map<string, readonly string[]>();
  const MEMO_LIMIT = 500_000;

  const normalizeTerm = (word: string): string => {
    const folded = foldCase(word);
    return options.stemming ? stemEnglish(folded) : folded;
  };

  // Chinese and Japanese put no spaces between words, so a "word" here is a whole clause or
  // sentence: its pairs are indexed however long it is (a limit on its length left every sentence
  // of over 40 characters unsearchable). The Latin words inside it are words of their own.
  const cjkTerms = (word: string): string[] => {
    const out: string[] = [];
    for (const run of word.match(CJK_RUNS) ?? []) {
      if (CJK_CHAR.test(run)) pushBigrams(run, out);
      else for (const term of analyzeWord(run)) out.push(term);
    }
    return out;
  };

  // Splitting rules for a non-CJK word, possibly a compound.
  const analyzeUncached = (word: string): string[] => {
    const out: string[] = [];
    const parts = compoundParts(word);
    if (parts.length > 1) {
      for (const part of parts) pushCamel(part, out);
      const apostrophe = /['’]/.test(word);
      // "don't" is one word to a reader, "e-mail" and "snake_case" are worth finding joined.
      if (!apostrophe || parts.length === 2) out.push(normalizeTerm(parts.join("")));
    } else {
      // The one part, without the - _ ' a CJK run left at its edge ("東京_2024" → "_2024" → 2024).
      pushCamel(parts[0] ?? word, out);
    }
    return dedupe(out);
  };

  const pushCamel = (word: string, out: string[]): void => {
    out.push(normalizeTerm(word));
    if (word.length > 3 && HAS_UPPER_AFTER_LOWER.test(word)) {
      for (const piece of camelPieces(word)) if (piece.length > 1) out.push(normalizeTerm(piece));
    }
  };

  const analyzeWord = (word: string): readonly string[] => {
    // Longer than any word indexed: a CJK clause, or a hash, base64 or minified code (nothing).
    // Not remembered: such runs are nearly all one-offs, and the memo would keep each whole.
    if (word.length > MAX_WORD) return CJK_CHAR.test(word) ? cjkTerms(word) : [];
    let cached = memo.get(word);
    if (cached === undefined) {
      // Remembered, and its terms made, from a copy of its own: the word as matched is a view into
      // the note's text, and the memo, and the index holding its terms, kept the whole note alive.
      const own = ownCopy(word);
      cached = CJK_CHAR.test(own) ? cjkTerms(own) : analyzeUncached(own);
      if (memo.size >= MEMO_LIMIT) memo.clear();
      memo.set(own, cached);
    }
    return cached;
  };

  const terms = (text: string): string[] => {
    const out: string[] = [];
    const found = text.match(WORD_RE);
    if (found === null) return out;
    for (const word of found) {
      const analyzed = analyzeWord(word);
      for (let i = 0; i < analyzed.length; i++) out.push(analyzed[i]);
    }
    return out;
  };

  return { analyzeWord, terms, normalizeTerm, options };
}

/**
 * A string that holds its own characters. A substring of 13 or more (what `match` returns for a
 * word) can share the memory of the text it was cut from; joined to one more character it is
 * copied into a string of its own, and the slice of that keeps only the copy.
 */
function ownCopy(word: string): string {
  return (" " + word).slice(1);
}

const isUpper = (c: string) => c >= "A" && c <= "Z";
const isLowerOrDigit = (c: string) => (c >= "a" && c <= "z") || (c >= "0" && c <= "9");

/** "MiniSearch" → Mini, Search; "HTTPServer" → HTTP, Server; "getX2Y" → get, X2, Y. */
export function camelPieces(word: string): string[] {
  const pieces: string[] = [];
  let from = 0;
  for (let i = 1; i < word.length; i++) {
    const boundary =
      (isLowerOrDigit(word[i - 1]) && isUpper(word[i])) || (isUpper(word[i - 1]) && isUpper(word[i]) && i + 1 < word.length && word[i + 1] >= "a" && word[i + 1] <= "z");
    if (boundary) {
      pieces.push(word.slice(from, i));
      from = i;
    }
  }
  pieces.push(word.slice(from));
  return pieces;
}

function dedupe(list: string[]): string[] {
  if (list.length < 2) return list;
  return Array.from(new Set(list)).filter((t) => t.length > 0);
}

export interface WordSpan {
  word: string;
  start: number;
  end: number;
}

/** Words with their offsets, for highlighting and snippet windows (not the hot path). */
export function wordSpans(text: string): WordSpan[] {
  const out: WordSpan[] = [];
  for (const m of text.matchAll(WORD_RE)) {
    out.push({ word: m[0], start: m.index ?? 0, end: (m.index ?? 0) + m[0].length });
  }
  return out;
}
