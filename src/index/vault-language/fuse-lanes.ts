// The words' ranking and the vault language's, made one by reciprocal rank fusion: a note scores
// 1 / (k + its rank) in each lane (the language lane's share times `weight`), and the sums order
// the result. A note both lanes rank high leads; a note only the language lane finds can join the
// top when its words are another way of saying the question's; but a note the words put far ahead
// of all others, or whose name the question is (`keepFirst`), keeps first place. Each note keeps
// its own (words') score and explanation; the language lane adds its rank and similarity to it, and
// the fusion its fused score and words' rank (`explanation.fusion`): the order is the fused score's,
// so a surface showing one score per note shows that one (`orderedScore`).
import { roundTo } from "../../text/numbers";
import type { RankedHit } from "../ranking/explain";
import { noteHoldsTerm, type SearchEngine } from "../search-engine";
import type { Analyzer } from "../tokenize";
import type { SearchExplanation } from "../types";
import type { NearNote } from "./vault-language";

/** The index the words were ranked over: which of the question's words a note they did not rank holds. */
export interface WordsIndex {
  engine: SearchEngine;
  analyzer: Analyzer;
}

export interface LaneFusion {
  /** RRF's k: how much a first place outweighs a tenth. */
  k: number;
  /** The language lane's share against the words' (1 = equal). */
  weight: number;
  /** Notes taken from the language lane. */
  depth: number;
  /** How far the words' best note covering the whole question quiets the lane: its share is
   * weight × (1 − damping × that coverage). 0 leaves it at `weight` always. */
  damping?: number;
  /** The words' first note keeps first place when it scores at least this many times their
   * second: a question that plainly names one note ("kevin kelly's unsolicited advice list").
   * Absent, the fusion alone decides. */
  lead?: number;
}

/** A note's place in the fused order: its fused score and, when the words ranked it, its rank there. */
interface Fused {
  hit: RankedHit;
  score: number;
  wordsRank: number | null;
}

export function fuseLanes(words: readonly RankedHit[], language: readonly NearNote[], fusion: LaneFusion, allWords: readonly string[], index?: WordsIndex): RankedHit[] {
  const nearest = language.slice(0, fusion.depth);
  // Nothing to fuse with: the words' ranking, its scores its order's.
  if (nearest.length === 0) return [...words];
  const fused = new Map<string, Fused>();
  words.forEach((hit, i) => fused.set(hit.path, { hit, score: 1 / (fusion.k + i + 1), wordsRank: i + 1 }));
  const stats = words[0]?.explanation;
  const weight = fusion.weight * (1 - (fusion.damping ?? 0) * (stats ? coverageOf(stats) : 0));
  const asked = wordsWeighed(allWords, stats);
  nearest.forEach((near, i) => {
    const share = weight / (fusion.k + i + 1);
    const known = fused.get(near.path);
    const hit = withLanguage(known?.hit ?? languageOnlyHit(near, asked, stats, index), near, i + 1);
    fused.set(near.path, { hit, score: (known?.score ?? 0) + share, wordsRank: known?.wordsRank ?? null });
  });
  const ranked = Array.from(fused.values()).sort((a, b) => b.score - a.score || b.hit.score - a.hit.score || (a.hit.path < b.hit.path ? -1 : 1));
  return withFusion(wordsFirstKept(ranked, words, fusion));
}

/**
 * The fused order with the words' first note moved to the top when it must stay there: it leads
 * the words by `lead` times their second's score, or the question is its name. Moved, it takes the
 * fused score of the note it passes (the order and the scores agree) and says why (`keptFirst`).
 */
function wordsFirstKept(ranked: Fused[], words: readonly RankedHit[], fusion: LaneFusion): (Fused & { keptFirst?: true })[] {
  const first = words[0];
  // A second note scoring nothing (rounded to 0) is no measure of a lead.
  const leads = fusion.lead !== undefined && words.length >= 2 && words[1].score > 0 && first.score >= fusion.lead * words[1].score;
  if (!(leads || first?.keepFirst === true) || ranked[0].hit.path === first.path) return ranked;
  const i = ranked.findIndex((f) => f.hit.path === first.path);
  return [{ ...ranked[i], score: ranked[0].score, keptFirst: true }, ...ranked.slice(0, i), ...ranked.slice(i + 1)];
}

/** Each note with its place in the fusion in its explanation; its own (words') score is left as it was. */
function withFusion(ranked: (Fused & { keptFirst?: true })[]): RankedHit[] {
  return ranked.map(({ hit, score, wordsRank, keptFirst }) => {
    const fusion = { score: roundTo(score, 6), wordsRank, ...(keptFirst ? { keptFirst } : {}) };
    return { ...hit, explanation: { ...hit.explanation, fusion } };
  });
}

/** The score a result's place follows: the fused one when the vault-language lane was fused in, else its own. */
export function orderedScore(result: { score: number; explanation: SearchExplanation }): number {
  return result.explanation.fusion?.score ?? result.score;
}

/**
 * The question's words as the words' ranking weighed them, each once, in the order asked: a word
 * typed twice is one word, and of a pasted page only the rarest words it looked up (its best note
 * says which: matched or missing). A note only this lane found is explained by the same words as
 * every other note, not by every word of the page, some of them twice.
 */
function wordsWeighed(allWords: readonly string[], stats: SearchExplanation | undefined): string[] {
  const weighed = stats ? new Set([...stats.matchedTerms, ...stats.missingTerms]) : null;
  return [...new Set(allWords)].filter((word) => weighed?.has(word) ?? true);
}

/** The share of the question's weight (rare words weigh more) a note's words matched. */
function coverageOf(explanation: SearchExplanation): number {
  const weights = Object.values(explanation.termWeights);
  const total = weights.reduce((a, b) => a + b, 0);
  if (total <= 0) return 0;
  const matched = explanation.matchedTerms.reduce((sum, w) => sum + (explanation.termWeights[w] ?? 0), 0);
  return Math.min(1, matched / total);
}

function withLanguage(hit: RankedHit, near: NearNote, rank: number): RankedHit {
  const vaultLanguage = { rank, similarity: roundTo(near.similarity, 3) };
  const part = { name: "vault language", detail: `close to the question in the way this vault uses its words (meaning rank ${rank}, similarity ${vaultLanguage.similarity})`, weight: 0 };
  return { ...hit, explanation: { ...hit.explanation, vaultLanguage, parts: [...hit.explanation.parts, part] } };
}

/**
 * A note the words did not rank: none of the question's words is in it, or it fell below the notes
 * the words explain (a common word). Its score is 0; the words it holds (by `index`) are matched,
 * the others missing (all of them without an index).
 */
function languageOnlyHit(near: NearNote, allWords: readonly string[], stats: SearchExplanation | undefined, index: WordsIndex | undefined): RankedHit {
  const holds = (word: string) => index !== undefined && index.analyzer.analyzeWord(word).some((term) => noteHoldsTerm(index.engine, near.path, term));
  const matchedTerms = allWords.filter(holds);
  const explanation: SearchExplanation = {
    matchedTerms,
    missingTerms: allWords.filter((word) => !matchedTerms.includes(word)),
    fields: {},
    parts: [],
    termWeights: stats?.termWeights ?? {},
    termNotes: stats?.termNotes ?? {},
    ...(stats?.termClumping ? { termClumping: stats.termClumping } : {}),
    ...(stats?.vaultNotes !== undefined ? { vaultNotes: stats.vaultNotes } : {}),
    ...(stats?.foldedWords ? { foldedWords: stats.foldedWords } : {}),
  };
  return { path: near.path, score: 0, docTerms: new Map(), explanation };
}
