// The run's model check of the judge's verdict (model-verdict.ts), after the lexical judge, and
// the record of which lever decided the verdict: the lexical judge, the related expansion, the
// question's rewrites, or the model check. A check that fails leaves the verdict as it was and
// the trace says why; the stage never stops the run.
import type { JudgeFigures, JudgeLever } from "./judge";
import type { RunState } from "../run-state";
import { checkVerdictWithModel, MODEL_CHECK_LIMITS } from "./model-verdict";
import { timeLeft } from "./second-local-pass";

/** Which lever settled the run's verdict (closed; the trace's `decided_by`). */
export type VerdictDecider = "lexical" | "related_expansion" | "question_rewrite" | "model_check";

/** Records who decided the lexical verdict: the judge's lever, and the pass that found the note it rests on. */
export function recordLexicalDecision(run: RunState, lever: JudgeLever | undefined, decider: Exclude<VerdictDecider, "model_check">): Exclude<VerdictDecider, "model_check"> {
  run.recorder.event("judge", { decided_by: decider, lever: lever ?? "coverage", verdict: run.judgement.verdict });
  return decider;
}

/** The pass that found the note a verdict rests on, when it was not the first search. */
export function deciderOf(figures: JudgeFigures): Exclude<VerdictDecider, "model_check"> {
  if (!figures.foundBy) return "lexical";
  return figures.foundBy === "link" ? "related_expansion" : "question_rewrite";
}

export function wantsModelCheck(run: RunState): boolean {
  return run.deps.model !== null && run.deps.modelLevers === true;
}

/** Asks the model to check the verdict; its verdict stands when it answered well, else the lexical one. */
export async function modelCheckStage(run: RunState, decidedSoFar: Exclude<VerdictDecider, "model_check">): Promise<void> {
  const model = run.deps.model!;
  const lexical = run.judgement;
  const check = await run.stages.run({
    name: "judge",
    start: "Checking the verdict with the model",
    // The call's own limit is shorter: a slow model is a kept verdict, not a stopped run.
    limitMs: MODEL_CHECK_LIMITS.ms + 5_000,
    work: async (signal) => {
      const checked = await checkVerdictWithModel(run.request.question, run.plan, run.vaultRows, lexical, { model, clock: run.deps.clock, ms: timeLeft(run), signal });
      // A check cut short by the user's cancel is the cancel, not a model that failed (the trace and panel said so).
      if (checked.kind === "kept_lexical" && checked.failure.kind === "cancelled") run.stages.checkStop();
      return checked;
    },
    done: (c) => (c.kind === "checked" ? `The model says ${c.judgement.verdict.replace(/_/g, " ")}` : `The lexical verdict stands: ${c.failure.message}`),
    outcome: (c) => (c.kind === "checked" || c.failure.kind === "nothing_to_check" ? "done" : "partial"),
  });
  if (check.kind === "kept_lexical") {
    run.recorder.event("judge", { decided_by: decidedSoFar, model_check: "failed", why: check.failure.kind, message: check.failure.message, verdict: lexical.verdict });
    if (check.failure.kind !== "nothing_to_check") run.recorder.error("judge", check.failure.kind, `Model check failed; the lexical verdict stands. ${check.failure.message}`);
    return;
  }
  run.judgement = check.judgement;
  run.recorder.event("judge", { decided_by: "model_check", model: check.model, verdict: check.judgement.verdict, lexical_verdict: lexical.verdict, changed: check.changed });
}
