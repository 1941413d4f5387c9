// The judge: does the vault answer this question, or does it merely share a keyword with it?
//
// It looks at the best few notes and asks how much of the question's content they cover
// (judge-coverage.ts: each word weighted by its rarity, less for an everyday word whose uses do
// not bunch together in this vault's notes; words the vault uses with a missing word count for
// part of it). Enough evidence takes one of four shapes, each a lever the verdict names:
// most of the question inside one section of one note; a note that is named after what was asked;
// nearly all of it in one note, spread over a section (not for "how many", "how much": a count is
// said in one place); or two notes that together cover a
// question of two parts, each its own part close together (both are then in the pack). Some
// coverage is `weak_evidence`; almost none is `no_evidence`; a question of common words only ("what
// is it?") is `weak_evidence`, whatever notes share them. A note that never says a name the
// question writes (a capital mid-sentence: "Microsoft", "PDF"; plan.ts namedTerms) is not enough,
// whatever else it shares, unless a quarter of the vault says that name (the vault's own subject,
// which notes leave unsaid). A note that says nothing beyond its name (bare-notes.ts: "TODO" under
// a title that is the question) is not enough either, alone or as half of a pair; nor, for a
// question that compares or relates two things ("foam grep vs foam search", question-sides.ts), a
// note or pair that never says one side: the notes together must say both. When unsure it
// says weak: a confident "enough" for a note that does not answer sends nobody to the web and
// misleads. A question about the current state ("latest", "today"…) is at most weak: notes record
// the past.
// The thresholds are tuned by vault split (evals/README.md, `npm run eval:judge`).
import type { SearchResult } from "../../index/types";
import type { Judgement, QueryPlan } from "../../evidence/research-pack";
import { roundTo } from "../../text/numbers";
import { conceptsOf, coveredShare, noteCoverage, termParts, together, type Concepts, type CoverageWeights, type NoteCoverage, type WeighedResult } from "./judge-coverage";
import { listOf, reasonFor } from "./judge-reason";
import type { BareNote } from "./bare-notes";
import { namedTerms } from "./plan";
import { questionSides, sideConcepts } from "./question-sides";

export interface JudgeOptions extends CoverageWeights {
  /** Note coverage at or above which (with section coverage) the evidence is enough. */
  enoughNote: number;
  /** Best single-section coverage (words close together) needed for enough. */
  enoughSection: number;
  /** Or: a note covering this much of the question is enough when one section holds at least
   * `broadSection` of it anywhere, and `broadClose` of it close together. */
  broadNote: number;
  broadSection: number;
  broadClose: number;
  /** Or: a note whose title, aliases or opening name at least `namedShare` of the question's
   * content, and which covers `namedNote` of it overall, is about exactly what was asked. */
  namedShare: number;
  namedNote: number;
  /** Or: two of the top notes covering `pairNote` of the question together, each at least
   * `pairEach` of it that the other lacks, and together `pairSection` close together. */
  pairNote: number;
  pairEach: number;
  pairSection: number;
  /** …and both notes have words of the question carrying at least this share of it: two notes
   * about one subject ("foam grep" and "foam search"), not two that each hold half of its words. */
  pairShared: number;
  /** No verdict of enough while one word the note lacks carries more than this share of the
   * question: the rarest word is usually the point ("tar on ZFS", "sync with Microsoft To Do"). */
  maxMissingShare: number;
  /** Below this note coverage the vault has no evidence at all. */
  noneBelow: number;
  /** A name the question writes must be said by the verdict's notes (see namesToSay). */
  namesSaid: boolean;
  /** A question asking how many or how much is not answered by words spread over a section. */
  amountInOnePlace: boolean;
  /** How many top notes are examined alone, and how many as pairs (the focused retry's note comes after the first ones). */
  topNotes: number;
  pairNotes: number;
}

export const DEFAULT_JUDGE: JudgeOptions = {
  enoughNote: 0.7,
  enoughSection: 0.6,
  broadNote: 0.8,
  broadSection: 0.5,
  broadClose: 0.45,
  namedShare: 0.6,
  namedNote: 0.6,
  pairNote: 0.85,
  pairEach: 0.2,
  pairSection: 0.7,
  pairShared: 0.2,
  maxMissingShare: 1,
  noneBelow: 0.3,
  namesSaid: true,
  amountInOnePlace: true,
  topNotes: 3,
  pairNotes: 4,
  absentWordWeight: 1,
  lightWordWeight: 0.3,
  unclumpedWeight: 0.2,
  clumpedAt: 0.5,
  clumpNotes: 5,
  clumpVaultNotes: 1000,
  standInCredit: 1,
  standInCap: 0.5,
};

