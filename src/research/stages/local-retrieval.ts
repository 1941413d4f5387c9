// Local retrieval: the vault half of a research pack. Runs the plan through the vault index
// (full-text lane, and an exact-tag lane when the question names #tags) and turns each matched
// note into a VaultRow with its best sections and the signals that explain its rank.
//
// One bounded second pass (the focused-retry lane): when a question of two parts ("difference
// between X and Y", "X or Y", "X, then Y") finds a best note that lacks part of it, the words that
// note lacks are searched on their own, once, and the best note for them joins the pack right
// among the first few, so the judge can weigh the two together and both reach the answer.
//
// With the search dial at level 2 and above, the dial's results lead the pack in the dial's order
// (RRF over words and vectors, then the model's rerank at 4): notes the words missed join as rows
// citing the section whose vector matched (level 3) or the note's opening section (level 2), and
// every row names the lanes that found it. A dial that ran at level 1 (no vectors, a failed call)
// leaves the rows exactly as the index alone makes them.
import { DIAL_LEVEL_NAMES, type DialLevel, type DialResult } from "../../index/dial/dial-types";
import { readNotes } from "../../index/read-notes";
import type { VaultIndex } from "../../index/vault-index";
import type { SearchResult } from "../../index/types";
import type { NoteStore } from "../../ports";
import type { QueryPlan, RowFusion, Signal, VaultRow, VaultSection } from "../../evidence/research-pack";
import { noteSourceKey } from "../../evidence/keys";
import { questionForIndex } from "./plan";
import type { ResearchDial, SaidDialNotice } from "../types";
import { asksTwoThings } from "./judge";
import { termMatched, termParts, type WeighedResult } from "./judge-coverage";
import { withoutLinkListWords } from "./link-lists";
import { bareNote } from "./bare-notes";
import { createAnalyzer, type Analyzer } from "../../index/tokenize";
import { shownSections, type WantedSection } from "./shown-sections";

export interface LocalRetrievalOptions {
  /** Notes to keep (default 8). */
  limit?: number;
  /** Sections per note (default 2). */
  sectionsPerNote?: number;
  /** The bounded second pass for two-part questions (default on). */
  focusedRetry?: boolean;
  /** The search dial; level 1 (or none) is the index alone. */
  dial?: ResearchDial | null;
  /** Whether the index matches word forms (settings' `index.stemming`, default on): how a note's link lists are read for the judge. */
  stemming?: boolean;
  signal?: AbortSignal;
}

/** Which level of the dial local retrieval asked for and which ran (null: no dial). */
export interface RetrievalLevel {
  asked: DialLevel;
  ran: DialLevel;
  /** In the words the dial's caller says them (`ResearchDial.sayNotices`). */
  notices: SaidDialNotice[];
}

export interface LocalRetrieval {
  rows: VaultRow[];
  /** The search results behind the rows, as the judge weighs them (term weights, section terms; a
   * hub's link lists not counted: link-lists.ts; a note with nothing but its name marked: bare-notes.ts).
   * The rows show what search found. */
  results: WeighedResult[];
  /** The query string the index was asked. */
  query: string;
  notesSearched: number;
  level: RetrievalLevel | null;
}

/** A note scoring below this share of the best note's score is left out of the pack. */
export const MIN_SHARE_OF_BEST = 0.08;

/**
 * What the index is asked: the question as `search` would be asked it (`questionForIndex`), then
 * the words of its #tags and a follow-up's context terms.
 */
export function indexQueryFor(plan: QueryPlan): string {
  const tagWords = plan.tags.flatMap((tag) => tag.split("/")).filter((w) => w !== "");
  return [questionForIndex(plan.question), ...tagWords, ...plan.context_terms].join(" ").trim() || plan.normalized;
}

