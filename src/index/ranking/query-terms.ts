// What a parsed query is looked up as: the analysed terms of each word (a compound's parts weigh
// less), and each term's synonyms, grouped so a word and its synonyms count once for coverage.
import type { ParsedQuery } from "../query";
import type { Analyzer } from "../tokenize";

export interface QueryTerm {
  /** The analysed term searched for. */
  term: string;
  /** The word the user typed that produced it. */
  word: string;
  weight: number;
  /** Terms of one group stand for the same part of the question (a word and its synonyms). */
  group: number;
  synonym: boolean;
}

/** A synonym's matches are worth this share of the word's own. */
const SYNONYM_WEIGHT = 0.6;
/** Parts split off a compound or camelCase word count for less than the word itself. */
const PART_WEIGHT = 0.5;

/** The terms of the query's words, in the order typed, each term once. */
export function queryTerms(parsed: ParsedQuery, analyzer: Analyzer, synonyms: Map<string, string[]>): QueryTerm[] {
  const out: QueryTerm[] = [];
  const seen = new Set<string>();
  let group = 0;
  for (const word of parsed.words) {
    const analyzed = analyzer.analyzeWord(word);
    analyzed.forEach((term, i) => {
      if (seen.has(term)) return;
      seen.add(term);
      const g = group++;
      out.push({ term, word, weight: i === 0 ? 1 : PART_WEIGHT, group: g, synonym: false });
      for (const other of synonyms.get(term) ?? []) {
        if (seen.has(other)) continue;
        seen.add(other);
        out.push({ term: other, word, weight: SYNONYM_WEIGHT, group: g, synonym: true });
      }
    });
  }
  return out;
}
