// Ranking: the query's terms looked up rarest first, scores summed per note, multiplied by how
// much of the query's weight the note covers, and explained for the best few. This is the part of
// a search that must be fast: it reads no file, and its inner loop only adds numbers.
import type { ParsedQuery } from "../query";
import { notesWithTerm, type SearchEngine } from "../search-engine";
import type { Analyzer } from "../tokenize";
import type { IndexedNote, SearchExplanation } from "../types";
import { roundTo } from "../../text/numbers";
import { explainCandidate, type Candidate, type ExplainContext, type RankedHit } from "./explain";
import { queryTerms, type QueryTerm } from "./query-terms";
import { fuzzyDistance, type RankingOptions } from "./ranking-options";
import { hasAllTags, readTags, tagOnlyHits } from "./tag-filter";

/** What ranking reads of the index. */
export interface RankingCorpus {
  engine: SearchEngine;
  notes: ReadonlyMap<string, IndexedNote>;
  analyzer: Analyzer;
  synonyms: Map<string, string[]>;
  ranking: RankingOptions;
}

export interface RankOptions {
  /** The user is still typing: the last word may be a prefix even when short. */
  asYouType: boolean;
}

/** What looking up every term found. */
interface Lookups {
  candidates: Map<string, Candidate>;
  /** Per term group, its word's IDF × weight (synonyms do not set it). */
  groupIdf: number[];
  /** Per term group, how many matches its terms had. */
  groupNotes: number[];
}

interface Scored {
  c: Candidate;
  score: number;
  coverage: number;
}

/** The best candidates for the query, explained, best first; at least `limit` when there are that many. */
export function rankNotes(corpus: RankingCorpus, parsed: ParsedQuery, limit: number, opts: RankOptions): RankedHit[] {
  const { query, filterTags } = readTags(parsed, corpus.notes);
  const terms = queryTerms(query, corpus.analyzer, corpus.synonyms);
  const tagFilter = filterTags.length > 0 ? (path: string) => hasAllTags(corpus.notes.get(path), filterTags) : null;
  if (terms.length === 0) return tagFilter ? tagOnlyHits(corpus.notes, filterTags) : [];
  // The word being typed: all its own terms may be prefixes (not its synonyms, which come last).
  const typedWord = opts.asYouType ? query.words[query.words.length - 1] : undefined;
  const lookups = lookUpTerms(corpus, terms, tagFilter, typedWord);
  const scored = scoreByCoverage(lookups, terms, corpus.ranking.coveragePower);
  return explainBest(corpus, scored, { terms, tags: filterTags, stats: termStats(terms, lookups) }, limit);
}

/**
 * Rare terms first: a word that a large share of the vault uses cannot lift a note that matched
 * nothing rarer above one that did, so such words only add to notes already found (looking them
 * up across thousands of notes is most of a slow search).
 */
