// Why a note ranked where it did, as data: fields and words matched, words missing, the score in
// parts that add up to it, and each query word's weight. Worked out only for the notes that are
// shown (a few dozen), never in the hot loop over every match.
import { roundTo } from "../../text/numbers";
import type { Analyzer } from "../tokenize";
import type { IndexedNote, ScorePart, SearchExplanation } from "../types";
import type { QueryTerm } from "./query-terms";
import type { RankingOptions } from "./ranking-options";

export interface RankedHit {
  path: string;
  score: number;
  /** Terms of the note (as indexed) that matched the query, exact, prefix or fuzzy → the query word. */
  docTerms: Map<string, string>;
  explanation: SearchExplanation;
}

/** A note some query term matched, as the hot loop leaves it. */
export interface Candidate {
  path: string;
  textScore: number;
  /** Indices of the query terms the note matched. */
  matched: number[];
  /** MiniSearch's note term → fields record of each matched term, in the order of `matched`. */
  matches: Record<string, string[]>[];
}

/** What an explanation needs besides the candidate. */
export interface ExplainContext {
  analyzer: Analyzer;
  ranking: RankingOptions;
  terms: QueryTerm[];
  /** Tags the results were filtered by. */
  tags: string[];
  /** Per query word, the same for every result. */
  stats: Pick<SearchExplanation, "termWeights" | "termNotes">;
}

/** The final score of a candidate and its explanation. */
export function explainCandidate(c: Candidate, coverage: number, note: IndexedNote | undefined, ctx: ExplainContext): RankedHit {
  const { terms, ranking } = ctx;
  const { match, wordOf } = matchesOf(c, terms);
  const docTerms = new Map(Object.keys(match).map((t) => [t, wordOf[t] ?? wordForDocTerm(t, terms)]));
  const fields: Record<string, string[]> = {};
  for (const [docTerm, matchedFields] of Object.entries(match)) {
    const word = docTerms.get(docTerm)!;
    for (const field of matchedFields) {
      const list = (fields[field] ??= []);
      if (!list.includes(word)) list.push(word);
    }
  }
  const matchedWords = new Set([...c.matched].sort((a, b) => a - b).map((i) => terms[i].word));
  const allWords = Array.from(new Set(terms.filter((t) => !t.synonym).map((t) => t.word)));
  const parts: ScorePart[] = [
    {
      name: "text match",
      detail: `BM25 over ${Object.keys(fields).join(", ") || "no field"} (${describeBoosts(ranking.fieldBoosts)})`,
      weight: roundTo(c.textScore, 3),
    },
  ];
  let score = c.textScore * coverage ** ranking.coveragePower;
  parts.push({
    name: "query coverage",
    detail: `${matchedWords.size} of ${allWords.length} query words matched, ${Math.round(coverage * 100)}% of the query's weight (rare words weigh more)`,
    weight: roundTo(score - c.textScore, 3),
  });
  const title = note ? titleBonus(note, score, ctx) : null;
  if (title) {
    score += title.weight;
    parts.push({ ...title, weight: roundTo(title.weight, 3) });
  }
  if (ctx.tags.length > 0) parts.push({ name: "tag", detail: `has #${ctx.tags.join(", #")}`, weight: 0 });
  return {
    path: c.path,
    score: roundTo(score, 3),
    docTerms,
    explanation: { matchedTerms: Array.from(matchedWords), missingTerms: allWords.filter((w) => !matchedWords.has(w)), fields, parts, ...ctx.stats },
  };
}

/**
 * A note whose title is what was asked about is the note: "tar" for "how do I use tar". Only short
 * titles qualify; the bonus grows with the share of the title's words in the query. Unrounded.
 */
function titleBonus(note: IndexedNote, score: number, ctx: ExplainContext): ScorePart | null {
  const titleTerms = ctx.analyzer.terms(note.title);
  if (titleTerms.length === 0 || titleTerms.length > 6) return null;
  const queryTermSet = new Set(ctx.terms.map((t) => t.term));
  const covered = titleTerms.filter((t) => queryTermSet.has(t)).length / titleTerms.length;
  if (covered === 0) return null;
  const weight = score * ctx.ranking.titleBonus * covered * covered;
  return { name: "title match", detail: `${Math.round(covered * 100)}% of the title's words are in the query`, weight };
}

/**
 * Note term → fields it matched in, and note term → the query word whose lookup found it (a fuzzy
 * "garden" belongs to "gardan"; an exact match names the word best, else the first word that
 * reached it).
 */
function matchesOf(c: Candidate, terms: QueryTerm[]): { match: Record<string, string[]>; wordOf: Record<string, string> } {
  const match: Record<string, string[]> = {};
  const wordOf: Record<string, string> = {};
  // In the order of the query (terms were looked up rarest first), so explanations read naturally.
  const order = c.matched.map((_, i) => i).sort((a, b) => c.matched[a] - c.matched[b]);
  for (const i of order) {
    const record = c.matches[i];
    const qt = terms[c.matched[i]];
    for (const [docTerm, fields] of Object.entries(record)) {
      if (docTerm === qt.term || !(docTerm in wordOf)) wordOf[docTerm] = qt.word;
      const list = (match[docTerm] ??= []);
      for (const f of fields) if (!list.includes(f)) list.push(f);
    }
  }
  return { match, wordOf };
}

/** The query word a note term belongs to when no lookup recorded one: its own, else the longest prefix. */
function wordForDocTerm(docTerm: string, terms: QueryTerm[]): string {
  let best = terms[0];
  for (const t of terms) {
    if (t.term === docTerm) return t.word;
    if (docTerm.startsWith(t.term) && (!best.term || t.term.length > (docTerm.startsWith(best.term) ? best.term.length : 0))) best = t;
  }
  return best?.word ?? docTerm;
}

function describeBoosts(boosts: Record<string, number>): string {
  return Object.entries(boosts)
    .filter(([, b]) => b !== 1)
    .map(([f, b]) => `${f} ×${b}`)
    .join(", ");
}