/** Which part of the judge settled the verdict (named in the reason too). */
export type JudgeLever =
  | "no_match"
  | "tags_or_phrases"
  | "common_words_only"
  | "one_section"
  | "named_note"
  | "spread_in_note"
  | "two_notes"
  | "related_note"
  | "current_state"
  | "little_coverage"
  | "name_missing"
  | "bare_note"
  | "side_missing"
  | "partial_coverage"
  | "spread_out";

export interface JudgeFigures {
  noteCoverage: number;
  /** Best coverage by words standing close together (one ~40-word window of a section). */
  sectionCoverage: number;
  /** Best coverage by one section's words, wherever they stand in it. */
  looseSectionCoverage: number;
  /** Coverage by the best note's title, aliases and opening. */
  namedCoverage: number;
  bestPath?: string;
  /** The second note of a two-note verdict. */
  pairedPath?: string;
  /** Which part of the judge settled the verdict (for the trace and the evaluation). */
  decidedBy?: JudgeLever;
  /** The verdict rests on a note found beyond the first search: how it was found. */
  foundBy?: FoundBy["kind"];
}

/** One note's figures, or two notes' together. */
export interface Examined {
  notes: { path: string; title: string }[];
  /** What the notes cover together, and each on its own (in the order of `notes`). */
  coverage: NoteCoverage;
  each: NoteCoverage[];
  note: number;
  close: number;
  loose: number;
  named: number;
  /** A note found beyond the first search, and how. */
  found?: FoundBy;
}

export type JudgeVerdict = Judgement & { figures: JudgeFigures };

/** How a note beyond the first search was found: along a top note's link or tag (the related
 * expansion), or by a model's rewrite of the question (local retrieval only). */
export type FoundBy = { kind: "link"; from: string; fromTitle: string; relation: LinkRelation } | { kind: "rewrite"; rewrite: string };

/** How a related note relates to the top note it was found from. */
export type LinkRelation = { kind: "links_to" } | { kind: "linked_from" } | { kind: "shares_tag"; tag: string };

/** The relation in words, between the two titles: "links to", "is linked from", "shares #tag with". */
export function relationWords(relation: LinkRelation): string {
  if (relation.kind === "links_to") return "links to";
  if (relation.kind === "linked_from") return "is linked from";
  return `shares #${relation.tag} with`;
}

/** A note found beyond the first search, and how. */
export interface RelatedResult {
  result: WeighedResult;
  found: FoundBy;
}

/**
 * `related`: notes found beyond the first search (along the top notes' links and tags, or by a
 * rewrite of the question). Each is examined alone after the top notes' own levers, and one found
 * along a link also with the note it was found from, as a pair (no two-part cue needed: the link
 * says they belong together).
 */
export function judgeEvidence(plan: QueryPlan, results: WeighedResult[], options: JudgeOptions = DEFAULT_JUDGE, related: RelatedResult[] = []): JudgeVerdict {
  const required = plan.required_terms.length > 0 ? plan.required_terms : plan.terms;
  if (results.length === 0) {
    const reason = required.length > 0 ? `No note matched ${quoteList(required)}.` : "No note matched the question.";
    return { verdict: "no_evidence", reason, missing_terms: required, figures: { ...NO_FIGURES, decidedBy: "no_match" } };
  }
  if (required.length === 0 && plan.tags.length === 0 && plan.phrases.length === 0) return onlyCommonWords(plan, results);
  if (required.length === 0) {
    // Only tags or phrases: matching them is the whole question.
    const reason = `${results.length} note${results.length === 1 ? "" : "s"} matched the tags or phrases asked for.`;
    const figures: JudgeFigures = { noteCoverage: 1, sectionCoverage: 1, looseSectionCoverage: 1, namedCoverage: 1, bestPath: results[0].path, decidedBy: "tags_or_phrases" };
    return { verdict: "enough_evidence", reason, missing_terms: [], figures };
  }
  const stats = questionStats(results, required);
  const found = conceptsOf(required, stats, options);
  // A name said twice in other words ("task … Tasks") is its concept's name.
  const names = options.namesSaid ? namesToSay(plan, stats).map((t) => found.sameAs.get(t) ?? t) : [];
  const asked = questionSides(plan.normalized);
  const sides = asked ? sideConcepts(asked, found, required) : null;
  const concepts: Concepts = { ...found, names: [...new Set(names)].filter((t) => found.parts.has(t)), amount: options.amountInOnePlace && AMOUNT.test(plan.normalized), ...(sides ? { sides } : {}) };
  const examined = results.slice(0, Math.max(options.topNotes, options.pairNotes)).map((r) => examine(concepts, [r], [noteCoverage(r, concepts, options)]));
  const singles = examined.slice(0, options.topNotes);
  const best = fullest(singles);
  const lever = singleLever(concepts, best, options);
  if (lever) return verdictOf(plan, concepts, best, lever);
  // Enough by its words, but held back (heldBack): unless another top note answers, or two notes or a related one do.
  const held = heldBack(concepts, best, options);
  const other = held ? singles.filter((e) => e !== best && singleLever(concepts, e, options)) : [];
  if (other.length > 0) {
    const next = fullest(other);
    return verdictOf(plan, concepts, next, singleLever(concepts, next, options)!);
  }
  const pair = asksTwoThings(plan.normalized) ? bestPair(concepts, examined.slice(0, options.pairNotes), options) : null;
  if (pair) return verdictOf(plan, concepts, pair, "two_notes");
  const linked = related.length > 0 ? relatedVerdict(plan, concepts, examined, related, options) : null;
  if (linked) return linked;
  // A top note that would cover more than the verdict's note if its list of links counted (a hub) is
  // named in the reason too: a user sees those words in it, and should see why they do not answer.
  const hub = singles.find((e) => e !== best && withLinkLists(concepts, e) > best.note);
  if (held) return verdictOf(plan, concepts, best, held, hub);
  if (best.note < options.noneBelow) return verdictOf(plan, concepts, best, "little_coverage", hub);
  return verdictOf(plan, concepts, best, best.note < options.enoughNote ? "partial_coverage" : "spread_out", hub);
}