function lookUpTerms(corpus: RankingCorpus, terms: QueryTerm[], tagFilter: ((path: string) => boolean) | null, typedWord: string | undefined): Lookups {
  const { engine, ranking } = corpus;
  const docCount = Math.max(1, engine.documentCount);
  const candidates = new Map<string, Candidate>();
  const groupIdf: number[] = [];
  const groupNotes: number[] = [];
  const rarity = terms.map((t) => notesWithTerm(engine, t.term));
  const order = terms.map((_, i) => i).sort((a, b) => rarity[a] - rarity[b]);
  // Small vaults are fast anyway, and there every word is "common": only large ones restrict.
  const commonAbove = Math.max(docCount * ranking.commonShare, ranking.commonMinNotes);
  for (const termIndex of order) {
    const qt = terms[termIndex];
    // Counted again here, not taken from `rarity`: a lookup may drop a removed note's postings.
    const common = candidates.size > 0 && notesWithTerm(engine, qt.term) > commonAbove;
    const lookup = (fuzzy: number | false) =>
      engine.search(qt.term, {
        ...(common ? { boostDocument: (id: unknown) => (candidates.has(id as string) ? 1 : 0) } : {}),
        tokenize: (s) => [s],
        processTerm: (t) => t,
        boost: ranking.fieldBoosts,
        weights: { fuzzy: ranking.fuzzyWeight, prefix: ranking.prefixWeight },
        fuzzy,
        prefix: (qt.term.length >= ranking.prefixMinLength && !qt.synonym) || (!qt.synonym && qt.word === typedWord && qt.term.length >= 2),
        filter: tagFilter ? (r) => tagFilter(r.id as string) : undefined,
      });
    let results = lookup(false);
    // Rarity of the term itself (exact matches), so "the one tool" weighs "tool" above "one".
    let exact = 0;
    if (common) exact = notesWithTerm(engine, qt.term);
    else for (const r of results) if (r.match[qt.term]) exact++;
    // Typo tolerance is for words the vault barely uses as typed ("sintax"); a word many notes
    // share is not a typo, and fuzzy lookups of long words are the slowest part of a search.
    const distance = qt.synonym ? false : fuzzyDistance(qt.term, ranking);
    if (distance && exact < ranking.fuzzyBelowNotes) results = lookup(distance);
    const idf = Math.log(1 + docCount / (1 + (exact || results.length)));
    // A group weighs what its own word weighs; synonyms only help a note cover it.
    if (!qt.synonym) groupIdf[qt.group] = idf * qt.weight;
    groupNotes[qt.group] = (groupNotes[qt.group] ?? 0) + results.length;
    // The hot loop: every note that matched any term passes here, so it only adds up scores and
    // keeps a reference to MiniSearch's match record; fields and words are worked out later, for
    // the few notes that are shown.
    for (const r of results) {
      const path = r.id as string;
      let c = candidates.get(path);
      if (!c) candidates.set(path, (c = { path, textScore: 0, matched: [], matches: [] }));
      c.textScore += r.score * qt.weight;
      c.matched.push(termIndex);
      c.matches.push(r.match);
    }
  }
  return { candidates, groupIdf, groupNotes };
}

/** Every candidate's text score × coverage^power, best first. */
function scoreByCoverage(lookups: Lookups, terms: QueryTerm[], coveragePower: number): Scored[] {
  const { groupIdf } = lookups;
  const idfTotal = groupIdf.reduce((a, b) => a + (b ?? 0), 0) || 1;
  const scored: Scored[] = [];
  for (const c of lookups.candidates.values()) {
    // Each group counts once however many of its terms matched (a word and its synonyms); past 31
    // groups a bit mask cannot tell, so coverage is capped at 1 instead.
    let covered = 0;
    let seenGroups = 0;
    for (const i of c.matched) {
      const g = terms[i].group;
      const bit = g < 31 ? 1 << g : 0;
      if (bit !== 0 && (seenGroups & bit) !== 0) continue;
      seenGroups |= bit;
      covered += groupIdf[g] ?? 0;
    }
    const coverage = Math.min(1, covered / idfTotal);
    scored.push({ c, coverage, score: c.textScore * coverage ** coveragePower });
  }
  return scored.sort((a, b) => b.score - a.score);
}

/** Per query word (not synonyms): its weight and how many notes matched it. */
function termStats(terms: QueryTerm[], lookups: Lookups): Pick<SearchExplanation, "termWeights" | "termNotes"> {
  const termWeights: Record<string, number> = {};
  const termNotes: Record<string, number> = {};
  for (const t of terms) {
    if (t.synonym) continue;
    termWeights[t.word] = Math.max(termWeights[t.word] ?? 0, roundTo(lookups.groupIdf[t.group] ?? 0, 3));
    termNotes[t.word] = Math.max(termNotes[t.word] ?? 0, lookups.groupNotes[t.group] ?? 0);
  }
  return { termWeights, termNotes };
}

/** Explains the best few (the title bonus can reorder them, so more than `limit` are explained). */
function explainBest(corpus: RankingCorpus, scored: Scored[], query: Omit<ExplainContext, "analyzer" | "ranking">, limit: number): RankedHit[] {
  const ctx: ExplainContext = { ...query, analyzer: corpus.analyzer, ranking: corpus.ranking };
  const take = Math.min(scored.length, Math.max(limit * 5, 50));
  const hits: RankedHit[] = [];
  for (let i = 0; i < take; i++) hits.push(explainCandidate(scored[i].c, scored[i].coverage, corpus.notes.get(scored[i].c.path), ctx));
  return hits.sort((a, b) => b.score - a.score);
}
