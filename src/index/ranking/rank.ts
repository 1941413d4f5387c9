// Ranking: the query's terms looked up rarest first, scores summed per note, multiplied by how
// much of the query's weight the note covers, and explained for the best few. This is the part of
// a search that must be fast: it reads no file, and its inner loop only adds numbers.
import type { ParsedQuery } from "../query";
import { notesHolding, notesWithTermIn, termClumping, type Field, type SearchEngine } from "../search-engine";
import type { Analyzer } from "../tokenize";
import type { IndexedNote, SearchExplanation, TermClumping } from "../types";
import { roundTo } from "../../text/numbers";
import { explainCandidate, type Candidate, type ExplainContext, type RankedHit } from "./explain";
import { liftNamed, namedIn, type NamedNote, type NameSource } from "./note-names";
import { DEFAULT_EXPANSION, foldedWords, queryTerms, type AssociatesOf, type QueryTerm } from "./query-terms";
import { fuzzyDistance, type RankingOptions } from "./ranking-options";
import { hasAllTags, readTags, tagOnlyHits } from "./tag-filter";
import { wordRecord } from "../../text/word-record";

/** What ranking reads of the index. */
export interface RankingCorpus {
  engine: SearchEngine;
  notes: ReadonlyMap<string, IndexedNote>;
  analyzer: Analyzer;
  synonyms: Map<string, string[]>;
  ranking: RankingOptions;
  /** The vault's word associations, when the index keeps them (query expansion at a lower weight). */
  associatesOf?: AssociatesOf | null;
}

