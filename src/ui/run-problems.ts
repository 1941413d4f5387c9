// Turns what went wrong in a run into sentences a user can act on — which provider, what
// happened, what to do — each with the control to do it (Open settings, Retry). The words are the
// panel's own, chosen by the error's kind: a provider's message may carry hints for the command
// line, which have no place here. Local results stay on screen beside these messages.
import { providerDisplayName } from "../evidence/labels";
import type { PackWarning } from "../evidence/research-pack";
import type { ModelErrorKind } from "../llm/chat-model";
import type { ResearchResult } from "../research/types";
import type { ProviderErrorKind } from "../websearch/types";

/** What a problem's button does. */
export type ProblemAction = "open_settings" | "retry";

export interface RunProblem {
  /** "error" stopped part of the run; "warning" is worth knowing. */
  severity: "error" | "warning";
  kind: string;
  message: string;
  /** What the user can do about it, when there is something. */
  hint?: string;
  action?: ProblemAction;
}

/** What the words depend on besides the error: the settings as they are now. */
export interface ProblemContext {
  /** How many web sources are enabled (another one is suggested only when there is one). */
  enabledProviders: number;
  /** Whether a key for this provider is in secret storage (missing and refused keys read differently). */
  hasKey(provider: string): boolean;
}

type Advice = Pick<RunProblem, "message" | "hint" | "action">;

/**
 * Per kind, what to say and offer. Without `message`, the provider's own sentence is shown ("Brave:
 * Brave rate limit reached; try again in 3 s."). A missing key and a missing instance get the
 * panel's words: the provider's sentence also tells the command line what to set.
 */
const PROVIDER_ADVICE: Record<ProviderErrorKind, (who: string, c: ProblemContext, provider: string) => Partial<Advice>> = {
  auth: (who, c, provider) =>
    c.hasKey(provider)
      ? { message: `${who} did not accept the API key.`, hint: "Check the key in Settings → Vault Research.", action: "open_settings" }
      : { message: `No ${who} API key is set.`, hint: "Add one in Settings → Vault Research.", action: "open_settings" },
  rate_limited: (_who, c) => ({
    hint: c.enabledProviders > 1 ? "Wait a moment and retry, or choose another source for this question." : "Wait a moment, then retry.",
    action: "retry",
  }),
  plan: () => ({ hint: "Choose another kind of search in settings.", action: "open_settings" }),
  unsupported: (who) => ({ message: `${who} is not set up for this search.`, hint: "Check its options in Settings → Vault Research.", action: "open_settings" }),
  timeout: () => ({ hint: "Retry, or allow more time in settings.", action: "retry" }),
  http: () => ({ hint: "This is usually brief. Retry in a moment.", action: "retry" }),
  parse: () => ({ hint: "Retry; if it keeps happening, ask without this source.", action: "retry" }),
  network: () => ({ hint: "Check your internet connection, then retry.", action: "retry" }),
};

/**
 * Per kind, what to say and offer when the model could not answer. Without `message`, the model
 * error's own sentence is shown: `unavailable` is a server that was reached and could not serve the
 * model (busy or overloaded, as Anthropic's 529; still loading it, as Ollama's 503; or without a
 * model of that name), and only its own words tell which.
 */
const MODEL_ADVICE: Record<ModelErrorKind, Pick<RunProblem, "hint" | "action"> & { message?: string }> = {
  auth: { message: "The model did not accept its API key.", hint: "Check the key under Model for answers in settings.", action: "open_settings" },
  rate_limited: { message: "The model is limiting requests right now.", hint: "Wait a moment, then retry.", action: "retry" },
  timeout: { message: "The model did not answer in time.", hint: "Retry, or allow the model more time in settings.", action: "retry" },
  http: { message: "The model's server answered with an error.", hint: "Retry in a moment.", action: "retry" },
  parse: { message: "The model's answer could not be read.", hint: "Retry, or choose another model in settings.", action: "retry" },
  network: { message: "Could not reach the model's server.", hint: "Check that it is running and the base URL is right.", action: "open_settings" },
  unavailable: { hint: "If it is busy or still loading the model, retry in a moment; if it has no model of that name, check the name in settings.", action: "retry" },
  cancelled: { message: "The model call was cancelled." },
};

const isProviderErrorKind = (kind: string): kind is ProviderErrorKind => Object.hasOwn(PROVIDER_ADVICE, kind);
const isModelErrorKind = (kind: string): kind is ModelErrorKind => Object.hasOwn(MODEL_ADVICE, kind);

/**
 * The run's problems: errors from the trace first (they say which stage and provider), then the
 * pack's warnings that add something. What the stop sentence already says (cancelled, out of
 * time, the web was needed) is not said again.
 */
