// One research run: plan → local retrieval → judge → external policy → external retrieval →
// outside evidence (normalise, dedupe) → read pages → merge → synthesis prompt → synthesize →
// verify → trace.
//
// The invariant every stage serves: vault evidence and model synthesis are separate, and the web
// extends the retrieval set for this run only. Nothing leaves the device unless the run's mode
// allows it; provider queries come from the question alone; a provider failure never destroys
// local results; an answer whose citations do not check out is never shown as a normal answer.
//
// The run's state is one object (run-state.ts); each stage below reads it and adds to it, under
// the stage runner (stage-runner.ts: progress, timings, limits, cancellation). Bigger stages live
// in stages/.
import { DeadlineMissed, withDeadline } from "../deadline";
import type { ResearchPack, StopReason } from "../evidence/research-pack";
import { outsideVaultCounter, rowCount, vaultEvidenceCounter } from "../evidence/labels";
import type { SearchResult } from "../index/types";
import { joinSentences } from "../text/sentence-ends";
import type { MergedResult } from "../websearch/search-providers";
import { refuseKeyAsQuestion } from "./key-in-question";
import { RUN_LIMITS } from "./run-limits";
import { packOf, providersOf, startRun, type RunState } from "./run-state";
import { RunStopped, StageTimedOut } from "./stage-runner";
import { decideExternal } from "./stages/external-policy";
import { retrieveExternal } from "./stages/external-retrieval";
import { DEFAULT_JUDGE, judgeEvidence, type RelatedResult } from "./stages/judge";
import { deciderOf, modelCheckStage, recordLexicalDecision, wantsModelCheck, type VerdictDecider } from "./stages/model-check";
import { readPagesStage } from "./stages/read-pages";
import { retrievalLevelDetail, retrieveLocal } from "./stages/local-retrieval";
import { secondLocalPass } from "./stages/second-local-pass";
import { buildOutsideEvidence, type DedupeDecision, type OutsideEvidence } from "./stages/outside-evidence";
import { buildSynthesisPrompt, type SynthesisPrompt } from "./stages/synthesis-prompt";
import { synthesizeAnswer } from "./stages/synthesize";
import { learnModelSecrets } from "./trace-recorder";
import { finishWithTrace } from "./stages/trace";
import type { ResearchDeps, ResearchRequest, ResearchResult } from "./types";

/**
 * One run. A question that is an API key is refused with `QuestionRefused` before anything starts
 * (key-in-question.ts); a run that starts ends with a result, however it went (a throw is a bug).
 */
export async function runResearch(request: ResearchRequest, deps: ResearchDeps): Promise<ResearchResult> {
  // Before the run exists: its question would be the web query, the trace note's name and the log's line.
  refuseKeyAsQuestion(request.question, deps.knownSecrets);
  const run = startRun(request, deps);
  try {
    await planStage(run);
    const searched = await localRetrievalStage(run);
    // The judge's levers call the model before synthesis does: a server echoing its key there must not get it into a progress line or the result.
    if (wantsModelCheck(run)) await learnModelSecrets(run.recorder, run.deps.secrets);
    const decided = await judgeStage(run, searched, await secondLocalPass(run, searched));
    if (wantsModelCheck(run)) await modelCheckStage(run, decided);
    if (await externalPolicyStage(run)) await lookOutside(run);
    await mergeStage(run);
    if (run.external.failed && run.vaultRows.length === 0) return await finishWithTrace(run, externalRequiredFailed(run));
    if (request.retrievalOnly) return await finishWithTrace(run, "retrieval_only");
    const pack = packOf(run);
    const prompt = await synthesisPromptStage(run, pack);
    const { stop, answer, check } = await synthesizeAnswer(run, pack, prompt);
    return await finishWithTrace(run, stop, {
      answer,
      citations: check.citations,
      verification: { passed: check.passed, errors: check.errors, warnings: check.warnings },
    });
  } catch (error) {
    return stoppedEarly(run, error);
  }
}

