// Scoring the evidence judge against labelled questions: the share of answerable questions it
// judges `enough_evidence`, and of unanswerable ones it judges weak or none (hard negatives — those
// that share the vault's keywords — counted separately), overall, per kind, per corpus and per half
// of the vault split (eval-set.ts). Also: how often an `enough` came with no answering note in the
// pack (a confident wrong answer), and how often an `enough` rests on notes none of which answers,
// whatever else reached the pack (the same wrong answer, hidden when an answering note came along);
// and for two-note questions whether both notes reached the pack. With the audit of those resting
// enoughs (resting-audit.ts; the script reads the file and passes it in), how many of them rest on
// notes a reader found to answer after all, and the rate of enoughs on an answering note it gives.
// Runs the research run's own stages (plan → local retrieval → judge; with `related`, the related
// expansion between the last two, as a run with the link graph has it). Used by `npm run eval:judge`.
import type { VaultLinks } from "../index/links/vault-links";
import type { Analyzer } from "../index/tokenize";
import type { VaultIndex } from "../index/vault-index";
import type { NoteStore } from "../ports";
import { DEFAULT_JUDGE, judgeEvidence, type JudgeFigures, type JudgeOptions } from "../research/stages/judge";
import { retrieveLocal } from "../research/stages/local-retrieval";
import { expandAlongLinks } from "../research/stages/related-expansion";
import { planQuestion } from "../research/stages/plan";
import { roundTo } from "../text/numbers";
import { groupCases } from "./eval-set";
import { auditedVerdict, type AuditVerdict, type RestingAuditEntry } from "./resting-audit";

export interface JudgeCase {
  id?: string;
  question: string;
  answerable: boolean;
  /** Notes that answer it (answerable ones; for multi_note, the notes that answer it together). */
  relevant?: string[];
  corpus?: string;
  /** keyword | paraphrase | title | multi_note | hard_negative | out_of_domain (see eval-set.ts). */
  kind?: string;
}

/** Kinds of question that have no answer in the vault, and kinds that do. */
const UNANSWERABLE_KINDS: readonly unknown[] = ["hard_negative", "out_of_domain"];
const ANSWERABLE_KINDS: readonly unknown[] = ["keyword", "paraphrase", "title", "multi_note"];

/**
 * What a judge case needs besides its question: `answerable` said (left out, it was counted as an
 * unanswerable question), the notes that answer an answerable one, and a kind that agrees (a hard
 * negative marked answerable fell out of the hard-negative figure).
 */
export function judgeCaseProblem(c: Record<string, unknown>): string | null {
  if (typeof c.answerable !== "boolean") return "`answerable` should be true or false";
  if (c.answerable && !(Array.isArray(c.relevant) && c.relevant.length > 0)) return "an answerable case should list in `relevant` the notes that answer it";
  if (c.answerable && UNANSWERABLE_KINDS.includes(c.kind)) return `a ${String(c.kind)} question is unanswerable (\`answerable\` is true)`;
  if (!c.answerable && ANSWERABLE_KINDS.includes(c.kind)) return `a ${String(c.kind)} question has an answer (\`answerable\` is false)`;
  return null;
}

export interface JudgeSubsetFigures {
  cases: number;
  answerable_judged_enough: number | null;
  unanswerable_judged_weak_or_none: number | null;
  hard_negatives_judged_weak_or_none: number | null;
  /** Answerable questions judged enough although no note in `relevant` reached the pack. */
  enough_without_answering_note: number;
  /**
   * Answerable questions judged enough on notes (the verdict's `bestPath` and `pairedPath`, which
   * its reason names) none of which is in `relevant`: the above, and those where an answering note
   * sat in the pack but the verdict did not rest on it.
   */
  enough_resting_on_other_note: number;
  /**
   * Those resting enoughs by what the audit says of their deciding notes; `unaudited`: no entry for
   * that question with those very notes (a judge that now rests on another note shows up here).
   */
  enough_resting_on_other_note_by_audit: Record<AuditVerdict | "unaudited", number>;
  /** Share of answerable questions judged enough on a note of `relevant` or on notes the audit says answer. */
  answerable_enough_on_answering_note_by_audit: number | null;
  /** multi_note only: share with every relevant note in the pack. */
  all_notes_in_pack: number | null;
  /** Answerable questions with an answering note in the pack: the share judged enough (the judge's part of the loss, apart from search's). */
  in_pack_judged_enough: number | null;
}

