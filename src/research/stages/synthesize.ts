// Synthesis and verification: the answer, and the check of its citations against the keys the
// prompt admitted. Without a model the answer is the extractive evidence brief. With one, a draft
// whose citations fail gets one repair — the model is told what was wrong and which keys exist —
// and an answer that still fails is returned unverified, never as a normal answer (the draft, when
// the repair came out worse). A model that cannot answer at all, or answers nothing, leaves a
// warning and the evidence brief in its place; an answer cut off at the model's length limit is
// given with an `answer_cut` warning.
import type { Citation, ResearchPack, StopReason } from "../../evidence/research-pack";
import type { ResearchAnswer } from "../../evidence/trace-types";
import { ModelError, modelFailureKind, type ChatMessage, type ChatModel, type ChatResponse } from "../../llm/chat-model";
import { aside } from "../../text/asides";
import { errorMessage } from "../../text/error-message";
import { RUN_LIMITS } from "../run-limits";
import { webOutcomeOfRun, type RunState } from "../run-state";
import { RunStopped, StageTimedOut } from "../stage-runner";
import { learnModelSecrets } from "../trace-recorder";
import { writeEvidenceBrief } from "./extractive-brief";
import { withWebOutcome, type SynthesisPrompt } from "./synthesis-prompt";
import { verifyCitations, type CitationCheck, type VerifyOptions } from "./verify-citations";

export interface Synthesis {
  stop: StopReason;
  answer: ResearchAnswer;
  check: CitationCheck;
}

interface Draft {
  text: string;
  check: CitationCheck;
  /** The model stopped at its length limit: the text is cut off. */
  truncated: boolean;
}

export async function synthesizeAnswer(run: RunState, pack: ResearchPack, prompt: SynthesisPrompt): Promise<Synthesis> {
  const synthesis = run.deps.model ? await modelAnswer(run, run.deps.model, pack, prompt) : await briefAnswer(run, pack, prompt);
  if (!synthesis.check.passed && synthesis.answer.kind === "extractive") synthesis.answer.verified = false;
  return synthesis;
}

/** How the run ends when the answer checks out: the verdict, unless the web failed beside vault rows. */
function answeredStop(run: RunState): StopReason {
  if (run.external.failed && run.vaultRows.length > 0) return "external_failed_local_used";
  return run.judgement.verdict;
}

async function briefAnswer(run: RunState, pack: ResearchPack, prompt: SynthesisPrompt): Promise<Synthesis> {
  const evidenceExisted = prompt.admitted.size > 0;
  const brief = await run.stages.run({
    name: "synthesize",
    start: "Writing an evidence brief (no model)",
    limitMs: RUN_LIMITS.localStageMs,
    work: () => writeEvidenceBrief(pack, { admitted: prompt.admitted, webOutcome: webOutcomeOfRun(run) }),
    done: () => "Extractive evidence brief written",
  });
  const check = await verifyStage(run, brief.text, prompt, "Checking citations", { evidenceExisted, claimedNoEvidence: !evidenceExisted, extractive: true });
  return { stop: answeredStop(run), answer: { text: brief.text, kind: "extractive", verified: true }, check };
}

async function modelAnswer(run: RunState, model: ChatModel, pack: ResearchPack, prompt: SynthesisPrompt): Promise<Synthesis> {
  const evidenceExisted = prompt.admitted.size > 0;
  // Known before the call: a server that echoes the key must not get it into any output.
  await learnModelSecrets(run.recorder, run.deps.secrets);
  // How the web search went, as the brief and the trace note say it: the model must not answer "I did not search the web" when it failed.
  const messages: ChatMessage[] = [{ role: "user", content: withWebOutcome(prompt, pack, webOutcomeOfRun(run)).user }];
  const first = await firstDraft(run, model, prompt.system, messages);
  if (!first) return fallbackBrief(run, pack, prompt);
  let draft: Draft = { text: first.text, truncated: first.truncated === true, check: await verifyStage(run, first.text, prompt, "Checking citations", { evidenceExisted }) };
  if (!draft.check.passed) draft = await repairDraft(run, model, prompt, messages, draft);
  if (draft.truncated) {
    run.recorder.event("synthesize", { answer_cut: true, why: "length_limit" });
    // A warning, not words added to the model's answer: the panel, --json and the trace note say it as theirs.
    run.warnings.push({ kind: "answer_cut", message: `${model.name} stopped at its length limit before finishing this answer.` });
  }
  return {
    stop: draft.check.passed ? answeredStop(run) : "verification_failed",
    answer: { text: draft.text, kind: "model", verified: draft.check.passed, model: first.model },
    check: draft.check,
  };
}

/** The model's first answer, or null (with a warning) when it could not answer or answered nothing. */
async function firstDraft(run: RunState, model: ChatModel, system: string, messages: ChatMessage[]): Promise<ChatResponse | null> {
  let response: ChatResponse;
  try {
    response = await run.stages.run({
      name: "synthesize",
      start: `Writing the answer with ${model.name}`,
      limitMs: run.deps.settings.model.timeoutMs,
      work: (signal) => model.complete({ system, messages, signal }),
      done: () => "Answer written",
    });
  } catch (error) {
    if (error instanceof RunStopped) throw error;
    if (run.deps.signal?.aborted) throw run.stages.cancelled();
    return noDraft(run, modelFailure(error));
  }
  // Nothing to verify or repair: a refusal (what came before it is no answer), a reasoning model that thought until its limit, an empty reply.
  if (response.refused) return noDraft(run, { kind: "refused", message: `${model.name} declined to answer: it, or its provider's filter, stopped the answer` });
  if (response.text.trim() === "") return noDraft(run, { kind: "empty_answer", message: emptyAnswerReason(model, response) });
  return response;
}

