// How a run's web search went, in the one set of words every surface uses: the trace note under its
// outside counter, the pack's recall note, the panel under its outside group and on its folded
// timeline, the CLI's text. The panel said "The web search failed: no source answered (Brave failed)."
// where the note of the same run said "Web search failed: Brave did not answer", and a run stopped
// mid-search said "Web search added 0 outside rows.", which reads as the web having found nothing.
// Here the outcome is first made a closed union from the run's facts, then worded; a surface may
// say less (the timeline's summary), never other facts.
import type { ResearchTrace } from "../evidence/trace-types";
import { providerDisplayName, providerList } from "../evidence/labels";

/** A web source that failed a query of the run; `kind` is the provider error's closed kind (`websearch/types.ts`). */
export interface SourceFailed {
  provider: string;
  kind: string;
  /**
   * Whether a call of the source's had left the device when it failed (the dispatcher's `sent`, on the
   * failure's timeline event). It tells the two refusals of kind `auth` apart: unsent, no key is set
   * for the source; sent, the source refused the key it was given (401/403). Unknown (a trace kept
   * before it was recorded, or a surface not told) is worded as either.
   */
  sent?: boolean;
  /**
   * What the failure was beyond its kind (`websearch/types.ts`, `ProviderErrorReason`): an `http`
   * failure with no 5xx (a server that only redirected, arXiv refusing the query, SearXNG whose
   * engines failed), a replayed call no recording answered. Unknown (a trace kept before it was
   * recorded) is worded by the kind alone.
   */
  reason?: string;
}

/** What a run's look outside the vault came to. */
export type WebOutcome =
  /** The run was not allowed the web (mode never). */
  | { kind: "not_allowed" }
  /** Allowed only if the vault fell short (on-weak), and it did not. */
  | { kind: "not_needed" }
  /** Allowed, but no source is turned on. */
  | { kind: "no_source" }
  /** Allowed and wanted, but the run ended (stopped, out of time) before a query left. */
  | { kind: "not_reached" }
  | {
      kind: "searched";
      /** Outside rows kept, per source, in the order the pack holds them. */
      rows: readonly { provider: string; count: number }[];
      /** Sources that answered, with results or none. */
      answered: readonly string[];
      /** Sources that never answered, with how each failed (once per way). */
      failed: readonly SourceFailed[];
      /** Sources that answered one query and failed another. */
      partlyFailed: readonly string[];
      /** Sources the user's stop cut off before they answered. */
      cutOff: readonly string[];
      /** The user stopped the run (during the search, or after it). */
      stopped: boolean;
    };

/** The facts a run knows of its web stage, from its state (`research/run-state.ts`) or its trace. */
export interface WebStageFacts {
  mode: ResearchTrace["mode"];
  /**
   * A query was handed to the sources: the search started. It may have left no source (each refused
   * it unsent, or a stop came while they waited their turn); the trace's `queries_sent` holds only
   * what left.
   */
  searched: boolean;
  /** The web was allowed, but no source is turned on. */
  noSource: boolean;
  /** The policy decided the vault had enough (on-weak). */
  notNeeded: boolean;
  rowProviders: readonly string[];
  answered: readonly string[];
  failures: readonly SourceFailed[];
  cutOff: readonly string[];
  /** The user stopped the run. */
  stopped: boolean;
}

export function webOutcomeOf(facts: WebStageFacts): WebOutcome {
  if (facts.mode === "never") return { kind: "not_allowed" };
  if (!facts.searched) return facts.noSource ? { kind: "no_source" } : facts.notNeeded ? { kind: "not_needed" } : { kind: "not_reached" };
  const answered = unique([...facts.answered, ...facts.rowProviders]);
  const failed: SourceFailed[] = [];
  for (const f of facts.failures) {
    if (!answered.includes(f.provider) && !failed.some((s) => sameFailure(s, f))) failed.push(sourceFailed(f));
  }
  const partlyFailed = unique(facts.failures.map((f) => f.provider).filter((p) => answered.includes(p)));
  const cutOff = unique(facts.cutOff).filter((p) => !answered.includes(p) && !failed.some((f) => f.provider === p));
  const rows: { provider: string; count: number }[] = [];
  for (const p of facts.rowProviders) {
    const row = rows.find((r) => r.provider === p);
    if (row) row.count += 1;
    else rows.push({ provider: p, count: 1 });
  }
  return { kind: "searched", rows, answered, failed, partlyFailed, cutOff, stopped: facts.stopped };
}

/**
 * The outcome as a finished trace records it: the queries handed to the sources, the sources'
 * answers (freshness entries, rows), failures (trace errors of the web stage) and the sources a stop
 * cut off (their `external_provider_response` event says `stopped`).
 */