/** What a note would cover if the words it has only in a list of links counted (0 when it has none). */
function withLinkLists(concepts: Concepts, e: Examined): number {
  const listed = [...(e.coverage.linkListed ?? [])];
  return listed.length === 0 ? 0 : coveredShare(concepts, new Map([...e.coverage.inNote, ...listed.map((t) => [t, 1] as const)]));
}

/**
 * A question of common words only ("what is it?", "how"): search may still find notes (by a title
 * such as "What is New"), but nothing tells whether one answers, so the judge will not say enough.
 */
function onlyCommonWords(plan: QueryPlan, results: SearchResult[]): JudgeVerdict {
  const words = [...new Set(plan.normalized.match(/[\p{L}\p{N}]+/gu) ?? [])];
  const asked = words.length > 0 ? `only common words (${listOf(words)})` : "no words";
  const reason = `The question has ${asked}, so no note can be said to answer it; ${results.length} note${results.length === 1 ? "" : "s"} matched only those.`;
  return { verdict: "weak_evidence", reason, missing_terms: [], figures: { ...NO_FIGURES, bestPath: results[0].path, decidedBy: "common_words_only" } };
}

/**
 * Where the question's words are weighed: the first result whose search weighed the most of the
 * required terms. Mostly the first result; but a focused retry searched only the words its note was
 * to supply, and at a dial level above 1 its note may come first. (Words beyond the required ones,
 * which the dial's own search of the whole question also weighs, do not count.)
 */
function questionStats(results: readonly SearchResult[], required: readonly string[]): SearchResult["explanation"] {
  const weighed = (r: SearchResult) => required.filter((t) => {
    const parts = termParts(t, r.explanation);
    return parts.length > 0 && parts.every((p) => Object.hasOwn(r.explanation.termWeights, p));
  }).length;
  return results.reduce((a, b) => (weighed(b) > weighed(a) ? b : a)).explanation;
}

/** Of examined notes, the one covering most of the question overall and close together (the first on a tie). */
function fullest<E extends Examined>(list: readonly E[]): E {
  return list.reduce((a, b) => (b.note + b.close > a.note + a.close ? b : a));
}

const NO_FIGURES: JudgeFigures = { noteCoverage: 0, sectionCoverage: 0, looseSectionCoverage: 0, namedCoverage: 0 };

function examine(concepts: Concepts, results: SearchResult[], coverage: NoteCoverage[]): Examined {
  const merged = coverage.reduce((a, b) => ({
    path: a.path,
    inNote: together(a.inNote, b.inNote),
    closeSection: together(a.closeSection, b.closeSection),
    looseSection: together(a.looseSection, b.looseSection),
    named: together(a.named, b.named),
    standIns: new Map([...b.standIns, ...a.standIns]),
    linkListed: new Set([...(a.linkListed ?? []), ...(b.linkListed ?? [])]),
  }));
  return {
    notes: results.map((r) => ({ path: r.path, title: r.title })),
    coverage: merged,
    each: coverage,
    note: coveredShare(concepts, merged.inNote),
    close: coveredShare(concepts, merged.closeSection),
    loose: coveredShare(concepts, merged.looseSection),
    named: coveredShare(concepts, merged.named),
  };
}

