// Turns what went wrong in a run into sentences a user can act on — which provider, what
// happened, what to do — each with the control to do it (Open settings, Retry). The words are the
// panel's own, chosen by the error's kind: a provider's message may carry hints for the command
// line, which have no place here. Local results stay on screen beside these messages.
import { providerDisplayName } from "../evidence/labels";
import type { PackWarning } from "../evidence/research-pack";
import type { ModelFailureKind } from "../llm/chat-model";
import type { ResearchResult } from "../research/types";
import type { ProviderErrorKind } from "../websearch/types";
import { joinSentences } from "../text/sentence-ends";
import { keyInQuestion } from "../research/key-in-question";

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
  /**
   * A second button, for an error whose kind does not tell which of two causes it was (a model
   * server without that model, or still loading it): the hint says when to use which.
   */
  orAction?: ProblemAction;
}

/** What the words depend on besides the error: the settings as they are now. */
export interface ProblemContext {
  /** How many web sources are enabled (another one is suggested only when there is one). */
  enabledProviders: number;
  /**
   * Whether the secret this provider sends is in secret storage — its API key, GitHub's token,
   * SearXNG's password (missing and refused ones read differently).
   */
  hasKey(provider: string): boolean;
  /** Whether the model's API key is in secret storage; unknown is worded as a key that was refused. */
  hasModelKey?: boolean;
  /** Whether the SearXNG instance's address is set; unknown is taken as set. */
  hasSearxngAddress?: boolean;
}

type Advice = Pick<RunProblem, "message" | "hint" | "action" | "orAction">;

/**
 * Per kind, what to say and offer. Without `message`, the provider's own sentence is shown ("Brave:
 * Brave rate limit reached; try again in 3 s."). A missing key and a missing instance get the
 * panel's words: the provider's sentence also tells the command line what to set.
 */
const PROVIDER_ADVICE: Record<ProviderErrorKind, (who: string, c: ProblemContext, provider: string) => Partial<Advice>> = {
  auth: (who, c, provider) => {
    if (provider === "searxng") return searxngLoginAdvice(c.hasKey(provider));
    const key = provider === "github" ? "token" : "API key";
    return c.hasKey(provider)
      ? { message: `${who} did not accept the ${key}.`, hint: `Check the ${key} in Settings → Vault Research.`, action: "open_settings" }
      : { message: `No ${who} ${key} is set.`, hint: "Add one in Settings → Vault Research.", action: "open_settings" };
  },
  rate_limited: (_who, c) => ({
    hint: c.enabledProviders > 1 ? "Wait a moment and retry, or choose another source for this question." : "Wait a moment, then retry.",
    action: "retry",
  }),
  plan: () => ({ hint: "Choose another kind of search in settings.", action: "open_settings" }),
  unsupported: (who, c, provider) =>
    // An instance that is set but does not serve JSON is changed on the instance (its settings.yml,
    // which its own sentence names); nothing in these settings would fix it.
    provider === "searxng" && c.hasSearxngAddress !== false
      ? { hint: "This is changed on the instance itself; retry once it is.", action: "retry" }
      : { message: `${who} is not set up for this search.`, hint: "Check its options in Settings → Vault Research.", action: "open_settings" },
  timeout: () => ({ hint: "Retry, or allow more time in settings.", action: "retry" }),
  http: () => ({ hint: "This is usually brief. Retry in a moment.", action: "retry" }),
  parse: () => ({ hint: "Retry; if it keeps happening, ask without this source.", action: "retry" }),
  network: () => ({ hint: "Check your internet connection, then retry.", action: "retry" }),
};

/** SearXNG's login is a user name in its address and a password in secret storage, not an API key. */
function searxngLoginAdvice(passwordSet: boolean): Partial<Advice> {
  return {
    message: passwordSet ? "SearXNG did not accept the user name and password." : "SearXNG asks for a user name and password.",
    hint: "Write the user name in its address (https://name@…) and the password under SearXNG password in Settings → Vault Research.",
    action: "open_settings",
  };
}

/**
 * Per kind, what to say and offer when the model could not answer. Without `message`, the model
 * error's own sentence is shown: it names the server, the status and what the server said. The
 * trace records a failure's reason where its kind leaves two fixes open (llm/chat-model.ts,
 * `ModelErrorReason`), and a reason gets the one button that can fix it: a model of another name
 * or a base URL is changed in settings, a busy server is asked again. A kind without its reason (a
 * trace written before reasons, a failure no status explains) may be either, and offers both.
 */
