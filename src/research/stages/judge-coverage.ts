// How much of a question a note covers, for the judge. Each content word of the question is a
// concept weighted by its rarity in this vault (a note with "tar" but not "ZFS" missed the part of
// "tar on ZFS" that mattered), less when the vault uses the word as everyday English: rarely, and
// once where it does ("straight", "turned"), where a topic's words come several to a note (the
// index's termClumping). A concept counts as covered when the note has the word (or a
// synonym), and partly covered when the note only has words this vault uses with it (the index's
// stand-ins, e.g. "unstaged" for "uncommitted"), as much as the association is strong. Coverage is
// measured over the whole note, inside one section (close together, and anywhere in it), and by
// the note's name (title, aliases, opening). A Chinese or Japanese run of the question, one word to
// search, counts by the share of its character pairs the note's shown text holds (pairShare).
import type { SearchResult } from "../../index/types";
import { foldCase, words } from "../../index/tokenize";
import { CJK_CHAR, CJK_RUNS } from "../../text/scripts";
import { ownValue } from "../../text/word-record";
import { wordSet } from "../../text/word-set";
import type { BareNote } from "./bare-notes";
import { SHAPE_WORDS } from "./shape-words";

export interface CoverageWeights {
  /** Weight, relative to its rarity, of a word the vault never uses anywhere. */
  absentWordWeight: number;
  /** Weight of the everyday verbs and adjectives of how-to questions ("check", "see", "turn on"). */
  lightWordWeight: number;
  /** Weight, relative to its rarity, of a word whose uses do not bunch together in a few notes
   * (termClumping 0: an everyday word the vault uses rarely, "straight", "turned"); rising to 1 at
   * `clumpedAt`. 1 turns this off. */
  unclumpedWeight: number;
  clumpedAt: number;
  /** …counted in full from this many notes' bodies holding the word, in part below. */
  clumpNotes: number;
  /** …and only in a vault of at least this many notes: in a small one most words are in a few
   * short notes once each, and a word the vault lacks would then outweigh all it has. */
  clumpVaultNotes: number;
  /** A concept the note only has a stand-in for counts this much × the association's strength (at most 1). */
  standInCredit: number;
  /** …and never more than this share of the concept. */
  standInCap: number;
}

/** Everyday words of how-to questions that an answering note need not contain; and the words that
 * ask how two things relate or differ, where the plan still asks for them (shape-words.ts). */
const LIGHT_WORDS: ReadonlySet<string> = new Set([
  ...wordSet(
    `check see put turn make get set run use show find keep start stop stops open close add try work help change move take
     give go let call bring look looking read write going able quick quickly easy easily simple simply specific certain
     instead whole entire several various large small big little long short full fully possible able current automatic
     automatically manual manually right wrong proper properly correct correctly following stuff`,
  ),
  ...SHAPE_WORDS,
]);

/** Words that ask for an extreme or a limit ("the longest name", "the largest PDF"): everyday words,
 * but the point of the question, so they keep their whole weight however unclumped. */
const EXTREME_WORDS: ReadonlySet<string> = wordSet(
  `most least best worst biggest largest smallest longest shortest highest lowest fastest slowest newest oldest earliest
   maximum minimum max min limit limits`,
);

/** The words of a plan term as the index sees them ("tar.gz" → tar, gz). */
export function indexWords(term: string): string[] {
  return words(term).map(foldCase);
}

/**
 * The words of a plan term as this search looked them up: its index words, each one search folded
 * into an earlier word of the question read as that word ("tasks" after "task" is "task"). What a
 * note matched is said in these words, so a term is matched when all of them are.
 */
export function termParts(term: string, explanation: Pick<SearchResult["explanation"], "foldedWords">): string[] {
  const folded = explanation.foldedWords ?? {};
  return [...new Set(indexWords(term).map((w) => (Object.hasOwn(folded, w) ? folded[w] : w)))];
}

/** Whether a note matched every word of a plan term (false for a term with no words). */
export function termMatched(term: string, explanation: Pick<SearchResult["explanation"], "foldedWords" | "matchedTerms">): boolean {
  const parts = termParts(term, explanation);
  return parts.length > 0 && parts.every((p) => explanation.matchedTerms.includes(p));
}

/**
 * A search result as the judge weighs it: the question's words the note holds only in a list of
 * links (a hub's "- [[Attachments]] · [[Default location]]") are no longer among what it matched,
 * and are named here for the reason (link-lists.ts); and a note that says nothing of its own but
 * its name is marked bare (bare-notes.ts). A plain search result is one too.
 */