export function webOutcomeOfTrace(trace: ResearchTrace): WebOutcome {
  const { pack } = trace;
  const failures = withEventFacts(
    trace.errors.flatMap((e) => (e.stage === "external_retrieval" && e.provider !== undefined ? [{ provider: e.provider, kind: e.kind }] : [])),
    trace.events,
  );
  const cutOff = trace.events.flatMap((e) => (e.type === "external_provider_response" && e.data?.stopped !== undefined && typeof e.data.provider === "string" ? [e.data.provider] : []));
  // The search started once a query was built for the sources: `queries_sent` holds only what left,
  // and a stop while every source waited its turn left nothing, though the search was under way.
  const handed = trace.events.some((e) => e.type === "external_query_built" && e.data?.not_sent === undefined);
  return webOutcomeOf({
    mode: trace.mode,
    searched: handed || trace.queries_sent.length > 0 || failures.length > 0 || pack.external_evidence.length > 0,
    noSource: pack.warnings.some((w) => w.kind === "no_provider"),
    notNeeded: trace.events.some((e) => e.type === "external_search_skipped") && !pack.warnings.some((w) => w.kind === "no_provider"),
    rowProviders: pack.external_evidence.map((r) => r.provider),
    answered: pack.coverage.external_freshness.map((f) => f.provider),
    failures,
    cutOff,
    stopped: trace.stop_reason === "cancelled",
  });
}

/**
 * Each failure with whether its call had left and what it was beyond its kind, read from its
 * `external_provider_response` event (the web stage writes one beside each trace error, in the same
 * order, with `sent` and `reason`). Matched by source and kind, each event once: a source that failed
 * both queries has an event for each.
 */
function withEventFacts(failures: readonly SourceFailed[], events: ResearchTrace["events"]): SourceFailed[] {
  const told = events.flatMap((e) => (e.type === "external_provider_response" && typeof e.data?.error === "string" ? [e.data] : []));
  return failures.map((f) => {
    const at = told.findIndex((d) => d.provider === f.provider && d.error === f.kind);
    if (at < 0) return f;
    const { sent, reason } = told.splice(at, 1)[0];
    return { ...f, ...(typeof sent === "boolean" ? { sent } : {}), ...(typeof reason === "string" ? { reason } : {}) };
  });
}

function sourceFailed(f: SourceFailed): SourceFailed {
  return { provider: f.provider, kind: f.kind, ...(f.sent !== undefined ? { sent: f.sent } : {}), ...(f.reason !== undefined ? { reason: f.reason } : {}) };
}

/** The same failure: one source, failed the same way, its call sent or not alike (here and as the web stage keeps them). */
export function sameFailure(a: SourceFailed, b: SourceFailed): boolean {
  return a.provider === b.provider && a.kind === b.kind && a.sent === b.sent && a.reason === b.reason;
}

/**
 * How a source failed, said after its name: "Brave timed out". The one table of these words: the web
 * stage's progress lines say them too (`research/stages/external-retrieval.ts`), where a second table
 * had said "server error" and "no key, or the key was refused" for what the note called otherwise.
 */
const FAILED_HOW: Record<string, string> = {
  // Said when it is not known whether the source was sent anything: no key, or a key refused.
  auth: "could not be used without a valid key",
  rate_limited: "was rate limited",
  plan: "does not offer this search on your plan",
  unsupported: "is not set up for this search",
  timeout: "timed out",
  // Said only when its reason is unknown (a trace kept before reasons were recorded): a status sets one.
  http: "answered with a server error",
  parse: "sent an answer that could not be read",
  network: "could not be reached",
};

/**
 * What a failure was beyond its kind, in words (`ProviderErrorReason` in `websearch/types.ts`): said
 * in place of its kind's, which said "answered with a server error" of a server that sent no 5xx,
 * and "could not be reached" of a replayed call that tried no network.
 */
const FAILED_FOR: Record<string, string> = {
  server_error: "answered with a server error",
  refused: "refused the search",
  search_failed: "could not run the search",
  unexpected_status: "answered with an unexpected status",
  redirects_only: "answered only with redirects",
  engines_failed: "found nothing, as its search engines did not answer",
  blocked: "answered with a login page or a bot check",
  no_recording: "had no recorded answer to replay",
};

/**
 * The outcome in one sentence, the same for every surface: "Web search failed: Brave timed out.",
 * "Web search added 3 outside rows from Brave; Exa could not be reached.", "Web search stopped
 * before Exa answered; it added 2 outside rows from Brave.", "Nothing left the device: …".
 */
export function webOutcomeSentence(outcome: WebOutcome): string {
  switch (outcome.kind) {
    case "not_allowed":
      return "Nothing left the device: web search is off for this run.";
    case "not_needed":
      return "Nothing left the device: the vault had enough on this, so the web was not searched.";
    case "no_source":
      return "Nothing left the device: web search was allowed, but no source is turned on.";
    case "not_reached":
      return "Nothing left the device: the web search never started (the run stopped or ran out of time first).";
    case "searched":
      return searchedSentence(outcome);
  }
}