export async function retrieveLocal(plan: QueryPlan, index: VaultIndex, store: NoteStore, options: LocalRetrievalOptions = {}): Promise<LocalRetrieval> {
  const limit = options.limit ?? 8;
  const sectionsPerNote = options.sectionsPerNote ?? 2;
  const query = indexQueryFor(plan);
  let results = await index.search(query, store, { limit, sectionsPerNote });
  // The question's own search: only its rows' fused scores are of the one scale their order follows.
  const ownSearch = new Set(results);
  const lanes: VaultRow["retrieval"]["lanes"] = [{ name: "full_text", status: "used" }];
  if (plan.tags.length > 0) {
    // The exact-tag lane: notes carrying the tags, even when the words matched elsewhere better.
    const tagged = await index.search(plan.tags.map((t) => `#${t}`).join(" "), store, { limit, sectionsPerNote });
    const seen = new Set(results.map((r) => r.path));
    results = [...results, ...tagged.filter((r) => !seen.has(r.path))].slice(0, limit);
    lanes.push({ name: "exact_tag", status: "used" });
  }
  const required = plan.required_terms.length > 0 ? plan.required_terms : plan.terms;
  const retried = options.focusedRetry === false ? null : await focusedRetry(plan, required, results, index, store, sectionsPerNote);
  if (retried) {
    // After the notes the judge weighs alone, where it looks for a second note to pair with them.
    const rest = results.filter((r) => r.path !== retried.path);
    results = [...rest.slice(0, RETRY_LIMIT), retried, ...rest.slice(RETRY_LIMIT)].slice(0, limit);
    lanes.push({ name: "focused_retry", status: "used" });
  }
  // Notes far below the best one matched a stray word; they would only dilute the pack. A note that
  // has every word of the question matched none by chance, however far below a note it scores whose
  // name or opening says them (a hub's list of links scores high).
  const floor = (results[0]?.score ?? 0) * MIN_SHARE_OF_BEST;
  const hasEveryWord = (r: SearchResult) => required.length > 0 && required.every((term) => termMatched(term, r.explanation));
  const kept = results.filter((r, i) => i === 0 || r === retried || r.score >= floor || r.explanation.fields.tags !== undefined || hasEveryWord(r));
  const vaultPaths = index.paths();
  const analyzer = createAnalyzer({ stemming: options.stemming ?? true });
  const rows = kept.map((r) => {
    const row = toVaultRow(r, required, lanes, plan.tags, vaultPaths);
    return ownSearch.has(r) ? withLanguageFusion(row, r) : row;
  });
  // The judge weighs the notes of the pack, and only those: a verdict resting on a note the pack
  // leaves out names evidence no one can read, and the answer cannot cite it.
  const lexical: LocalRetrieval = { rows, results: kept, query, notesSearched: index.status().notes, level: null };
  const dial = options.dial;
  const found: LocalRetrieval = !dial ? lexical : dial.level === 1 ? { ...lexical, level: { asked: 1, ran: 1, notices: [] } } : await withDialResults(lexical, dial, { plan, required, lanes, limit, index, store, analyzer, vaultPaths, signal: options.signal });
  return { ...found, results: await weighedForJudge(found.results, store, analyzer) };
}

/**
 * The results with what each note says only in lists of links taken out of what it matched
 * (link-lists.ts), and a note that says nothing beyond its name marked bare (bare-notes.ts).
 */
export async function weighedForJudge(results: SearchResult[], store: NoteStore, analyzer: Analyzer): Promise<WeighedResult[]> {
  const texts = await readNotes(store, results.map((r) => r.path));
  return results.map((r, i) => {
    const text = texts[i];
    if (typeof text !== "string") return r;
    const weighed = withoutLinkListWords(r, text, analyzer);
    const bare = bareNote(r.path, text, analyzer);
    return bare ? { ...weighed, bare } : weighed;
  });
}

/** " at level 3 (multi-field)" for a dial run above level 1 (the stage's progress and trace detail); "" otherwise. */
export function retrievalLevelDetail(level: RetrievalLevel | null): string {
  if (!level || level.asked === 1) return "";
  const asked = level.ran === level.asked ? "" : `; level ${level.asked} was asked: ${level.notices.map((n) => n.message).join(" ")}`;
  return ` at level ${level.ran} (${DIAL_LEVEL_NAMES[level.ran].toLowerCase()})${asked}`;
}

interface DialMerge {
  plan: QueryPlan;
  required: string[];
  lanes: VaultRow["retrieval"]["lanes"];
  limit: number;
  index: VaultIndex;
  store: NoteStore;
  /** The analyser the index was built with: the words a lead marks are the index's. */
  analyzer: Analyzer;
  vaultPaths: readonly string[];
  signal?: AbortSignal;
}

/** The dial's results first, in its order; the index's other rows (tag lane, focused retry) after them. */
async function withDialResults(lexical: LocalRetrieval, dial: ResearchDial, merge: DialMerge): Promise<LocalRetrieval> {
  const answer = await dial.search.search({ query: questionForIndex(merge.plan.question) || lexical.query, level: dial.level, limit: merge.limit, signal: merge.signal });
  const level: RetrievalLevel = { asked: dial.level, ran: answer.ranLevel, notices: dial.sayNotices ? dial.sayNotices(answer.notices) : answer.notices };
  if (answer.ranLevel === 1) return { ...lexical, level };
  const lanes = dialLanes(merge.lanes, dial.level, answer.ranLevel);
  const byPath = new Map(lexical.rows.map((r) => [r.note_path, r]));
  const { leads, matched } = await vectorCited(answer.results, byPath, merge, lexical.query);
  const dialRows = answer.results.map((r) => {
    const base = byPath.get(r.path) ?? (r.lexical ? toVaultRow(r.lexical, merge.required, lanes, merge.plan.tags, merge.vaultPaths) : vectorOnlyRow(r, merge, leads.get(r.path)));
    return withDialMatch(base, r, lanes, matched.get(r.path));
  });
  const shown = new Set(answer.results.map((r) => r.path));
  // Placed after the dial's rows by rule: the index's fused score is not the dial's.
  const rows = [...dialRows, ...lexical.rows.filter((r) => !shown.has(r.note_path)).map(withoutFusion)].slice(0, merge.limit);
  const searched = new Map(lexical.results.map((r) => [r.path, r]));
  for (const r of answer.results) if (r.lexical && !searched.has(r.path)) searched.set(r.path, r.lexical);
  const results = rows.flatMap((row) => searched.get(row.note_path) ?? []);
  return { ...lexical, rows, results, level };
}