export interface RankOptions {
  /** The user is still typing: the last word may be a prefix even when short. */
  asYouType: boolean;
  /**
   * Only notes it keeps are ranked (the dial's folder and tag filters): applied while the terms are
   * looked up, as a query's own #tags are, so a filtered page is the best notes that pass, not the
   * few of the best notes overall that happen to.
   */
  keep?: (path: string) => boolean;
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

/**
 * Distinct words of a query looked up at most (a search engine's classic limit). A pasted page of
 * two thousand characters is some three hundred words: looked up one by one, typos tried for the
 * rare ones and every posting of the common ones read, it held the thread the user types on for
 * half a second, and longer the larger the vault. Its rarest words say what it is about.
 */
export const MAX_QUERY_WORDS = 32;

/** The best candidates for the query, explained, best first; at least `limit` when there are that many. */
export function rankNotes(corpus: RankingCorpus, parsed: ParsedQuery, limit: number, opts: RankOptions): RankedHit[] {
  const { query: tagged, filterTags } = readTags(parsed, corpus.notes);
  // The word being typed: all its own terms may be prefixes (not its synonyms, which come last).
  const typedWord = opts.asYouType ? tagged.words[tagged.words.length - 1] : undefined;
  const { query, wordsAsked } = rarestWords(tagged, corpus, typedWord);
  const terms = queryTerms(query, corpus.analyzer, corpus.synonyms, corpus.associatesOf ?? null, corpus.ranking.expansion ?? DEFAULT_EXPANSION);
  const tagFilter = bothFilters(filterTags.length > 0 ? (path: string) => hasAllTags(corpus.notes.get(path), filterTags) : null, opts.keep ?? null);
  if (terms.length === 0) return filterTags.length > 0 ? tagOnlyHits(corpus.notes, filterTags).filter((hit) => opts.keep?.(hit.path) ?? true) : [];
  // While typing, words alone decide (as with the vault-language lane): names are whole words.
  const named = typeof corpus.ranking.namedPlace === "number" && !opts.asYouType ? namedIn(query, nameSource(corpus), tagFilter) : [];
  const namedPaths = new Set(named.map((n) => n.path));
  const lookups = lookUpTerms(corpus, terms, tagFilter, typedWord, namedPaths);
  const scored = scoreByCoverage(lookups, terms, corpus.ranking.coveragePower);
  const stats = termStats(corpus.engine, terms, lookups, foldedWords(query, corpus.analyzer, terms), opts.asYouType);
  return explainBest(corpus, scored, { terms, tags: filterTags, stats, ...(wordsAsked > 0 ? { wordsAsked } : {}) }, limit, named);
}

/**
 * A query of more than MAX_QUERY_WORDS distinct words as the MAX_QUERY_WORDS rarest the vault holds
 * (in the order typed; the word being typed always among them), and how many it had (0 when none
 * was left out). The commonest words go: they weigh least, and reading their postings is most of a
 * long search. Exported so the vault-language lane can ask with the same words the ranking weighed.
 */
export function rarestWords(query: ParsedQuery, corpus: Pick<RankingCorpus, "engine" | "analyzer">, typedWord?: string): { query: ParsedQuery; wordsAsked: number } {
  const distinct = [...new Set(query.words)];
  if (distinct.length <= MAX_QUERY_WORDS) return { query, wordsAsked: 0 };
  const { engine, analyzer } = corpus;
  // A word's own term says how rare it is. A word no note holds is not rare but unknown (a typo, a
  // foreign word, a name): it can only match as a typo, so the words the vault holds go before it,
  // and a word with no term at all, which finds nothing, is the first to go.
  const notesOf = (word: string) => {
    const own = analyzer.analyzeWord(word)[0];
    if (own === undefined) return Number.POSITIVE_INFINITY;
    return notesHolding(engine, own) || Number.MAX_SAFE_INTEGER;
  };
  const others = distinct.filter((w) => w !== typedWord);
  const rarity = new Map(others.map((w) => [w, notesOf(w)]));
  // A stable sort: of equally rare words, the first typed stay.
  const rarest = others.sort((a, b) => rarity.get(a)! - rarity.get(b)!).slice(0, typedWord === undefined ? MAX_QUERY_WORDS : MAX_QUERY_WORDS - 1);
  const kept = new Set(typedWord === undefined ? rarest : [...rarest, typedWord]);
  return { query: { ...query, words: query.words.filter((w) => kept.has(w)) }, wordsAsked: distinct.length };
}

/** Where a note's names are in the engine: its title, its aliases, its path (the file name). */
const NAME_FIELDS: readonly Field[] = ["title", "aliases", "location"];

/** Notes by a word of their title, aliases or path, from the postings (nothing is kept for names). */
function nameSource(corpus: RankingCorpus): NameSource {
  const { engine, analyzer, notes } = corpus;
  return {
    notesHolding: (word) => Math.max(0, ...analyzer.analyzeWord(word).map((term) => notesHolding(engine, term))),
    notesCalled: (word, limit) => {
      const called: IndexedNote[] = [];
      for (const term of analyzer.analyzeWord(word)) {
        for (const id of notesWithTermIn(engine, term, NAME_FIELDS, limit)) {
          const note = notes.get(engine.pathOf(id) ?? "");
          if (note) called.push(note);
        }
      }
      return called;
    },
  };
}


/**
 * Rare terms first: a word that a large share of the vault uses cannot lift a note that matched
 * nothing rarer above one that did, so such words only add to notes already found, or to a note
 * the question names (looking them up across thousands of notes is most of a slow search).
 */
function lookUpTerms(
  corpus: RankingCorpus,
  terms: QueryTerm[],
  tagFilter: ((path: string) => boolean) | null,
  typedWord: string | undefined,
  named: ReadonlySet<string>,
): Lookups {
  const { engine, ranking } = corpus;
  const docCount = Math.max(1, engine.documentCount);
  const candidates = new Map<string, Candidate>();
  const groupIdf: number[] = [];
  const groupNotes: number[] = [];
  // The notes the engine holds, not the postings' lengths (a note read again is listed twice until
  // the engine cleans up): every later count is this one, however many postings a lookup drops.
  const rarity = terms.map((t) => notesHolding(engine, t.term));
  const order = terms.map((_, i) => i).sort((a, b) => rarity[a] - rarity[b]);
  // Small vaults are fast anyway, and there every word is "common": only large ones restrict.
  const commonAbove = Math.max(docCount * ranking.commonShare, ranking.commonMinNotes);
  for (const termIndex of order) {
    const qt = terms[termIndex];
    const common = candidates.size > 0 && rarity[termIndex] > commonAbove;
    const lookup = (fuzzy: number | false) =>
      engine.search(qt.term, {
        ...(common ? { boostDocument: (id: unknown) => (candidates.has(id as string) || named.has(id as string) ? 1 : 0) } : {}),
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
    if (common) exact = rarity[termIndex];
    else for (const r of results) if (r.match[qt.term]) exact++;
    // Typo tolerance is for words the vault barely uses as typed ("sintax"); a word many notes
    // share is not a typo, and fuzzy lookups of long words are the slowest part of a search.
    const distance = qt.synonym ? false : fuzzyDistance(qt.term, ranking);
    if (distance && exact < ranking.fuzzyBelowNotes) results = lookup(distance);
    const idf = Math.log(1 + docCount / (1 + (exact || results.length)));
    // A group weighs what its own word weighs; synonyms only help a note cover it.
    if (!qt.synonym) groupIdf[qt.group] = idf * qt.weight;
    // How many notes the word reached, by itself or a synonym (not through an associate).
    if ((qt.cover ?? 1) >= 1) groupNotes[qt.group] = (groupNotes[qt.group] ?? 0) + results.length;
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
  const groups = groupIdf.length;
  // Per group, the best share of it the note covers: 1 for the word or a synonym, less for an
  // associate. Reused for every candidate (reset through `touched`), so the loop allocates nothing.
  const best = new Float64Array(groups);
  const touched: number[] = [];
  const scored: Scored[] = [];
  for (const c of lookups.candidates.values()) {
    for (const i of c.matched) {
      const { group, cover = 1 } = terms[i];
      if (cover === 0) continue;
      if (best[group] === 0) touched.push(group);
      if (cover > best[group]) best[group] = cover;
    }
    let covered = 0;
    for (const g of touched) {
      covered += (groupIdf[g] ?? 0) * best[g];
      best[g] = 0;
    }
    touched.length = 0;
    const coverage = Math.min(1, covered / idfTotal);
    scored.push({ c, coverage, score: c.textScore * coverage ** coveragePower });
  }
  return scored.sort((a, b) => b.score - a.score);
}

/**
 * Per query word (not synonyms): its weight, how many notes matched it, and (not while typing: only
 * the judge reads it) how its uses bunch together. A word looked up as several terms ("snake_case":
 * snake, case, snakecas) bunches as its most bunched term: "case" alone would call it everyday.
 */
function termStats(engine: SearchEngine, terms: QueryTerm[], lookups: Lookups, folded: Record<string, string>, asYouType: boolean): Pick<SearchExplanation, "termWeights" | "termNotes" | "termClumping" | "vaultNotes" | "foldedWords"> {
  const termWeights = wordRecord<number>();
  const termNotes = wordRecord<number>();
  const clumped = wordRecord<TermClumping>();
  for (const t of terms) {
    if (t.synonym) continue;
    termWeights[t.word] = Math.max(termWeights[t.word] ?? 0, roundTo(lookups.groupIdf[t.group] ?? 0, 3));
    termNotes[t.word] = Math.max(termNotes[t.word] ?? 0, lookups.groupNotes[t.group] ?? 0);
    const found = asYouType ? undefined : termClumping(engine, t.term);
    if (found !== undefined && found.clumping > (clumped[t.word]?.clumping ?? -Infinity)) clumped[t.word] = { clumping: roundTo(found.clumping, 3), notes: found.notes };
  }
  return { termWeights, termNotes, ...(asYouType ? {} : { termClumping: clumped }), vaultNotes: engine.documentCount, ...(Object.keys(folded).length > 0 ? { foldedWords: folded } : {}) };
}

/**
 * Explains the best few (the title bonus can reorder them, so more than `limit` are explained) and
 * the notes the question names wherever they ranked; those are then lifted next to the best.
 */
function explainBest(corpus: RankingCorpus, scored: Scored[], query: Omit<ExplainContext, "analyzer" | "ranking">, limit: number, named: readonly NamedNote[]): RankedHit[] {
  const ctx: ExplainContext = { ...query, analyzer: corpus.analyzer, ranking: corpus.ranking };
  const take = Math.min(scored.length, Math.max(limit * 5, 50));
  const explain = (s: Scored) => explainCandidate(s.c, s.coverage, corpus.notes.get(s.c.path), ctx);
  const hits: RankedHit[] = [];
  for (let i = 0; i < take; i++) hits.push(explain(scored[i]));
  for (const { path } of named) {
    if (hits.some((h) => h.path === path)) continue;
    const s = scored.find((x) => x.c.path === path);
    if (s) hits.push(explain(s));
  }
  hits.sort((a, b) => b.score - a.score);
  const place = corpus.ranking.namedPlace;
  return named.length > 0 && typeof place === "number" ? liftNamed(hits, named, place) : hits;
}

/** A filter that keeps what both keep (either may be absent). */
function bothFilters(a: ((path: string) => boolean) | null, b: ((path: string) => boolean) | null): ((path: string) => boolean) | null {
  if (!a || !b) return a ?? b;
  return (path) => a(path) && b(path);
}