/** What singleLever asks besides coverage: that the notes say the names the question writes,
 * something of their own beyond their names (not bare), and something of each side of a question
 * that compares or relates two things. All unless told otherwise. */
interface LeverChecks {
  names?: boolean;
  body?: boolean;
  sides?: boolean;
}

function singleLever(concepts: Concepts, e: Examined, o: JudgeOptions, checks: LeverChecks = {}): JudgeLever | null {
  const { names = true, body = true, sides = true } = checks;
  if (heaviestMissing(concepts, e) > o.maxMissingShare || (names && unsaidNames(concepts, e).length > 0) || (body && bareOf(e)) || (sides && unsaidSide(concepts, e))) return null;
  if (e.note >= o.enoughNote && e.close >= o.enoughSection) return "one_section";
  if (e.named >= o.namedShare && e.note >= o.namedNote) return "named_note";
  if (!concepts.amount && e.note >= o.broadNote && e.loose >= o.broadSection && e.close >= o.broadClose) return "spread_in_note";
  return null;
}

/**
 * Why a note that covers enough of the question is still not enough alone, the first check it
 * fails: it never says a name the question asks about (the note is about something else: "sync with
 * Microsoft To Do"); it says nothing beyond its name (bare: "TODO" under a title that is the
 * question); or it never says one side of what the question compares or relates ("foam search" for
 * "foam grep vs foam search"). Null when it is enough, or not near.
 */
function heldBack(concepts: Concepts, e: Examined, o: JudgeOptions): "name_missing" | "bare_note" | "side_missing" | null {
  if (singleLever(concepts, e, o)) return null;
  if (singleLever(concepts, e, o, { names: false })) return "name_missing";
  if (singleLever(concepts, e, o, { names: false, body: false })) return bareOf(e) ? "bare_note" : null;
  if (singleLever(concepts, e, o, { names: false, body: false, sides: false })) return unsaidSide(concepts, e) ? "side_missing" : null;
  return null;
}

/** The side of a two-sided question (its own concepts) that the examined notes never say, if any. */
export function unsaidSide(concepts: Concepts, e: Pick<Examined, "coverage">): string[] | undefined {
  return concepts.sides?.find((side) => side.every((t) => (e.coverage.inNote.get(t) ?? 0) < 1));
}

/** "How many…", "how much…": a count or an amount, which a note says in one place. */
const AMOUNT = /\bhow (?:many|much)\b/;

/** A name that a quarter of the vault's notes or more say is the vault's own subject ("Obsidian" in
 * Obsidian's help): a note about it may leave it unsaid. */
const SUBJECT_SHARE = 0.25;

/** The names the question writes (namedTerms) that an answering note must say. */
function namesToSay(plan: QueryPlan, explanation: SearchResult["explanation"]): string[] {
  const notes = explanation.vaultNotes ?? 0;
  const subject = (term: string) => notes > 0 && termParts(term, explanation).every((w) => (explanation.termNotes[w] ?? 0) >= SUBJECT_SHARE * notes);
  return namedTerms(plan).filter((term) => !subject(term));
}

/** The names the question writes (namedTerms) that the examined notes do not say. */
export function unsaidNames(concepts: Concepts, e: Pick<Examined, "coverage">): string[] {
  return (concepts.names ?? []).filter((t) => (e.coverage.inNote.get(t) ?? 0) < 1);
}

/** The first of the examined notes that says nothing beyond its name (bare-notes.ts), if any. */
export function bareOf(e: Pick<Examined, "each">): NoteCoverage & { bare: BareNote } | undefined {
  return e.each.find((c): c is NoteCoverage & { bare: BareNote } => c.bare !== undefined);
}

/** The share of the question carried by the heaviest word the examined notes lack entirely. */
function heaviestMissing(concepts: Concepts, e: Examined): number {
  let most = 0;
  for (const term of concepts.terms) if ((e.coverage.inNote.get(term) ?? 0) === 0) most = Math.max(most, (concepts.weight.get(term) ?? 0) / concepts.total);
  return most;
}

/**
 * A question of two parts says so: it compares ("difference between", "vs", "or"), relates ("how
 * does X relate to Y", "together", "between"), chains ("…, then …", "and also"), or asks a second
 * question ("…, and how do I …"). Without such a
 * word, two notes that each hold half of the question's words are a coincidence, not an answer
 * ("tail" and "ssh" for "make tail follow a file over SSH with reconnects").
 */
