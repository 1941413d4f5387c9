// Synthesis and verification: the answer, and the check of its citations against the keys the
// prompt admitted. Without a model the answer is the extractive evidence brief. With one, a draft
// whose citations fail gets one repair — the model is told what was wrong and which keys exist —
// and an answer that still fails is returned unverified, never as a normal answer. A model that
// cannot answer at all leaves a warning and the evidence brief in its place.
import type { Citation, ResearchPack, StopReason } from "../../evidence/research-pack";
import type { ResearchAnswer } from "../../evidence/trace-types";
import { ModelError, type ChatMessage, type ChatModel, type ChatResponse } from "../../llm/chat-model";
import { errorMessage } from "../../text/error-message";
import { RUN_LIMITS } from "../run-limits";
import type { RunState } from "../run-state";
import { RunStopped, runCancelled } from "../stage-runner";
import { learnModelSecrets } from "../trace-recorder";
import { writeEvidenceBrief } from "./extractive-brief";
import type { SynthesisPrompt } from "./synthesis-prompt";
import { verifyCitations, type CitationCheck, type VerifyOptions } from "./verify-citations";

export interface Synthesis {
  stop: StopReason;
  answer: ResearchAnswer;
  check: CitationCheck;
}

interface Draft {
  text: string;
  check: CitationCheck;
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
    work: () => writeEvidenceBrief(pack, { admitted: prompt.admitted }),
    done: () => "Extractive evidence brief written",
  });
  const check = await verifyStage(run, brief.text, prompt, "Checking citations", { evidenceExisted, claimedNoEvidence: !evidenceExisted });
  return { stop: answeredStop(run), answer: { text: brief.text, kind: "extractive", verified: true }, check };
}

async function modelAnswer(run: RunState, model: ChatModel, pack: ResearchPack, prompt: SynthesisPrompt): Promise<Synthesis> {
  const evidenceExisted = prompt.admitted.size > 0;
  // Known before the call: a server that echoes the key must not get it into any output.
  await learnModelSecrets(run.recorder, run.deps.secrets);
  const messages: ChatMessage[] = [{ role: "user", content: prompt.user }];
  const first = await firstDraft(run, model, prompt.system, messages);
  if (!first) return fallbackBrief(pack, prompt);
  let draft: Draft = { text: first.text, check: await verifyStage(run, first.text, prompt, "Checking citations", { evidenceExisted }) };
  if (!draft.check.passed) draft = await repairDraft(run, model, prompt, messages, draft);
  return {
    stop: draft.check.passed ? answeredStop(run) : "verification_failed",
    answer: { text: draft.text, kind: "model", verified: draft.check.passed, model: first.model },
    check: draft.check,
  };
}

/** The model's first answer, or null (with a warning) when it could not answer. */
async function firstDraft(run: RunState, model: ChatModel, system: string, messages: ChatMessage[]): Promise<ChatResponse | null> {
  try {
    return await run.stages.run({
      name: "synthesize",
      start: `Writing the answer with ${model.name}`,
      limitMs: run.deps.settings.model.timeoutMs,
      work: (signal) => model.complete({ system, messages, signal }),
      done: () => "Answer written",
    });
  } catch (error) {
    if (error instanceof RunStopped) throw error;
    if (run.deps.signal?.aborted) throw runCancelled();
    const message = error instanceof ModelError ? error.message : errorMessage(error);
    run.recorder.error("synthesize", error instanceof ModelError ? error.kind : "error", message);
    run.warnings.push({ kind: "synthesis_unavailable", message: `The model could not answer (${message}); an extractive evidence brief is shown instead.` });
    return null;
  }
}

/** One repair: the model sees exactly what was wrong and which keys exist. A failed repair keeps the draft. */
async function repairDraft(run: RunState, model: ChatModel, prompt: SynthesisPrompt, messages: ChatMessage[], draft: Draft): Promise<Draft> {
  messages.push({ role: "assistant", content: draft.text }, { role: "user", content: repairRequest(draft.check, prompt.admitted) });
  let text = draft.text;
  try {
    const repaired = await run.stages.run({
      name: "synthesize",
      start: "Repairing citations",
      limitMs: run.deps.settings.model.timeoutMs,
      work: (signal) => model.complete({ system: prompt.system, messages, signal }),
      done: () => "Repaired answer written",
    });
    text = repaired.text;
    return { text, check: await verifyStage(run, text, prompt, "Checking citations again", { evidenceExisted: prompt.admitted.size > 0 }) };
  } catch (error) {
    if (error instanceof RunStopped) throw error;
    run.recorder.error("synthesize", error instanceof ModelError ? error.kind : "error", `Repair failed: ${errorMessage(error)}`);
    return { text, check: draft.check };
  }
}

/** The evidence brief in place of a model that could not answer (not a stage of its own). */
function fallbackBrief(pack: ResearchPack, prompt: SynthesisPrompt): Synthesis {
  const evidenceExisted = prompt.admitted.size > 0;
  const brief = writeEvidenceBrief(pack, { admitted: prompt.admitted });
  return {
    stop: "synthesis_unavailable",
    answer: { text: brief.text, kind: "extractive", verified: true },
    check: verifyCitations(brief.text, prompt.admitted, { evidenceExisted, claimedNoEvidence: !evidenceExisted }),
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