/**
 * The longest failure the warning quotes. A model error is a sentence of ours around at most 200
 * characters of the server's (llm/send.ts) and maybe the /v1 hint: cut at an aside's usual 160, the
 * part that says what to fix was lost.
 */
const MAX_FAILURE_CHARS = 600;

/**
 * No draft: the pack's warning, and the trace's error — a model error's own message (the panel
 * words its kind and says the brief is shown), any other the whole sentence, shown as it is.
 */
function noDraft(run: RunState, failure: ModelError | { kind: string; message: string }): null {
  // Its words as an aside: they end in a full stop of their own, which read "(… given up on.);".
  const warning = `The model could not answer${aside(failure.message, MAX_FAILURE_CHARS)}; an extractive evidence brief is shown instead.`;
  // A model error's reason, where it has one, is its trace kind: the panel offers the one fix for it.
  run.recorder.error("synthesize", failure instanceof ModelError ? modelFailureKind(failure) : failure.kind, failure instanceof ModelError ? failure.message : warning);
  run.warnings.push({ kind: "synthesis_unavailable", message: warning });
  return null;
}

/**
 * Why the model gave no draft, as a model error where there is one. The stage's limit (the model's
 * time in settings, or what was left of the run's) starts before the model's own timer and so
 * passes first: it is the model not answering in time, which the panel words and offers a retry for.
 */
function modelFailure(error: unknown): ModelError | { kind: string; message: string } {
  if (error instanceof ModelError) return error;
  if (error instanceof StageTimedOut) return new ModelError("timeout", error.message);
  return { kind: "error", message: errorMessage(error) };
}

function emptyAnswerReason(model: ChatModel, response: ChatResponse): string {
  return response.truncated
    ? `${model.name} reached its length limit before writing any answer; a reasoning model may have spent it thinking`
    : `${model.name} sent an empty answer`;
}

/**
 * One repair: the model sees exactly what was wrong and which keys exist. A repair that fails to
 * arrive keeps the draft, and so does one that fails the check and is worse than the draft.
 */
async function repairDraft(run: RunState, model: ChatModel, prompt: SynthesisPrompt, messages: ChatMessage[], draft: Draft): Promise<Draft> {
  messages.push({ role: "assistant", content: draft.text }, { role: "user", content: repairRequest(draft.check, prompt.admitted) });
  let repaired: ChatResponse;
  try {
    repaired = await run.stages.run({
      name: "synthesize",
      start: "Repairing citations",
      limitMs: run.deps.settings.model.timeoutMs,
      work: (signal) => model.complete({ system: prompt.system, messages, signal }),
      done: () => "Repaired answer written",
    });
  } catch (error) {
    if (error instanceof RunStopped) throw error;
    // Not the model's error kind: the panel words those as "the evidence brief is shown instead", and here the draft is.
    run.recorder.error("synthesize", "repair_failed", `The model could not repair the answer's citations (${errorMessage(error)}); its first answer is shown, unverified.`);
    return draft;
  }
  if (repaired.refused) {
    run.recorder.event("synthesize", { repair: "discarded", why: "refused" });
    return draft;
  }
  const check = await verifyStage(run, repaired.text, prompt, "Checking citations again", { evidenceExisted: prompt.admitted.size > 0 });
  const repair: Draft = { text: repaired.text, check, truncated: repaired.truncated === true };
  if (check.passed || !worseThan(repair, draft)) return repair;
  run.recorder.event("synthesize", { repair: "discarded", why: "worse_than_draft", draft_errors: draft.check.errors.length, repair_errors: check.errors.length });
  return draft;
}

/** Both failed the check: the repair is worse when it is empty, has more errors, or cites fewer real sources. */
function worseThan(repair: Draft, draft: Draft): boolean {
  if (repair.text.trim() === "") return true;
  return repair.check.errors.length > draft.check.errors.length || repair.check.citations.length < draft.check.citations.length;
}

/** The evidence brief in place of a model that could not answer (not a stage of its own). */
function fallbackBrief(run: RunState, pack: ResearchPack, prompt: SynthesisPrompt): Synthesis {
  const evidenceExisted = prompt.admitted.size > 0;
  const brief = writeEvidenceBrief(pack, { admitted: prompt.admitted, webOutcome: webOutcomeOfRun(run) });
  return {
    stop: "synthesis_unavailable",
    answer: { text: brief.text, kind: "extractive", verified: true },
    check: verifyCitations(brief.text, prompt.admitted, { evidenceExisted, claimedNoEvidence: !evidenceExisted, extractive: true }),
  };
}

function verifyStage(run: RunState, text: string, prompt: SynthesisPrompt, start: string, options: VerifyOptions): Promise<CitationCheck> {
  return run.stages.run({ name: "verify", start, limitMs: RUN_LIMITS.localStageMs, work: () => verifyCitations(text, prompt.admitted, options), done: describeCheck });
}

function repairRequest(check: CitationCheck, admitted: Map<string, Citation>): string {
  const problems = check.errors.map((e) => `- ${e.message}`).join("\n");
  const keys = Array.from(admitted.keys()).join(", ");
  return `Your answer's citations failed the check:\n${problems}\n\nRewrite the answer. Cite every claim with one of these keys, exactly as written: ${keys || "(none — say the evidence does not answer the question)"}. Do not use any other key.`;
}

function describeCheck(check: CitationCheck): string {
  if (check.passed) return `${check.citations.length} citation${check.citations.length === 1 ? "" : "s"} verified`;
  return `Citation check failed: ${check.errors.map((e) => e.message).join(" ")}`;
}