const TWO_PARTS = /\b(?:differen(?:ce|ces|t|tly)|differ|compare[sd]?|comparison|versus|vs\.?|relate[sd]?|relation(?:ship)?|between|together|both|then|and also|as well as|or|and (?:how|what|where|which|why|when|can|does|do))\b/;

export function asksTwoThings(normalized: string): boolean {
  return TWO_PARTS.test(normalized);
}

/** Two top notes that answer a two-part question together, each its own part; the best such pair. */
function bestPair(concepts: Concepts, singles: Examined[], o: JudgeOptions): Examined | null {
  let best: Examined | null = null;
  for (let i = 0; i < singles.length; i++) {
    for (let j = i + 1; j < singles.length; j++) {
      const pair = pairOf(concepts, singles[i], singles[j], o);
      if (pair && (!best || pair.note + pair.close > best.note + best.close)) best = pair;
    }
  }
  return best;
}

/**
 * Two notes that together answer the question, each adding its own part; null when they do not.
 * `linked`: one links to the other (or shares a rare tag), which says they are about one subject,
 * so they need not share words of the question.
 */
function pairOf(concepts: Concepts, a: Examined, b: Examined, o: JudgeOptions, linked = false): Examined | null {
  const pair = examine(concepts, [], [a.coverage, b.coverage]);
  pair.notes = [...a.notes, ...b.notes];
  // What each adds that the other lacks: a second note that only repeats the first is no pair.
  const adds = (x: Examined, y: Examined) => pair.note - coveredShare(concepts, y.coverage.inNote) >= o.pairEach && x.note >= o.pairEach;
  const shared = new Map([...a.coverage.inNote].map(([t, share]) => [t, Math.min(share, b.coverage.inNote.get(t) ?? 0)]));
  // A bare note adds only its name, which is no part of an answer; and the two together say something of each side.
  if (bareOf(pair) || unsaidSide(concepts, pair) || heaviestMissing(concepts, pair) > o.maxMissingShare || unsaidNames(concepts, pair).length > 0 || pair.note < o.pairNote || pair.close < o.pairSection || (!linked && coveredShare(concepts, shared) < o.pairShared) || !adds(a, b) || !adds(b, a)) return null;
  return pair;
}

/** A related note that answers alone, or with the top note it was found from; the better one. */
function relatedVerdict(plan: QueryPlan, concepts: Concepts, examined: Examined[], related: RelatedResult[], o: JudgeOptions): JudgeVerdict | null {
  let best: { e: Examined; lever: JudgeLever } | null = null;
  for (const r of related) {
    const alone: Examined = { ...examine(concepts, [r.result], [noteCoverage(r.result, concepts, o)]), found: r.found };
    const lever = singleLever(concepts, alone, o);
    const from = r.found.kind === "link" ? r.found.from : null;
    const seed = examined.find((e) => e.notes[0]?.path === from);
    const pair = lever || !seed ? null : pairOf(concepts, seed, alone, o, true);
    const found = lever ? { e: alone, lever } : pair ? { e: { ...pair, found: r.found }, lever: "related_note" as const } : null;
    if (found && (!best || found.e.note + found.e.close > best.e.note + best.e.close)) best = found;
  }
  return best ? verdictOf(plan, concepts, best.e, best.lever) : null;
}

function verdictOf(plan: QueryPlan, concepts: Concepts, e: Examined, lever: JudgeLever, hub?: Examined): JudgeVerdict {
  const enough = lever === "one_section" || lever === "named_note" || lever === "spread_in_note" || lever === "two_notes" || lever === "related_note";
  const decidedBy: JudgeLever = enough && plan.freshness.flagged ? "current_state" : lever;
  const figures: JudgeFigures = {
    noteCoverage: roundTo(e.note, 3),
    sectionCoverage: roundTo(e.close, 3),
    looseSectionCoverage: roundTo(e.loose, 3),
    namedCoverage: roundTo(e.named, 3),
    bestPath: e.notes[0]?.path,
    ...(e.notes.length > 1 ? { pairedPath: e.notes[1].path } : {}),
    decidedBy,
    ...(e.found ? { foundBy: e.found.kind } : {}),
  };
  const missing = concepts.terms.filter((t) => (e.coverage.inNote.get(t) ?? 0) < 1);
  const verdict = decidedBy === "current_state" || (!enough && lever !== "little_coverage") ? "weak_evidence" : enough ? "enough_evidence" : "no_evidence";
  return { verdict, reason: reasonFor(decidedBy, e, concepts, plan, hub), missing_terms: missing, figures };
}

export function quoteList(terms: string[]): string {
  return terms.map((t) => `"${t}"`).join(", ");
}
