// What a parsed query is looked up as: the analysed terms of each word (a compound's parts weigh
// less), each term's synonyms, and the words this vault uses with it (associates, learned from the
// notes: see associations/), grouped so a word and its stand-ins count once for coverage. A
// synonym covers its word's part of the question; an associate covers only a share of it, as
// strong as the association.
import type { ParsedQuery } from "../query";
import type { Analyzer } from "../tokenize";

export interface QueryTerm {
  /** The analysed term searched for. */
  term: string;
  /** The word the user typed that produced it. */
  word: string;
  weight: number;
  /** Terms of one group stand for the same part of the question (a word and its stand-ins). */
  group: number;
  /** A stand-in for the word (a synonym or an associate), not the word itself. */
  synonym: boolean;
  /** How much of its group a match of this term covers: 1 (the default) for the word and its synonyms, less for an associate. */
  cover?: number;
  /** Set on associates: the strength of the association (0–1). */
  association?: number;
}

/** The vault's associates of a term, strongest first (see associations/term-associations.ts). */
export type AssociatesOf = (term: string) => readonly { term: string; strength: number }[];

export interface ExpansionWeights {
  /** A synonym's matches are worth this share of the word's own. */
  synonym: number;
  /** An associate's matches are worth this share of the word's own, times the association's strength. */
  associate: number;
  /** An associate covers this share of its word's part of the question, times the strength. */
  associateCover: number;
}

export const DEFAULT_EXPANSION: ExpansionWeights = { synonym: 0.6, associate: 0.5, associateCover: 0.6 };

/** Parts split off a compound or camelCase word count for less than the word itself. */
const PART_WEIGHT = 0.5;

/**
 * The words of the query looked up as an earlier word, because they are the same term ("tasks"
 * after "task", or a synonym of an earlier word): word → the word whose terms they share.
 */
export function foldedWords(parsed: ParsedQuery, analyzer: Analyzer, terms: readonly QueryTerm[]): Record<string, string> {
  const own = new Set(terms.filter((t) => !t.synonym).map((t) => t.word));
  const wordOf = new Map<string, string>();
  for (const t of terms) if (!wordOf.has(t.term)) wordOf.set(t.term, t.word);
  // A Map, then own keys: a question's "constructor" or "__proto__" is a word like any other.
  const out = new Map<string, string>();
  for (const word of parsed.words) {
    if (own.has(word) || out.has(word)) continue;
    const into = analyzer.analyzeWord(word).map((term) => wordOf.get(term));
    if (into.length > 0 && into[0] !== undefined && into[0] !== word) out.set(word, into[0]);
  }
  return Object.fromEntries(out);
}

/** The terms of the query's words, in the order typed, each term once. */
export function queryTerms(
  parsed: ParsedQuery,
  analyzer: Analyzer,
  synonyms: Map<string, string[]>,
  associatesOf: AssociatesOf | null = null,
  weights: ExpansionWeights = DEFAULT_EXPANSION,
): QueryTerm[] {
  const out: QueryTerm[] = [];
  const seen = new Set<string>();
  const own = new Set(parsed.words.flatMap((w) => analyzer.analyzeWord(w)));
  let group = 0;
  for (const word of parsed.words) {
    const analyzed = analyzer.analyzeWord(word);
    analyzed.forEach((term, i) => {
      if (seen.has(term)) return;
      seen.add(term);
      const g = group++;
      out.push({ term, word, weight: i === 0 ? 1 : PART_WEIGHT, group: g, synonym: false, cover: 1 });
      for (const other of synonyms.get(term) ?? []) {
        if (seen.has(other)) continue;
        seen.add(other);
        out.push({ term: other, word, weight: weights.synonym, group: g, synonym: true, cover: 1 });
      }
      // Only a word's own term is expanded (not the parts of a compound), and never into another
      // word of the question: that word is looked up anyway.
      if (i !== 0 || associatesOf === null) return;
      for (const a of associatesOf(term)) {
        if (seen.has(a.term) || own.has(a.term)) continue;
        seen.add(a.term);
        out.push({ term: a.term, word, weight: weights.associate * a.strength, group: g, synonym: true, cover: Math.min(1, weights.associateCover * a.strength), association: a.strength });
      }
    });
  }
  return out;
}