async function planStage(run: RunState): Promise<void> {
  run.plan = await run.stages.run({
    name: "plan",
    start: "Planning",
    limitMs: RUN_LIMITS.localStageMs,
    // The plan is made as it is first read, here: the stage's time is the planning's.
    work: () => run.plan,
    done: (p) => `${p.terms.length} search ${p.terms.length === 1 ? "term" : "terms"}${p.freshness.flagged ? "; asks about the current state" : ""}`,
  });
}

/** The vault rows; returns the search results behind them, for the judge. */
async function localRetrievalStage(run: RunState): Promise<SearchResult[]> {
  const local = await run.stages.run({
    name: "local_retrieval",
    start: "Searching the vault",
    limitMs: RUN_LIMITS.localStageMs,
    work: (signal) => retrieveLocal(run.plan, run.deps.index, run.deps.store, { dial: run.deps.dial, signal, stemming: run.deps.settings.index.stemming }),
    done: (l) => `${l.rows.length} of ${l.notesSearched} ${l.notesSearched === 1 ? "note" : "notes"} matched${retrievalLevelDetail(l.level)}`,
  });
  run.vaultRows = local.rows;
  run.notesSearched = local.notesSearched;
  run.retrievalLevel = local.level;
  // Until the judge speaks: a run stopped from here on has searched the vault, and must not say it had not.
  run.judgement = { verdict: "no_evidence", reason: "The run stopped after the vault was searched, before its evidence was judged.", missing_terms: [] };
  return local.results;
}

/** `related`: notes the second local pass added (second-local-pass.ts). Returns which lever decided. */
async function judgeStage(run: RunState, searched: SearchResult[], related: RelatedResult[]): Promise<Exclude<VerdictDecider, "model_check">> {
  const { figures, ...judgement } = await run.stages.run({
    name: "judge",
    start: "Judging the vault evidence",
    limitMs: RUN_LIMITS.localStageMs,
    work: () => judgeEvidence(run.plan, searched, DEFAULT_JUDGE, related),
    done: (j) => `${j.verdict.replace(/_/g, " ")}: ${j.reason}`,
  });
  run.judgement = judgement;
  return recordLexicalDecision(run, figures.decidedBy, deciderOf(figures));
}

/** Whether to look outside the vault now; a search that is allowed but has no provider fails here. */
async function externalPolicyStage(run: RunState): Promise<boolean> {
  const decision = await run.stages.run({
    name: "external_policy",
    start: "Deciding whether to look outside the vault",
    limitMs: RUN_LIMITS.localStageMs,
    work: () => decideExternal(run.mode, run.judgement, run.plan),
    done: (d) => d.reason,
  });
  if (!decision.search) {
    run.recorder.event("external_search_skipped", { reason: decision.reason, mode: run.mode });
    return false;
  }
  if (run.providers.length === 0) {
    run.recorder.event("external_search_skipped", { reason: "no provider is enabled", mode: run.mode });
    run.warnings.push({ kind: "no_provider", message: "External search was allowed but no provider is enabled in settings." });
    run.external.failures.push("No provider is enabled in settings.");
    run.external.failed = true;
    return false;
  }
  return true;
}

/** External retrieval → outside evidence → reading the best pages behind it. */
async function lookOutside(run: RunState): Promise<void> {
  const searched = await retrieveExternal(run);
  if (searched.stop) {
    await keepFoundBeforeStop(run, searched.found);
    throw searched.stop;
  }
  await outsideEvidenceStage(run, searched.found);
  if (run.outsideRows.length > 0) await readPagesStage(run);
}

/** Web results → outside rows: normalised, cut to the count, pages the vault already holds folded in. */
async function outsideEvidenceStage(run: RunState, found: MergedResult[]): Promise<void> {
  const outside = await run.stages.run({
    name: "normalize",
    start: "Normalising and removing duplicates",
    limitMs: RUN_LIMITS.localStageMs,
    work: () => outsideEvidenceOf(run, found),
    done: (o) => `${o.rows.length} outside ${o.rows.length === 1 ? "row" : "rows"}; ${o.decisions.length} ${o.decisions.length === 1 ? "duplicate" : "duplicates"} folded${o.overflow > 0 ? `; ${o.overflow} more left out (${run.count} at most)` : ""}`,
  });
  keepOutside(run, outside);
}

