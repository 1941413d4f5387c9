// The judge: does the vault answer this question, or does it merely share a keyword with it?
//
// It looks at the best few notes and asks how much of the question's *content* they cover, with
// each required word weighted by its rarity in this vault (a note that has "tar" but not "ZFS" has
// missed the part of "tar on ZFS" that mattered). Coverage is measured twice: over the whole note,
// and inside one section (words that answer a question together tend to sit together). Both must
// be high for `enough_evidence`; some coverage is `weak_evidence`; almost none is `no_evidence`.
// A question about the current state ("latest", "today"…) is at most `weak_evidence`: notes record
// the past.
// The thresholds are tuned against evals/judge (see `npm run eval:judge`).
import type { SearchResult } from "../../index/types";
import { foldCase, words } from "../../index/tokenize";
import type { Judgement, QueryPlan } from "../../evidence/research-pack";
import { roundTo } from "../../text/numbers";

export interface JudgeOptions {
  /** Note coverage at or above which (with section coverage) the evidence is enough. */
  enoughNote: number;
  /** Best single-section coverage needed for enough. */
  enoughSection: number;
  /** Or: a note covering this much of the question is enough when one section holds at least
   * `broadSection` of it anywhere (not necessarily close together). */
  broadNote: number;
  broadSection: number;
  /** Or: a note whose title, aliases or opening name at least `namedShare` of the question's
   * content, and which covers `namedNote` of it overall, is about exactly what was asked. */
  namedShare: number;
  namedNote: number;
  /** Below this note coverage the vault has no evidence at all. */
  noneBelow: number;
  /** How many top notes are examined. */
  topNotes: number;
  /** Weight, relative to its rarity, of a word the vault never uses anywhere: the vault cannot
   * use that word, so a note that answers the question must be saying it otherwise. */
  absentWordWeight: number;
  /** Weight of the everyday verbs and adjectives of how-to questions ("check", "see", "turn on"):
   * an answer rarely repeats them, so missing them says little. */
  lightWordWeight: number;
}

export const DEFAULT_JUDGE: JudgeOptions = {
  enoughNote: 0.7,
  enoughSection: 0.6,
  broadNote: 0.8,
  broadSection: 0.5,
  namedShare: 0.6,
  namedNote: 0.6,
  noneBelow: 0.3,
  topNotes: 3,
  absentWordWeight: 1,
  lightWordWeight: 0.3,
};

export interface JudgeFigures {
  noteCoverage: number;
  /** Best coverage by words standing close together (one ~40-word window of a section). */
  sectionCoverage: number;
  /** Best coverage by one section's words, wherever they stand in it. */
  looseSectionCoverage: number;
  /** Coverage by the best note's title, aliases and opening. */
  namedCoverage: number;
  bestPath?: string;
  /** Which part of the judge settled the verdict (for the trace and the evaluation). */
  decidedBy?: string;
}

/** Everyday words of how-to questions that an answering note need not contain. */
const LIGHT_WORDS = new Set(
  `check see put turn make get set run use show find keep start stop stops open close add try work help change move take
   give go let call bring look looking read write going able quick quickly easy easily simple simply specific certain
   instead whole entire several various large small big little long short full fully possible able current automatic
   automatically manual manually right wrong proper properly correct correctly following stuff`
    .split(/\s+/)
    .filter(Boolean),
);

/** The words of a plan term as the index sees them ("tar.gz" → tar, gz). */
function indexWords(term: string): string[] {
  return words(term).map(foldCase);
}

export function judgeEvidence(plan: QueryPlan, results: SearchResult[], options: JudgeOptions = DEFAULT_JUDGE): Judgement & { figures: JudgeFigures } {
  const required = plan.required_terms.length > 0 ? plan.required_terms : plan.terms;
  if (results.length === 0) {
    return {
      verdict: "no_evidence",
      reason: required.length > 0 ? `No note matched ${quoteList(required)}.` : "No note matched the question.",
      missing_terms: required,
      figures: { noteCoverage: 0, sectionCoverage: 0, looseSectionCoverage: 0, namedCoverage: 0 },
    };
  }
  if (required.length === 0) {
    // Only tags or phrases: matching them is the whole question.
    return {
      verdict: "enough_evidence",
      reason: `${results.length} note${results.length === 1 ? "" : "s"} matched the tags or phrases asked for.`,
      missing_terms: [],
      figures: { noteCoverage: 1, sectionCoverage: 1, looseSectionCoverage: 1, namedCoverage: 1, bestPath: results[0].path },
    };
  }
  const coverage = termCoverage(required, results[0].explanation, options);
  let best: NoteFigures = { noteCoverage: 0, sectionCoverage: 0, looseSectionCoverage: 0, namedCoverage: 0, missing: required, score: -1 };
  for (const result of results.slice(0, options.topNotes)) {
    const figures = noteFigures(result, required, coverage);
    if (figures.score > best.score) best = figures;
  }
  return verdictOf(best, plan, options);
}