const MODEL_ADVICE: Record<ModelFailureKind, (c: ProblemContext) => Pick<Advice, "hint" | "action" | "orAction"> & { message?: string }> = {
  auth: (c) =>
    c.hasModelKey === false
      ? { message: "The model's server wants an API key, and none is set.", hint: "Add one under Model for answers in settings.", action: "open_settings" }
      : { message: "The model did not accept its API key.", hint: "Check the key under Model for answers in settings.", action: "open_settings" },
  rate_limited: () => ({ message: "The model is limiting requests right now.", hint: "Wait a moment, then retry.", action: "retry" }),
  timeout: () => ({ message: "The model did not answer in time.", hint: "Retry, or allow the model more time in settings.", action: "retry" }),
  http: () => ({ hint: "Retry in a moment; if it answers the same again, check the base URL and model name under Model for answers in settings.", action: "retry", orAction: "open_settings" }),
  parse: () => ({ hint: "Retry; if it happens again, check the base URL and model name under Model for answers in settings.", action: "retry", orAction: "open_settings" }),
  network: () => ({ message: "Could not reach the model's server.", hint: "Check that it is running, then retry; or check its base URL under Model for answers in settings.", action: "retry", orAction: "open_settings" }),
  unavailable: () => ({
    hint: "If it is busy or still loading the model, retry in a moment; if it says it has no such model, or what else is wrong, change that under Model for answers in settings.",
    action: "retry",
    orAction: "open_settings",
  }),
  cancelled: () => ({ message: "The model call was cancelled." }),
  model_not_found: () => ({
    hint: "Check the model's name under Model for answers in settings; a local server may need the model downloaded first (for Ollama: ollama pull, then ask again).",
    action: "open_settings",
  }),
  wrong_address: () => ({ hint: "Check the base URL under Model for answers in settings.", action: "open_settings" }),
  busy: () => ({ hint: "The server is busy or still loading the model: retry in a moment.", action: "retry" }),
  request_refused: () => ({
    hint: "Asked again, it is refused the same way. Choose another model under Model for answers in settings, or give this one a longer context on its server.",
    action: "open_settings",
  }),
  server_error: () => ({ hint: "The server failed on its side; retry in a moment.", action: "retry" }),
  quota_exhausted: () => ({
    message: "The model's account has no quota left.",
    hint: "Add credit with the model's provider, or choose another model under Model for answers in settings.",
    action: "open_settings",
  }),
};

const isProviderErrorKind = (kind: string): kind is ProviderErrorKind => Object.hasOwn(PROVIDER_ADVICE, kind);
const isModelFailureKind = (kind: string): kind is ModelFailureKind => Object.hasOwn(MODEL_ADVICE, kind);

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
  if (error.stage === "synthesize" && isModelFailureKind(error.kind)) {
    const advice = MODEL_ADVICE[error.kind](context);
    return { severity: "error", kind: error.kind, ...advice, message: joinSentences(advice.message ?? error.message, "The evidence brief is shown instead.") };
  }
  // The run out of time at some stage: what it found is shown; another try may well finish.
  if (error.kind === "timeout") return { severity: "error", kind: error.kind, message: error.message, action: "retry" };
  return { severity: "error", kind: error.kind, message: error.message };
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

/**
 * A question refused before its run started, for it is or holds an API key (research/key-in-question.ts):
 * asked again it is refused again, so no Retry; and the panel's words, for the error's name the CLI's variable.
 */
const QUESTION_IS_A_KEY: RunProblem = {
  severity: "error",
  kind: "question_is_a_key",
  message: "This question looks like an API key, or holds one, so the run did not start: nothing was searched, sent or written.",
  hint: "A key goes in its field in Settings → Vault Research; ask the question in words.",
  action: "open_settings",
};

/** A run that did not finish at all: its error as a problem. */
export function problemOfFailure(error: unknown): RunProblem {
  const field = (name: string): string | undefined => {
    const value = typeof error === "object" && error !== null ? (error as Record<string, unknown>)[name] : undefined;
    return typeof value === "string" ? value : undefined;
  };
  if (field("kind") === QUESTION_IS_A_KEY.kind) return { ...QUESTION_IS_A_KEY };
  const message = error instanceof Error ? error.message : (field("message") ?? String(error));
  return { severity: "error", kind: field("kind") ?? "failed", message: `The research run failed: ${message}`, action: "retry" };
}

export interface ProblemActions {
  openSettings(): void;
  retry(): void;
}

const ACTION_LABELS: Record<ProblemAction, string> = { open_settings: "Open settings", retry: "Retry" };

/**
 * A problem's sentence as the box shows it. Keys the run holds were scrubbed from its errors before
 * they got here; one it does not hold (a server echoing a key pasted elsewhere, in its error) cannot
 * be, so a sentence with what looks like an API key is not shown, by the rule the panel's status
 * line and live region keep (research-view.ts: `keyInQuestion`). Its hint and buttons stay: they are
 * the panel's own words.
 */
export function problemMessageShown(problem: Pick<RunProblem, "severity" | "message">): string {
  if (!keyInQuestion(problem.message)) return problem.message;
  return `This ${problem.severity === "error" ? "error" : "warning"} holds what looks like an API key, so it is not repeated here.`;
}

export function renderProblems(parent: HTMLElement, problems: readonly RunProblem[], actions: ProblemActions): void {
  if (problems.length === 0) return;
  const list = parent.createDiv({ cls: "vault-research-problems-inline" });
  // One button per kind of action: three failed providers need one Retry.
  const offered = new Set<ProblemAction>();
  for (const p of problems) {
    const item = list.createDiv({ cls: ["vault-research-problem", `is-${p.severity}`], attr: { "data-kind": p.kind } });
    item.createDiv({ cls: "vault-research-problem-message", text: problemMessageShown(p) });
    if (p.hint) item.createDiv({ cls: "vault-research-problem-hint", text: p.hint });
    for (const action of [p.action, p.orAction]) {
      if (!action || offered.has(action)) continue;
      offered.add(action);
      const button = item.createEl("button", { cls: "vault-research-problem-action", text: ACTION_LABELS[action], attr: { type: "button" } });
      button.addEventListener("click", () => (action === "retry" ? actions.retry() : actions.openSettings()));
    }
  }
}