/**
 * What the sources that answered before a stop found, as outside rows like any others (labelled,
 * deduplicated against the vault), for the pack the stopped run returns. No stage runs once the run
 * has stopped, so this is bounded by the cancel's grace; past it, they are left out.
 */
async function keepFoundBeforeStop(run: RunState, found: MergedResult[]): Promise<void> {
  if (found.length === 0) return;
  try {
    keepOutside(run, await withDeadline(outsideEvidenceOf(run, found), { clock: run.deps.clock, ms: RUN_LIMITS.cancelGraceMs }));
  } catch (error) {
    if (!(error instanceof DeadlineMissed)) throw error;
  }
}

function outsideEvidenceOf(run: RunState, found: MergedResult[]): Promise<OutsideEvidence> {
  const { deps } = run;
  return buildOutsideEvidence(found, run.plan, run.vaultRows, deps.index, deps.store, { count: run.count, tokenBudget: deps.settings.external.tokenBudget, now: deps.clock.now() });
}

function keepOutside(run: RunState, outside: OutsideEvidence): void {
  for (const d of outside.decisions) recordDedupe(run, d);
  run.vaultRows = outside.vaultRows;
  run.outsideRows = outside.rows;
  for (const row of run.outsideRows) run.recorder.event("external_evidence_selected", { key: row.source_key, url: row.url, title: row.title, provider: row.provider });
}

function recordDedupe(run: RunState, d: DedupeDecision): void {
  run.recorder.event(
    "external_result_deduped",
    d.kind === "local_source" ? { url: d.url, provider: d.provider, kept: "vault", note: d.note_path } : { url: d.url, provider: d.provider, kept: "first_provider" },
  );
}

async function mergeStage(run: RunState): Promise<void> {
  await run.stages.run({
    name: "merge",
    start: "Merging vault and outside evidence",
    limitMs: RUN_LIMITS.localStageMs,
    work: () => {
      run.recorder.event("external_merge_completed", { vault_rows: run.vaultRows.length, outside_rows: run.outsideRows.length, freshness_question: run.plan.freshness.flagged });
      return null;
    },
    done: () => `${vaultEvidenceCounter(run.vaultRows.length)}; ${outsideVaultCounter(run.outsideRows.length, providersOf(run.outsideRows))}`,
  });
}

/** The vault has nothing and the web failed: the run ends here, saying why. */
function externalRequiredFailed(run: RunState): StopReason {
  // Every failure in one message, each its own sentence: the trace note shows it in place of each
  // source's own warning. Those stay in the pack, for their kinds (what evals and the CLI's missing-key hint read).
  const message = joinSentences("External search was needed because the vault has nothing on this, and it failed.", ...run.external.failures);
  run.warnings.push({ kind: "external_required_failed", message });
  return "external_required_failed";
}

async function synthesisPromptStage(run: RunState, pack: ResearchPack): Promise<SynthesisPrompt> {
  const prompt = await run.stages.run({
    name: "prepare_synthesis",
    start: "Preparing the evidence for the answer",
    limitMs: RUN_LIMITS.localStageMs,
    work: () => buildSynthesisPrompt(pack),
    done: (p) => `${rowCount(p.admitted.size)} admitted${p.dropped.length ? `, ${p.dropped.length} left out for room` : ""}${p.trimmed.length ? `, ${p.trimmed.length} trimmed` : ""}`,
  });
  if (prompt.dropped.length || prompt.trimmed.length) run.recorder.event("prepare_synthesis", { dropped: prompt.dropped, trimmed: prompt.trimmed });
  return prompt;
}

/** A run cancelled or out of time still returns what it had, with its trace; anything else is a bug. */
async function stoppedEarly(run: RunState, error: unknown): Promise<ResearchResult> {
  if (error instanceof RunStopped) {
    run.warnings.push({ kind: error.kind, message: error.message });
    return finishWithTrace(run, error.kind);
  }
  if (error instanceof StageTimedOut) {
    run.warnings.push({ kind: "timeout", message: error.message });
    run.recorder.error(error.stage, "timeout", error.message);
    return finishWithTrace(run, "timeout");
  }
  throw error;
}