/** The lanes every row of a dial run names: the index's, the vector lanes that ran, the rerank (used, or failed to). */
function dialLanes(lexical: VaultRow["retrieval"]["lanes"], asked: DialLevel, ran: DialLevel): VaultRow["retrieval"]["lanes"] {
  const lanes = [...lexical, { name: "note_vector", status: "used" as const }];
  if (ran >= 3) lanes.push({ name: "section_vector", status: "used" });
  if (asked === 4) lanes.push({ name: "rerank", status: ran === 4 ? "used" : "failed" });
  return lanes;
}

/** A row for a note only the vectors found: no words matched, so every required term is missing. */
function vectorOnlyRow(r: DialResult, merge: DialMerge, lead: VaultSection | undefined): VaultRow {
  return {
    source_key: noteSourceKey(r.path, merge.vaultPaths),
    kind: "note",
    source_type: "vault_note",
    note_path: r.path,
    title: r.title,
    sections: lead ? [lead] : [],
    retrieval: { score: r.score, lanes: [], signals: [], matched_terms: [], missing_terms: [...merge.required] },
  };
}

/**
 * What the vectors' finds cite, read as a search shows a section (shown-sections.ts), the question's
 * words marked: the opening of each note found as a whole and no other way (`leads`), and the
 * section whose vector matched (`matched`). Read again, not taken from the dial's snippet: that marks
 * none of the question's words, and a note found as a whole (or by its title or outline) has no opening in it.
 */
async function vectorCited(results: DialResult[], byPath: Map<string, VaultRow>, merge: DialMerge, query: string): Promise<{ leads: Map<string, VaultSection>; matched: Map<string, VaultSection> }> {
  const wholeNotes: WantedSection[] = results.filter((r) => !byPath.has(r.path) && !r.lexical && r.section?.unit !== "section").map((r) => ({ path: r.path }));
  const sections: WantedSection[] = results.flatMap((r) => (vectorMatched(r) ? [{ path: r.path, place: r.section! }] : []));
  const shown = await shownSections(merge.store, [...wholeNotes, ...sections], { index: merge.index, query, analyzer: merge.analyzer });
  const byNote = (wanted: WantedSection[], from: number) => new Map(wanted.flatMap((w, i) => (shown[from + i] ? [[w.path, shown[from + i]!] as const] : [])));
  return { leads: byNote(wholeNotes, 0), matched: byNote(sections, wholeNotes.length) };
}

/** The dial found the note by one section's vector, and has that section's place. */
function vectorMatched(r: DialResult): boolean {
  return r.section?.from === "section_vector" && r.section.unit === "section";
}

/** The row with the dial's score, lanes and signals, and the section whose vector matched cited first (`shown`: as a search shows it). */
function withDialMatch(row: VaultRow, r: DialResult, lanes: VaultRow["retrieval"]["lanes"], shown: VaultSection | undefined): VaultRow {
  const signals: Signal[] = r.explanation.lanes
    .filter((l) => l.lane !== "lexical")
    .map((l) => ({ name: `lane:${l.lane}`, detail: `rank ${l.rank} by ${l.lane === "note_vector" ? "the note's vector" : "a section's vector"} (cosine ${l.score.toFixed(3)})`, weight: l.contribution }));
  const rerank = r.explanation.rerank;
  if (rerank) signals.push({ name: "rerank", detail: `moved from ${rerank.before} to ${rerank.after} by ${rerank.model}`, weight: 0 });
  const s = r.section;
  const vectorSection: VaultSection[] = !s || !vectorMatched(r) ? [] : shown?.text ? [shown] : s.snippet ? [{ heading: s.headingPath.at(-1) ?? "", text: s.snippet, start: s.start, end: s.end, line: Math.max(1, s.line) }] : [];
  const sections = [...vectorSection, ...row.sections.filter((x) => !vectorSection.some((v) => v.start === x.start))];
  return { ...row, sections, retrieval: { ...row.retrieval, score: r.score, lanes, signals: [...row.retrieval.signals, ...signals], fusion: dialFusion(r) } };
}