export interface JudgeEvalReport extends JudgeSubsetFigures {
  by_kind: Record<string, JudgeSubsetFigures>;
  by_corpus: Record<string, JudgeSubsetFigures>;
  by_fold: Record<string, JudgeSubsetFigures>;
  /** Which part of the judge decided each verdict, counted. */
  decided_by: Record<string, number>;
  /** The questions `enough_resting_on_other_note` counts, for a reader to check against the notes. */
  enough_resting_on_other_note_cases: { id?: string; question: string; deciding_notes: string[]; answering_notes: string[]; audit: AuditVerdict | "unaudited" }[];
  /** Wrong verdicts, and "enough"s on an answerable question with no answering note in the pack (right by count, wrong by note). */
  misses: { id?: string; question: string; answerable: boolean; verdict: string; reason: string; figures: JudgeFigures; answering_note_rank: number | null }[];
  /** Per question, in the set's order, its verdict and the note it rests on: how `--noise` sees which moved. */
  gave: string[];
  /** With the related expansion: questions it weighed related notes for, notes weighed, notes new to the pack, and how many of the new ones answer (are in `relevant`). */
  related_expansion?: { questions_with_related_notes: number; related_notes: number; notes_added: number; answering_notes_added: number };
}

interface JudgeOutcome {
  corpus?: string;
  kind?: string;
  answerable: boolean;
  enough: boolean;
  answeringNoteInPack: boolean | null;
  restsOnOtherNote: boolean;
  /** For an enough resting on other notes: what the audit says of them. */
  restingAudit: AuditVerdict | "unaudited" | null;
  allNotesInPack: boolean | null;
}

/** The related expansion, when measured (`--related`): the vault's link graph and the index's analyser. */
export interface JudgeEvalRelated {
  links: VaultLinks;
  analyzer: Analyzer;
}

/** The audit of resting enoughs for one set: the set's name (as the entries spell it) and the entries. */
export interface JudgeEvalAudit {
  set: string;
  entries: readonly RestingAuditEntry[];
}

/**
 * `currentYear` pins "this year" so a set plans the same way on every day; `judge`: the judge's
 * options (the defaults unless measuring); `audit`: the set's audited resting enoughs (without it,
 * every resting enough is unaudited).
 */