export interface WeighedResult extends SearchResult {
  linkListWords?: readonly string[];
  /** The note says nothing beyond its name (bare-notes.ts): it is not enough evidence, whatever its title covers. */
  bare?: BareNote;
}

/** What one note covers of the question: per concept, a share from 0 to 1. */
export interface NoteCoverage {
  path: string;
  /** Concept → share covered anywhere in the note (stand-ins partly). */
  inNote: Map<string, number>;
  /** Concept → best share inside one ~40-word window of one section, and inside one section. */
  closeSection: Map<string, number>;
  looseSection: Map<string, number>;
  /** Concept → share covered by the title, aliases and opening. */
  named: Map<string, number>;
  /** Concepts covered only through stand-ins, with the words that stood in. */
  standIns: Map<string, string[]>;
  /** Concepts the note names only in a list of links to other notes (not counted as covered). */
  linkListed?: Set<string>;
  /** The note says nothing beyond its name (bare-notes.ts). */
  bare?: BareNote;
}

/** The question's concepts and their weights (never all zero). */
export interface Concepts {
  terms: string[];
  /** Each term's words as search looked them up (termParts). */
  parts: Map<string, string[]>;
  /** A term of the question that is another's concept (search looked it up as the same words: "tasks" and "task") → that term. */
  sameAs: Map<string, string>;
  weight: Map<string, number>;
  total: number;
  /** The terms the question writes as names ("Microsoft", "PDF"): an answering note says them. */
  names?: string[];
  /** Terms weighed as everyday words of this vault (their uses do not bunch together): they count little, and the reason says so. */
  everyday?: Set<string>;
  /** The question asks for a count or an amount ("how many", "how much"): it is answered in one place. */
  amount?: boolean;
  /** A question that compares or relates two things: each side's own concepts (question-sides.ts). An answer says something of both. */
  sides?: [string[], string[]];
}

export function conceptsOf(required: string[], explanation: SearchResult["explanation"], weights: CoverageWeights): Concepts {
  const { termWeights, termNotes, termClumping = {}, vaultNotes = 0 } = explanation;
  const spreadCounts = vaultNotes >= weights.clumpVaultNotes;
  // An everyday word weighs less, the more notes show it (a word seen in two notes says little).
  const clumped = (word: string) => {
    const seen = ownValue(termClumping, word);
    if (seen === undefined || !spreadCounts || weights.unclumpedWeight >= 1 || EXTREME_WORDS.has(word)) return 1;
    const topical = Math.min(1, Math.max(0, seen.clumping) / weights.clumpedAt);
    const sure = Math.min(1, seen.notes / weights.clumpNotes);
    return 1 - (1 - weights.unclumpedWeight) * (1 - topical) * sure;
  };
  // Two terms search looked up as the same words are one concept ("task" and "tasks"): the first.
  const parts = new Map<string, string[]>();
  const sameAs = new Map<string, string>();
  const byWords = new Map<string, string>();
  for (const term of required) {
    const words = termParts(term, explanation);
    const key = words.join(" ");
    const first = byWords.get(key);
    if (first !== undefined && words.length > 0) {
      sameAs.set(term, first);
      continue;
    }
    byWords.set(key, term);
    parts.set(term, words);
  }
  const terms = required.filter((term) => parts.has(term));
  const wordWeight = (word: string) =>
    (ownValue(termWeights, word) ?? 1) * (ownValue(termNotes, word) === 0 ? weights.absentWordWeight : 1) * (LIGHT_WORDS.has(word) ? weights.lightWordWeight : 1) * clumped(word);
  const weight = new Map<string, number>();
  // A word the spread took more than half its possible weight from is called everyday in the reason.
  const everydayBelow = (1 + weights.unclumpedWeight) / 2;
  const everyday = new Set<string>();
  for (const term of terms) {
    const words = parts.get(term) ?? [];
    weight.set(term, words.length === 0 ? 0 : Math.max(...words.map(wordWeight)));
    if (words.length > 0 && words.every((w) => clumped(w) <= everydayBelow)) everyday.add(term);
  }
  const total = [...weight.values()].reduce((a, b) => a + b, 0) || 1;
  return { terms, parts, sameAs, weight, total, ...(everyday.size > 0 ? { everyday } : {}) };
}

/** Summed weight of what `shares` covers, as a share of the question (0–1). */
export function coveredShare(concepts: Concepts, shares: Map<string, number>): number {
  let sum = 0;
  for (const term of concepts.terms) sum += (concepts.weight.get(term) ?? 0) * (shares.get(term) ?? 0);
  return sum / concepts.total;
}