function searchedSentence(o: Extract<WebOutcome, { kind: "searched" }>): string {
  const failures = [...failedClauses(o.failed), ...(o.partlyFailed.length > 0 ? [`some requests to ${providerList(o.partlyFailed)} failed`] : [])];
  const total = o.rows.reduce((sum, r) => sum + r.count, 0);
  const added = total > 0 ? `${total} outside row${total === 1 ? "" : "s"} from ${providerList(o.rows.map((r) => r.provider))}` : null;
  if (o.cutOff.length > 0) {
    const kept = added ? `it added ${added}` : o.answered.length > 0 ? `${providerList(o.answered)} answered with nothing to add` : null;
    return clauses(`Web search stopped before ${providerList(o.cutOff)} answered`, kept, ...failures);
  }
  if (o.answered.length === 0 && o.failed.length > 0) return `Web search failed: ${failedClauses(o.failed).join("; ")}.`;
  // Neither answered nor failed: a stop came first (a trace that names no source it cut off).
  if (o.answered.length === 0) return o.stopped ? "Web search stopped before any source answered." : "Web search failed: no source answered.";
  if (added) return clauses(`Web search added ${added}`, ...failures);
  return clauses(`Web search added no outside rows: ${providerList(o.answered)} answered with nothing to add`, ...failures);
}

/**
 * What a source that turned its call away for its credentials wanted, by source, where it is no API
 * key: SearXNG a user name and password, GitHub a token (optional: without one none is sent, and a
 * 401 is no refusal of a key, `source-call.ts`).
 */
const KEY_REFUSED: Record<string, string> = {
  github: "refused the token",
  // Its 401 comes with or without a user name in the instance's address: asked, never refused, is true of both.
  searxng: "asked for a valid user name and password",
};

/**
 * How a source failed, in the words said after its name: `sourceFailedHow("http")` is "answered with a
 * server error". An `auth` failure is told apart when it is known whether the source was sent
 * anything: "Brave has no API key set" (it refused before sending: no key is set for it) and "Brave
 * refused the API key" (a 401/403). Both read "could not be used without a valid key", and a user with
 * no key looked for a wrong one. A failure's `reason` is said in place of its kind's words:
 * `sourceFailedHow("http", { reason: "redirects_only" })` is "answered only with redirects".
 */
export function sourceFailedHow(kind: string, failure: { provider?: string; sent?: boolean; reason?: string } = {}): string {
  if (kind === "auth" && failure.sent === false) return "has no API key set";
  if (kind === "auth" && failure.sent === true) return (failure.provider !== undefined ? KEY_REFUSED[failure.provider] : undefined) ?? "refused the API key";
  return (failure.reason !== undefined ? FAILED_FOR[failure.reason] : undefined) ?? FAILED_HOW[kind] ?? "failed";
}

/** "Brave timed out", "Exa timed out and was rate limited": each source once, with each way it failed. */
export function failedClauses(failed: readonly SourceFailed[]): string[] {
  return unique(failed.map((f) => f.provider)).map((p) => {
    const how = unique(failed.filter((f) => f.provider === p).map((f) => sourceFailedHow(f.kind, f)));
    return `${providerDisplayName(p)} ${how.join(" and ")}`;
  });
}

function clauses(first: string, ...rest: (string | null)[]): string {
  return `${[first, ...rest.filter((c): c is string => c !== null)].join("; ")}.`;
}

/** Whether a surface that shows its counter has more to say: anything but rows found with no source failing. */
export function webOutcomeSaysMore(outcome: WebOutcome): boolean {
  if (outcome.kind !== "searched") return true;
  return outcome.rows.length === 0 || webOutcomeHasFailures(outcome) || outcome.cutOff.length > 0;
}

/** Whether a source failed (the warnings say how, in its own message). */
export function webOutcomeHasFailures(outcome: WebOutcome): boolean {
  return outcome.kind === "searched" && (outcome.failed.length > 0 || outcome.partlyFailed.length > 0);
}

/**
 * The short form for a folded timeline ("web: Brave, 4 results; Exa failed"), the same facts as the
 * sentence; none for a run not allowed the web.
 */
export function webOutcomeSummary(outcome: WebOutcome): string | undefined {
  switch (outcome.kind) {
    case "not_allowed":
      return undefined;
    case "not_needed":
      return "not needed";
    case "no_source":
      return "no source turned on";
    case "not_reached":
      return "not reached";
    case "searched": {
      const parts = outcome.answered.map((p) => {
        const n = outcome.rows.find((r) => r.provider === p)?.count ?? 0;
        return `${providerDisplayName(p)}, ${n} result${n === 1 ? "" : "s"}`;
      });
      for (const p of unique(outcome.failed.map((f) => f.provider))) parts.push(`${providerDisplayName(p)} failed`);
      for (const p of outcome.cutOff) parts.push(`${providerDisplayName(p)} stopped`);
      return parts.join("; ") || (outcome.stopped ? "stopped" : "no answer");
    }
  }
}

function unique<T>(items: readonly T[]): T[] {
  return [...new Set(items)];
}