export async function scoreJudgeCases(index: VaultIndex, store: NoteStore, cases: JudgeCase[], currentYear = 2026, related?: JudgeEvalRelated, judge: JudgeOptions = DEFAULT_JUDGE, audit?: JudgeEvalAudit): Promise<JudgeEvalReport> {
  const outcomes: JudgeOutcome[] = [];
  const misses: JudgeEvalReport["misses"] = [];
  const decided_by: Record<string, number> = {};
  const restingOnOther: JudgeEvalReport["enough_resting_on_other_note_cases"] = [];
  const gave: string[] = [];
  const added = { questions_with_related_notes: 0, related_notes: 0, notes_added: 0, answering_notes_added: 0 };
  for (const c of cases) {
    const plan = planQuestion(c.question, { currentYear });
    const local = await retrieveLocal(plan, index, store);
    const expansion = related ? await expandAlongLinks(plan, local.results, { index, store, ...related }, undefined, judge) : null;
    const verdict = expansion ? expansion.verdict : judgeEvidence(plan, local.results, judge);
    const enough = verdict.verdict === "enough_evidence";
    gave.push(`${verdict.verdict} ${verdict.figures.bestPath ?? ""}`);
    if (expansion && expansion.related.length > 0) {
      added.questions_with_related_notes++;
      added.related_notes += expansion.related.length;
      added.notes_added += expansion.added.length;
      added.answering_notes_added += expansion.added.filter((a) => c.relevant?.includes(a.result.path)).length;
    }
    const inPack = new Set([...local.rows.map((r) => r.note_path), ...(expansion?.added ?? []).map((a) => a.result.path)]);
    const relevant = c.relevant ?? [];
    const answeringNoteInPack = relevant.length > 0 ? relevant.some((p) => inPack.has(p)) : null;
    // Every enough names the note it rests on (judge.ts verdictOf), so an empty list here is no verdict to count.
    const deciding = [verdict.figures.bestPath, verdict.figures.pairedPath].filter((p): p is string => p !== undefined);
    const restsOnOtherNote = enough && c.answerable && relevant.length > 0 && deciding.length > 0 && !deciding.some((p) => relevant.includes(p));
    const restingAudit = restsOnOtherNote ? ((audit && auditedVerdict(audit.entries, audit.set, c.id, deciding)) ?? "unaudited") : null;
    if (restingAudit !== null) restingOnOther.push({ id: c.id, question: c.question, deciding_notes: deciding, answering_notes: relevant, audit: restingAudit });
    outcomes.push({
      corpus: c.corpus,
      kind: c.kind,
      answerable: c.answerable,
      enough,
      answeringNoteInPack,
      restsOnOtherNote,
      restingAudit,
      allNotesInPack: c.kind === "multi_note" && relevant.length > 0 ? relevant.every((p) => inPack.has(p)) : null,
    });
    const lever = `${verdict.verdict}: ${expansion?.decided ? "related expansion, " : ""}${verdict.figures.decidedBy ?? "coverage"}`;
    decided_by[lever] = (decided_by[lever] ?? 0) + 1;
    const rank = local.results.findIndex((r) => relevant.includes(r.path));
    const wrongNote = enough && c.answerable && answeringNoteInPack === false;
    if (enough !== c.answerable || wrongNote) misses.push({ id: c.id, question: c.question, answerable: c.answerable, verdict: verdict.verdict, reason: verdict.reason, figures: verdict.figures, answering_note_rank: rank < 0 ? null : rank + 1 });
  }
  const by_kind: Record<string, JudgeSubsetFigures> = {};
  const by_corpus: Record<string, JudgeSubsetFigures> = {};
  const by_fold: Record<string, JudgeSubsetFigures> = {};
  for (const [name, group] of groupCases(outcomes)) {
    if (name.startsWith("fold ")) by_fold[name] = figuresOf(group);
    else if (name.startsWith("kind:")) by_kind[name.slice(5)] = figuresOf(group);
    else by_corpus[name.slice(7)] = figuresOf(group);
  }
  return { ...figuresOf(outcomes), by_kind, by_corpus, by_fold, decided_by: sortedCounts(decided_by), enough_resting_on_other_note_cases: restingOnOther, misses, gave, ...(related ? { related_expansion: added } : {}) };
}

function figuresOf(outcomes: JudgeOutcome[]): JudgeSubsetFigures {
  const share = (a: number, b: number) => (b === 0 ? null : roundTo(a / b, 3));
  const answerable = outcomes.filter((o) => o.answerable);
  const unanswerable = outcomes.filter((o) => !o.answerable);
  const hard = unanswerable.filter((o) => o.kind === "hard_negative");
  const multi = outcomes.filter((o) => o.allNotesInPack !== null);
  const resting = (v: AuditVerdict | "unaudited") => answerable.filter((o) => o.restingAudit === v).length;
  const onAnsweringNote = answerable.filter((o) => o.enough && (!o.restsOnOtherNote || o.restingAudit === "answers")).length;
  return {
    cases: outcomes.length,
    answerable_judged_enough: share(answerable.filter((o) => o.enough).length, answerable.length),
    unanswerable_judged_weak_or_none: share(unanswerable.filter((o) => !o.enough).length, unanswerable.length),
    hard_negatives_judged_weak_or_none: share(hard.filter((o) => !o.enough).length, hard.length),
    enough_without_answering_note: answerable.filter((o) => o.enough && o.answeringNoteInPack === false).length,
    enough_resting_on_other_note: answerable.filter((o) => o.restsOnOtherNote).length,
    enough_resting_on_other_note_by_audit: { answers: resting("answers"), partial: resting("partial"), does_not_answer: resting("does_not_answer"), unaudited: resting("unaudited") },
    answerable_enough_on_answering_note_by_audit: share(onAnsweringNote, answerable.length),
    all_notes_in_pack: share(multi.filter((o) => o.allNotesInPack).length, multi.length),
    in_pack_judged_enough: share(answerable.filter((o) => o.answeringNoteInPack && o.enough).length, answerable.filter((o) => o.answeringNoteInPack).length),
  };
}

function sortedCounts(counts: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(counts).sort(([, a], [, b]) => b - a));
}