/**
 * The dial's fused score as the score the row's place follows (its `score` too, as before), with the
 * note's place in the words' ranking: the fusion's words' rank when the vault's language was fused
 * into the words' lane (its lane rank is then a fused place), else that lane's rank.
 */
function dialFusion(r: DialResult): RowFusion {
  const wordsLane = r.explanation.lanes.find((l) => l.lane === "lexical");
  const fused = r.lexical?.explanation.fusion;
  const wordsRank = fused ? fused.wordsRank : (wordsLane?.rank ?? null);
  const wordsScore = wordsRank !== null && r.lexical ? r.lexical.score : null;
  return { score: r.score, fused_with: "vectors", words_rank: wordsRank, words_score: wordsScore, kept_first: false };
}

/**
 * The row with the fused score its place follows, when the vault's language was fused into the
 * question's search (`explanation.fusion`); its `score` stays the words' (what the judge weighs).
 */
function withLanguageFusion(row: VaultRow, result: SearchResult): VaultRow {
  const fusion = result.explanation.fusion;
  if (!fusion) return row;
  const wordsScore = fusion.wordsRank !== null ? result.score : null;
  const rowFusion: RowFusion = { score: fusion.score, fused_with: "vault_language", words_rank: fusion.wordsRank, words_score: wordsScore, kept_first: fusion.keptFirst === true };
  return { ...row, retrieval: { ...row.retrieval, fusion: rowFusion } };
}

function withoutFusion(row: VaultRow): VaultRow {
  if (!row.retrieval.fusion) return row;
  const { fusion: _placed, ...retrieval } = row.retrieval;
  return { ...row, retrieval };
}

/** Words a two-part question's best note lacks, searched once on their own: the best note for them, if new. */
async function focusedRetry(plan: QueryPlan, required: string[], results: SearchResult[], index: VaultIndex, store: NoteStore, sectionsPerNote: number): Promise<SearchResult | null> {
  const best = results[0];
  if (!best || !asksTwoThings(plan.normalized)) return null;
  const lacking = required.filter((term) => termParts(term, best.explanation).length > 0 && !termMatched(term, best.explanation));
  if (lacking.length === 0 || lacking.length === required.length) return null;
  // With the subject the two parts share: the most common word of the question the best note has
  // ("task" of "on hold" and "depend on another task"), so the retry stays on the subject.
  const weights = best.explanation.termWeights;
  const covered = required.filter((t) => !lacking.includes(t));
  const weightOf = (term: string) => Math.max(0, ...termParts(term, best.explanation).map((w) => weights[w] ?? 0));
  const subject = covered.reduce((a, b) => (weightOf(b) < weightOf(a) ? b : a));
  const found = await index.search([...lacking, subject].join(" "), store, { limit: RETRY_LIMIT, sectionsPerNote });
  const shown = new Set(results.slice(0, RETRY_LIMIT + 1).map((r) => r.path));
  return found.find((r) => !shown.has(r.path) && r.explanation.missingTerms.length < r.explanation.matchedTerms.length + r.explanation.missingTerms.length) ?? null;
}

/** Notes the focused retry looks at (and how far down the first pass a note may be and still count as found). */
const RETRY_LIMIT = 3;

export function toVaultRow(result: SearchResult, required: string[], lanes: VaultRow["retrieval"]["lanes"], tags: string[], vaultPaths: readonly string[]): VaultRow {
  const matched: string[] = [];
  const missing: string[] = [];
  for (const term of required) (termMatched(term, result.explanation) ? matched : missing).push(term);
  const signals: Signal[] = result.explanation.parts.map((p) => ({ name: p.name, detail: p.detail, weight: p.weight }));
  for (const [field, fieldWords] of Object.entries(result.explanation.fields)) {
    signals.push({ name: `field:${field}`, detail: `matched ${fieldWords.join(", ")}`, weight: 0 });
  }
  const rowTags = tags.filter((t) => result.tags.includes(t) || result.tags.some((x) => x.startsWith(`${t}/`)));
  if (rowTags.length > 0) signals.push({ name: "exact_tag", detail: `tagged #${rowTags.join(", #")}`, weight: 0 });
  const sections: VaultSection[] = result.sections.map((s) => ({
    heading: s.heading,
    text: s.snippet,
    start: s.start,
    end: s.end,
    line: s.line,
    highlights: s.highlights,
  }));
  return {
    source_key: noteSourceKey(result.path, vaultPaths),
    kind: "note",
    source_type: "vault_note",
    note_path: result.path,
    title: result.title,
    sections,
    retrieval: { score: result.score, lanes, signals, matched_terms: matched, missing_terms: missing },
  };
}
