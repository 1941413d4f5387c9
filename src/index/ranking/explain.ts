// Why a note ranked where it did, as data: fields and words matched, words missing, the score in
// parts that add up to it, and each query word's weight. Worked out only for the notes that are
// shown (a few dozen), never in the hot loop over every match.
import { roundTo } from "../../text/numbers";
import type { Analyzer } from "../tokenize";
import type { IndexedNote, ScorePart, SearchExplanation } from "../types";
import type { QueryTerm } from "./query-terms";
import type { RankingOptions } from "./ranking-options";
import { wordRecord } from "../../text/word-record";

export interface RankedHit {
  path: string;
  score: number;
  /** Terms of the note (as indexed) that matched the query, exact, prefix or fuzzy → the query word. */
  docTerms: Map<string, string>;
  explanation: SearchExplanation;
  /** The question is this note's name (note-names.ts): first of the words' ranking, it stays first through the vault-language lane's fusion. */
  keepFirst?: boolean;
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
  /** Set when the query had more distinct words than were looked up (rank.ts MAX_QUERY_WORDS): how many it had. */
  wordsAsked?: number;
  /** Per query word, the same for every result. */
  stats: Pick<SearchExplanation, "termWeights" | "termNotes" | "termClumping" | "vaultNotes" | "foldedWords">;
}

/** The final score of a candidate and its explanation. */
export function explainCandidate(c: Candidate, coverage: number, note: IndexedNote | undefined, ctx: ExplainContext): RankedHit {
  const { terms, ranking } = ctx;
  const { match, wordOf, standIns } = matchesOf(c, terms);
  const docTerms = new Map(Object.keys(match).map((t) => [t, wordOf[t] ?? wordForDocTerm(t, terms)]));
  const fields = wordRecord<string[]>();
  for (const [docTerm, matchedFields] of Object.entries(match)) {
    const word = docTerms.get(docTerm)!;
    for (const field of matchedFields) {
      const list = (fields[field] ??= []);
      if (!list.includes(word)) list.push(word);
    }
  }
  // A word counts as matched by itself or a synonym; an associate only stands in for it.
  const matchedWords = new Set([...c.matched].sort((a, b) => a - b).filter((i) => (terms[i].cover ?? 1) >= 1).map((i) => terms[i].word));
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
  const standInWords = Object.keys(standIns).filter((w) => !matchedWords.has(w));
  if (standInWords.length > 0) parts.push({ name: "vault associations", detail: describeStandIns(standIns, standInWords), weight: 0 });
  const title = note ? titleBonus(note, score, ctx) : null;
  if (title) {
    score += title.weight;
    parts.push({ ...title, weight: roundTo(title.weight, 3) });
  }
  if (ctx.tags.length > 0) parts.push({ name: "tag", detail: `has #${ctx.tags.join(", #")}`, weight: 0 });
  if (ctx.wordsAsked !== undefined) parts.push({ name: "long query", detail: `its ${allWords.length} rarest words of ${ctx.wordsAsked} were looked up`, weight: 0 });
  const explanation: SearchExplanation = { matchedTerms: Array.from(matchedWords), missingTerms: allWords.filter((w) => !matchedWords.has(w)), fields, parts, ...ctx.stats };
  if (standInWords.length > 0) explanation.standIns = Object.fromEntries(standInWords.map((w) => [w, standIns[w]]));
  return { path: c.path, score: roundTo(score, 3), docTerms, explanation };
}

/** "'unstaged' for 'uncommitted'; 'katex' for 'equations'": what stood in for missing words. */
function describeStandIns(standIns: Record<string, { term: string; strength: number }[]>, words: string[]): string {
  return words.map((w) => `${standIns[w].map((s) => `"${s.term}"`).join(", ")} for "${w}"`).join("; ") + " (words this vault uses together)";
}

/**
 * A note whose title is what was asked about is the note: "tar" for "how do I use tar". Only short
 * titles qualify; the bonus grows with the share of the title's words in the query. Unrounded.
 */
function titleBonus(note: IndexedNote, score: number, ctx: ExplainContext): ScorePart | null {
  const titleTerms = ctx.analyzer.terms(note.title);
  if (titleTerms.length === 0 || titleTerms.length > 6) return null;
  // The question's own words and synonyms; not associates, which it did not ask for.
  const asked = ctx.terms.filter((t) => (t.cover ?? 1) >= 1);
  const queryTermSet = new Set(asked.map((t) => t.term));
  const inTitle = titleTerms.filter((t) => queryTermSet.has(t));
  const covered = inTitle.length / titleTerms.length;
  if (covered === 0) return null;
  // And how much of the question the title is: "less" is the whole of "how do I use less", and
  // only an incidental word of "start a program with less cpu priority".
  const weights = ctx.stats.termWeights;
  const total = Object.values(weights).reduce((a, b) => a + b, 0);
  const titleWords = new Set(asked.filter((t) => inTitle.includes(t.term)).map((t) => t.word));
  const share = total > 0 ? [...titleWords].reduce((sum, w) => sum + (weights[w] ?? 0), 0) / total : 1;
  const weight = score * ctx.ranking.titleBonus * covered * covered * Math.min(1, share) ** (ctx.ranking.titleQueryShare ?? 0);
  return { name: "title match", detail: `${Math.round(covered * 100)}% of the title's words are in the query`, weight };
}

/**
 * Note term → fields it matched in, and note term → the query word whose lookup found it (a fuzzy
 * "garden" belongs to "gardan"; an exact match names the word best, else the first word that
 * reached it). Terms that only an associate reached are kept apart, per word (`standIns`): they
 * are not the word, and must not read as if they were.
 */
function matchesOf(c: Candidate, terms: QueryTerm[]): { match: Record<string, string[]>; wordOf: Record<string, string>; standIns: Record<string, { term: string; strength: number }[]> } {
  const match = wordRecord<string[]>();
  const wordOf = wordRecord<string>();
  const standIns = wordRecord<{ term: string; strength: number }[]>();
  // In the order of the query (terms were looked up rarest first), so explanations read naturally.
  const order = c.matched.map((_, i) => i).sort((a, b) => c.matched[a] - c.matched[b]);
  for (const i of order) {
    const record = c.matches[i];
    const qt = terms[c.matched[i]];
    if ((qt.cover ?? 1) < 1) {
      (standIns[qt.word] ??= []).push({ term: qt.term, strength: qt.association ?? qt.cover ?? 1 });
      continue;
    }
    for (const [docTerm, fields] of Object.entries(record)) {
      if (docTerm === qt.term || !(docTerm in wordOf)) wordOf[docTerm] = qt.word;
      const list = (match[docTerm] ??= []);
      for (const f of fields) if (!list.includes(f)) list.push(f);
    }
  }
  return { match, wordOf, standIns };
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
