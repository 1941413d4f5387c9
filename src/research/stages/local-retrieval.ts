// Local retrieval: the vault half of a research pack. Runs the plan through the vault index
// (full-text lane, and an exact-tag lane when the question names #tags) and turns each matched
// note into a VaultRow with its best sections and the signals that explain its rank.
//
// One bounded second pass (the focused-retry lane): when a question of two parts ("difference
// between X and Y", "X or Y", "X, then Y") finds a best note that lacks part of it, the words that
// note lacks are searched on their own, once, and the best note for them joins the pack right
// among the first few, so the judge can weigh the two together and both reach the answer.
import type { VaultIndex } from "../../index/vault-index";
import type { SearchResult } from "../../index/types";
import { foldCase, words } from "../../index/tokenize";
import type { NoteStore } from "../../ports";
import type { QueryPlan, Signal, VaultRow, VaultSection } from "../../evidence/research-pack";
import { noteSourceKey } from "../../evidence/keys";
import { asksTwoThings } from "./judge";

export interface LocalRetrievalOptions {
  /** Notes to keep (default 8). */
  limit?: number;
  /** Sections per note (default 2). */
  sectionsPerNote?: number;
  /** The bounded second pass for two-part questions (default on). */
  focusedRetry?: boolean;
}

export interface LocalRetrieval {
  rows: VaultRow[];
  /** The search results behind the rows (for the judge: term weights, section terms). */
  results: SearchResult[];
  /** The query string the index was asked. */
  query: string;
  notesSearched: number;
}

/** A note scoring below this share of the best note's score is left out of the pack. */
export const MIN_SHARE_OF_BEST = 0.08;

/** What the index is asked: the plan's terms, context terms of a follow-up, #tags and "phrases". */
export function indexQueryFor(plan: QueryPlan): string {
  const parts = [...plan.terms, ...plan.context_terms];
  for (const tag of plan.tags) parts.push(`#${tag}`);
  for (const phrase of plan.phrases) parts.push(`"${phrase}"`);
  return parts.join(" ").trim() || plan.normalized;
}

export async function retrieveLocal(plan: QueryPlan, index: VaultIndex, store: NoteStore, options: LocalRetrievalOptions = {}): Promise<LocalRetrieval> {
  const limit = options.limit ?? 8;
  const sectionsPerNote = options.sectionsPerNote ?? 2;
  const query = indexQueryFor(plan);
  let results = await index.search(query, store, { limit, sectionsPerNote });
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
  // Notes far below the best one matched a stray word; they would only dilute the pack.
  const floor = (results[0]?.score ?? 0) * MIN_SHARE_OF_BEST;
  const kept = results.filter((r, i) => i === 0 || r === retried || r.score >= floor || r.explanation.fields.tags !== undefined);
  const vaultPaths = index.paths();
  const rows = kept.map((r) => toVaultRow(r, required, lanes, plan.tags, vaultPaths));
  return { rows, results, query, notesSearched: index.status().notes };
}

/** Words a two-part question's best note lacks, searched once on their own: the best note for them, if new. */
async function focusedRetry(plan: QueryPlan, required: string[], results: SearchResult[], index: VaultIndex, store: NoteStore, sectionsPerNote: number): Promise<SearchResult | null> {
  const best = results[0];
  if (!best || !asksTwoThings(plan.normalized)) return null;
  const has = new Set(best.explanation.matchedTerms);
  const lacking = required.filter((term) => {
    const parts = words(term).map(foldCase);
    return parts.length > 0 && !parts.every((p) => has.has(p));
  });
  if (lacking.length === 0 || lacking.length === required.length) return null;
  // With the subject the two parts share: the most common word of the question the best note has
  // ("task" of "on hold" and "depend on another task"), so the retry stays on the subject.
  const weights = best.explanation.termWeights;
  const covered = required.filter((t) => !lacking.includes(t));
  const subject = covered.reduce((a, b) => ((weights[foldCase(b)] ?? 0) < (weights[foldCase(a)] ?? 0) ? b : a));
  const found = await index.search([...lacking, subject].join(" "), store, { limit: RETRY_LIMIT, sectionsPerNote });
  const shown = new Set(results.slice(0, RETRY_LIMIT + 1).map((r) => r.path));
  return found.find((r) => !shown.has(r.path) && r.explanation.missingTerms.length < r.explanation.matchedTerms.length + r.explanation.missingTerms.length) ?? null;
}

/** Notes the focused retry looks at (and how far down the first pass a note may be and still count as found). */
const RETRY_LIMIT = 3;

function toVaultRow(result: SearchResult, required: string[], lanes: VaultRow["retrieval"]["lanes"], tags: string[], vaultPaths: readonly string[]): VaultRow {
  const matchedWords = new Set(result.explanation.matchedTerms);
  const matched: string[] = [];
  const missing: string[] = [];
  for (const term of required) {
    const parts = words(term).map(foldCase);
    if (parts.length > 0 && parts.every((p) => matchedWords.has(p))) matched.push(term);
    else missing.push(term);
  }
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