export function problemsOf(result: Pick<ResearchResult, "pack" | "trace">, context: ProblemContext): RunProblem[] {
  const problems: RunProblem[] = [];
  const said = new Set<string>();
  const errors = result.trace?.errors ?? [];
  for (const error of errors) {
    const problem = problemOfTraceError(error, context);
    // Two queries to one provider can fail the same way; say it once.
    if (said.has(problem.message)) continue;
    problems.push(problem);
    said.add(problem.message);
  }
  const reported = { web: errors.some((e) => e.stage === "external_retrieval"), model: errors.some((e) => e.stage === "synthesize") };
  for (const warning of result.pack.warnings) {
    const problem = problemOfWarning(warning, reported);
    if (!problem || said.has(problem.message)) continue;
    problems.push(problem);
    said.add(problem.message);
  }
  return problems;
}

function problemOfTraceError(error: { stage: string; kind: string; message: string; provider?: string }, context: ProblemContext): RunProblem {
  if (error.stage === "external_retrieval" && error.provider && isProviderErrorKind(error.kind)) {
    const who = providerDisplayName(error.provider);
    const advice = PROVIDER_ADVICE[error.kind](who, context, error.provider);
    return { severity: "error", kind: error.kind, ...advice, message: advice.message ?? `${who}: ${error.message}` };
  }
  if (error.stage === "synthesize" && isModelErrorKind(error.kind)) {
    const advice = MODEL_ADVICE[error.kind];
    return { severity: "error", kind: error.kind, ...advice, message: `${withFullStop(advice.message ?? error.message)} The evidence brief is shown instead.` };
  }
  return { severity: "error", kind: error.kind, message: error.message };
}

/** "…(HTTP 529): Overloaded" → "…(HTTP 529): Overloaded." — a sentence follows it. */
function withFullStop(sentence: string): string {
  const trimmed = sentence.trim();
  return /[.!?…]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

/** A pack warning in the panel's words, or null when the trace's error or the stop sentence says it. */
function problemOfWarning(warning: PackWarning, reported: { web: boolean; model: boolean }): RunProblem | null {
  const kind = warning.kind;
  switch (kind) {
    case "provider_auth":
    case "provider_rate_limited":
    case "provider_plan":
    case "provider_unsupported":
    case "provider_timeout":
    case "provider_http":
    case "provider_parse":
    case "provider_network":
      return reported.web ? null : { severity: "error", kind, message: warning.message, action: "retry" };
    case "provider_warning":
    case "search_clamped":
      return { severity: "warning", kind, message: warning.message };
    case "answer_cut":
      return { severity: "warning", kind, message: "The model stopped at its length limit before finishing the answer.", hint: "Ask about one part of the question at a time." };
    case "no_provider":
      return { severity: "error", kind, message: "Web search was allowed, but no source is turned on.", hint: "Turn one on in settings.", action: "open_settings" };
    case "synthesis_unavailable":
      return reported.model ? null : { severity: "warning", kind, message: warning.message };
    case "trace_not_written":
    case "question_cut":
      return { severity: "warning", kind, message: warning.message };
    case "external_required_failed":
    case "timeout":
    case "cancelled":
      return null;
  }
}

/** A run that did not finish at all: its error as a problem. */
export function problemOfFailure(error: unknown): RunProblem {
  const field = (name: string): string | undefined => {
    const value = typeof error === "object" && error !== null ? (error as Record<string, unknown>)[name] : undefined;
    return typeof value === "string" ? value : undefined;
  };
  const message = error instanceof Error ? error.message : (field("message") ?? String(error));
  return { severity: "error", kind: field("kind") ?? "failed", message: `The research run failed: ${message}`, action: "retry" };
}

export interface ProblemActions {
  openSettings(): void;
  retry(): void;
}

const ACTION_LABELS: Record<ProblemAction, string> = { open_settings: "Open settings", retry: "Retry" };

export function renderProblems(parent: HTMLElement, problems: readonly RunProblem[], actions: ProblemActions): void {
  if (problems.length === 0) return;
  const list = parent.createDiv({ cls: "vault-research-problems-inline" });
  // One button per kind of action: three failed providers need one Retry.
  const offered = new Set<ProblemAction>();
  for (const p of problems) {
    const item = list.createDiv({ cls: ["vault-research-problem", `is-${p.severity}`], attr: { "data-kind": p.kind } });
    item.createDiv({ cls: "vault-research-problem-message", text: p.message });
    if (p.hint) item.createDiv({ cls: "vault-research-problem-hint", text: p.hint });
    if (p.action && !offered.has(p.action)) {
      offered.add(p.action);
      const action = p.action;
      const button = item.createEl("button", { cls: "vault-research-problem-action", text: ACTION_LABELS[action], attr: { type: "button" } });
      button.addEventListener("click", () => (action === "retry" ? actions.retry() : actions.openSettings()));
    }
  }
}