/** How much of the question a set of words covers, each required term weighted by its rarity. */
interface TermCoverage {
  has: (found: Set<string>, term: string) => boolean;
  /** Summed weight of the required terms all of whose words are in `found`. */
  coveredBy: (found: Set<string>) => number;
  /** Summed weight of every required term (never 0). */
  total: number;
}

function termCoverage(required: string[], explanation: SearchResult["explanation"], options: JudgeOptions): TermCoverage {
  const { termWeights, termNotes } = explanation;
  const wordWeight = (word: string) =>
    (termWeights[word] ?? 1) * (termNotes[word] === 0 ? options.absentWordWeight : 1) * (LIGHT_WORDS.has(word) ? options.lightWordWeight : 1);
  const weightOf = (term: string) => {
    const parts = indexWords(term);
    if (parts.length === 0) return 0;
    return Math.max(...parts.map(wordWeight));
  };
  const has = (found: Set<string>, term: string) => {
    const parts = indexWords(term);
    return parts.length > 0 && parts.every((p) => found.has(p));
  };
  return {
    has,
    coveredBy: (found) => required.reduce((sum, term) => sum + (has(found, term) ? weightOf(term) : 0), 0),
    total: required.reduce((sum, t) => sum + weightOf(t), 0) || 1,
  };
}

type NoteFigures = JudgeFigures & { missing: string[]; score: number };

/** One note's coverage: over the whole note, within one section (close and loose), by its name. */
function noteFigures(result: SearchResult, required: string[], coverage: TermCoverage): NoteFigures {
  const { total, coveredBy } = coverage;
  const inNote = new Set(result.explanation.matchedTerms);
  const inTitle = new Set([...(result.explanation.fields.title ?? []), ...(result.explanation.fields.aliases ?? [])]);
  const missing = required.filter((term) => !coverage.has(inNote, term));
  let closeCovered = 0;
  let looseCovered = 0;
  for (const section of result.sections) {
    closeCovered = Math.max(closeCovered, coveredBy(new Set([...section.closeTerms, ...inTitle])));
    looseCovered = Math.max(looseCovered, coveredBy(new Set([...section.matchedTerms, ...inTitle])));
  }
  const noteCoverage = coveredBy(inNote) / total;
  const sectionCoverage = closeCovered / total;
  const namedCoverage = coveredBy(new Set([...inTitle, ...(result.explanation.fields.lead ?? [])])) / total;
  return { noteCoverage, sectionCoverage, looseSectionCoverage: looseCovered / total, namedCoverage, missing, score: noteCoverage + sectionCoverage, bestPath: result.path };
}

function verdictOf(best: NoteFigures, plan: QueryPlan, options: JudgeOptions): Judgement & { figures: JudgeFigures } {
  const figures: JudgeFigures = {
    noteCoverage: roundTo(best.noteCoverage, 3),
    sectionCoverage: roundTo(best.sectionCoverage, 3),
    looseSectionCoverage: roundTo(best.looseSectionCoverage, 3),
    namedCoverage: roundTo(best.namedCoverage, 3),
    bestPath: best.bestPath,
  };
  const pct = (n: number) => `${Math.round(n * 100)}%`;
  const enough =
    (best.noteCoverage >= options.enoughNote && best.sectionCoverage >= options.enoughSection) ||
    (best.noteCoverage >= options.broadNote && best.looseSectionCoverage >= options.broadSection) ||
    (best.namedCoverage >= options.namedShare && best.noteCoverage >= options.namedNote);
  if (enough && plan.freshness.flagged) {
    // Notes record the past; for a question about the current state they can be the start of an
    // answer, not the whole of it.
    return {
      verdict: "weak_evidence",
      reason: `"${best.bestPath}" covers ${pct(best.noteCoverage)} of the question's content words, but the question asks about the current state ("${plan.freshness.cues.join('", "')}") and notes may be out of date.`,
      missing_terms: best.missing,
      figures,
    };
  }
  if (enough) {
    return {
      verdict: "enough_evidence",
      reason: `"${best.bestPath}" covers ${pct(best.noteCoverage)} of the question's content words (${pct(best.sectionCoverage)} within one section).`,
      missing_terms: best.missing,
      figures,
    };
  }
  if (best.noteCoverage < options.noneBelow) {
    return {
      verdict: "no_evidence",
      reason: `Notes share at most ${pct(best.noteCoverage)} of the question's content words; missing ${quoteList(best.missing)}.`,
      missing_terms: best.missing,
      figures,
    };
  }
  const why =
    best.noteCoverage < options.enoughNote
      ? `the best note covers only ${pct(best.noteCoverage)} of the question's content words; missing ${quoteList(best.missing)}`
      : `the words are spread out: no section holds more than ${pct(best.sectionCoverage)} of them together`;
  return { verdict: "weak_evidence", reason: `Partial evidence: ${why}.`, missing_terms: best.missing, figures };
}

function quoteList(terms: string[]): string {
  return terms.map((t) => `"${t}"`).join(", ");
}