/** Per concept, the better of two notes' shares: what they cover together. */
export function together(a: Map<string, number>, b: Map<string, number>): Map<string, number> {
  const out = new Map(a);
  for (const [term, share] of b) out.set(term, Math.max(out.get(term) ?? 0, share));
  return out;
}

export function noteCoverage(result: WeighedResult, concepts: Concepts, weights: CoverageWeights): NoteCoverage {
  const { explanation } = result;
  const inTitle = new Set([...(explanation.fields.title ?? []), ...(explanation.fields.aliases ?? [])]);
  const standInShare = standInShares(explanation.standIns ?? {}, weights);
  // `shown`: the note's text the share is read in, for a Chinese or Japanese run (see pairShare).
  const shareIn = (found: Set<string>, withStandIns: boolean, shown: string) => {
    const shares = new Map<string, number>();
    for (const term of concepts.terms) {
      const parts = concepts.parts.get(term) ?? [];
      if (parts.length === 0) continue;
      // A term of several words ("tar.gz") is as covered as its least covered word.
      const share = Math.min(...parts.map((p) => (found.has(p) ? Math.min(1, pairShare(p, shown) ?? 1) : withStandIns ? (standInShare.get(p) ?? 0) : 0)));
      if (share > 0) shares.set(term, share);
    }
    return shares;
  };
  const shownText = (sections: SearchResult["sections"]) => [result.title, ...sections.flatMap((s) => [s.heading, s.snippet])].join("\n");
  const inNote = shareIn(new Set(explanation.matchedTerms), true, shownText(result.sections));
  let closeSection = new Map<string, number>();
  let looseSection = new Map<string, number>();
  for (const section of result.sections) {
    const close = shareIn(new Set([...section.closeTerms, ...inTitle]), false, shownText([section]));
    const loose = shareIn(new Set([...section.matchedTerms, ...inTitle]), false, shownText([section]));
    if (coveredShare(concepts, close) > coveredShare(concepts, closeSection)) closeSection = close;
    if (coveredShare(concepts, loose) > coveredShare(concepts, looseSection)) looseSection = loose;
  }
  const named = shareIn(new Set([...inTitle, ...(explanation.fields.lead ?? [])]), false, shownText([]));
  const standIns = new Map<string, string[]>();
  for (const term of concepts.terms) {
    const parts = concepts.parts.get(term) ?? [];
    const by = parts.flatMap((p) => (explanation.matchedTerms.includes(p) ? [] : (explanation.standIns?.[p] ?? []).map((s) => s.term)));
    if (by.length > 0 && (inNote.get(term) ?? 0) < 1) standIns.set(term, by);
  }
  const listed = new Set(result.linkListWords ?? []);
  const linkListed = new Set(concepts.terms.filter((t) => (inNote.get(t) ?? 0) === 0 && (concepts.parts.get(t) ?? []).some((p) => listed.has(p))));
  return { path: result.path, inNote, closeSection, looseSection, named, standIns, ...(linkListed.size > 0 ? { linkListed } : {}), ...(result.bare ? { bare: result.bare } : {}) };
}

/**
 * The share of a Chinese or Japanese word's character pairs that `text` holds; null for a word
 * without such characters. Those scripts have no spaces, so a run of the question ("冰箱温度") is
 * one word to search, which the index matches pair by pair: a note holding only "冰箱" has
 * matched it, and would otherwise count as covering it whole.
 */
export function pairShare(word: string, text: string): number | null {
  const pairs: string[] = [];
  for (const run of word.match(CJK_RUNS) ?? []) {
    if (!CJK_CHAR.test(run)) continue;
    const chars = Array.from(run);
    if (chars.length === 1) pairs.push(run);
    for (let i = 0; i + 1 < chars.length; i++) pairs.push(chars[i] + chars[i + 1]);
  }
  if (pairs.length === 0) return null;
  const folded = foldCase(text);
  return pairs.filter((pair) => folded.includes(pair)).length / pairs.length;
}

/** Query word → the share of it its strongest stand-in covers. */
function standInShares(standIns: NonNullable<SearchResult["explanation"]["standIns"]>, weights: CoverageWeights): Map<string, number> {
  const out = new Map<string, number>();
  for (const [word, list] of Object.entries(standIns)) {
    const strongest = Math.max(0, ...list.map((s) => s.strength));
    out.set(word, Math.min(weights.standInCap, weights.standInCredit * strongest));
  }
  return out;
}
