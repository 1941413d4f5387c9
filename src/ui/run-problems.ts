// Turns what went wrong in a run into sentences a user can act on: which provider, what happened,
// and what to do about it. Local results stay on screen beside these messages.
import { providerDisplayName } from "../evidence/labels";
import type { ResearchResult } from "../research/types";

export interface RunProblem {
  /** "error" stopped part of the run; "warning" is worth knowing. */
  severity: "error" | "warning";
  kind: string;
  message: string;
  /** What the user can do about it, when there is something. */
  hint?: string;
}

/** Advice by error kind (provider, model and runner kinds share these words). */
export function hintFor(kind: string, provider?: string): string | undefined {
  const who = provider ? providerDisplayName(provider) : "the provider";
  // The runner's warnings name provider failures `provider_<kind>`.
  switch (kind.replace(/^provider_/, "")) {
    case "missing_key":
    case "auth":
      return `Add or check the ${who} API key in Settings → Vault Research.`;
    case "rate_limited":
      return `${who} is limiting requests. Wait a moment and ask again, or choose another provider.`;
    case "plan":
      return `Your ${who} plan does not include this kind of search.`;
    case "timeout":
      return "Ask again, or allow more time in Settings → Vault Research.";
    case "network":
      return "Check your internet connection and ask again.";
    case "unavailable":
      return "Check that the model server is running and the base URL is right.";
    default:
      return undefined;
  }
}

/** Errors from the trace first (they say which stage and provider), then pack warnings not already said. */
export function problemsOf(result: Pick<ResearchResult, "pack" | "trace">): RunProblem[] {
  const problems: RunProblem[] = [];
  const said = new Set<string>();
  for (const error of result.trace?.errors ?? []) {
    // Two queries to one provider can fail the same way; say it once.
    if (said.has(error.message)) continue;
    const who = error.provider ? `${providerDisplayName(error.provider)}: ` : "";
    problems.push({ severity: "error", kind: error.kind, message: `${who}${error.message}`, hint: hintFor(error.kind, error.provider) });
    said.add(error.message);
  }
  for (const warning of result.pack.warnings) {
    if ([...said].some((m) => warning.message.includes(m) || m.includes(warning.message))) continue;
    problems.push({ severity: "warning", kind: warning.kind, message: warning.message, hint: hintFor(warning.kind) });
    said.add(warning.message);
  }
  return problems;
}

/** A run that did not finish at all: its error as a problem. */
export function problemOfFailure(error: unknown): RunProblem {
  const kind = typeof error === "object" && error !== null && typeof (error as { kind?: unknown }).kind === "string" ? (error as { kind: string }).kind : "failed";
  const provider = typeof error === "object" && error !== null && typeof (error as { provider?: unknown }).provider === "string" ? (error as { provider: string }).provider : undefined;
  const message = error instanceof Error ? error.message : typeof error === "object" && error !== null && "message" in error ? String(error.message) : String(error);
  return { severity: "error", kind, message: `The research run failed: ${message}`, hint: hintFor(kind, provider) };
}

export function renderProblems(parent: HTMLElement, problems: readonly RunProblem[]): void {
  if (problems.length === 0) return;
  const list = parent.createDiv({ cls: "vault-research-problems-inline", attr: { role: "status" } });
  for (const p of problems) {
    const item = list.createDiv({ cls: ["vault-research-problem", `is-${p.severity}`], attr: { "data-kind": p.kind } });
    item.createDiv({ cls: "vault-research-problem-message", text: p.message });
    if (p.hint) item.createDiv({ cls: "vault-research-problem-hint", text: p.hint });
  }
}
