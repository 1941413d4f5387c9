// What one research run knows so far. Every stage reads and adds to this one object, and a run
// that stops mid-way still returns the pack it describes, with its trace.
import type { Coverage, Judgement, OutsideVaultRow, PackWarning, QueryPlan, ResearchPack, VaultRow } from "../evidence/research-pack";
import { RESEARCH_PACK_VERSION } from "../evidence/research-pack";
import { webOutcomeOf, webOutcomeSentence, type WebOutcome } from "../notes/web-outcome";
import type { ExternalMode, Freshness, ProviderName } from "../settings";
import { questionCutMessage, questionRead } from "../text/cut-text";
import { secretScrubber } from "../text/secret-scrub";
import { routeQuestion } from "../websearch/routing";
import type { ProviderErrorKind, ProviderErrorReason } from "../websearch/types";
import { keyInQuestion } from "./key-in-question";
import { markSavedPages } from "./saved-pages";
import { RUN_LIMITS } from "./run-limits";
import { StageRunner } from "./stage-runner";
import { decideExternal } from "./stages/external-policy";
import { planQuestion } from "./stages/plan";
import { retrievalLevelDetail, type RetrievalLevel } from "./stages/local-retrieval";
import type { PageRead } from "./stages/read-pages";
import { TraceRecorder } from "./trace-recorder";
import type { ResearchDeps, ResearchRequest } from "./types";

/** How the look outside the vault went. */
export interface ExternalOutcome {
  /**
   * A query was handed to the providers (the policy allowed it, one was enabled, and there was time to
   * ask): the search started. Not that anything left the device: every source may have refused it
   * unsent (no key, an empty query), or a stop came while they waited their turn. What left is the
   * trace's `queries_sent` and its `external_provider_request` events.
   */
  used: boolean;
  /** External search was wanted and gave nothing: no provider, or every provider failed. */
  failed: boolean;
  /** Why web search failed, provider by provider, each a sentence, for the stop reason's message. */
  failures: string[];
  /** Each source that failed a query, and how, once per way it failed: the recall note names them. */
  sourceFailures: SourceFailure[];
  /** What recency each provider was asked for and the newest date it returned. */
  freshness: Coverage["external_freshness"];
  /** Canonical URLs whose provider answer already held the page's own text: they are not read again. */
  withPageText: Set<string>;
}

/** A web source that failed a query of the run (it may have answered another: see `freshness`). */
export interface SourceFailure {
  provider: ProviderName;
  kind: ProviderErrorKind;
  /**
   * Whether a call of the source's had left the device when it failed (the dispatcher's `sent`), as
   * its trace event says. It tells "Brave has no API key set" (unsent) from "Brave refused the API
   * key" (a 401/403) in `notes/web-outcome.ts`. Without it the recall note, the evidence brief and the
   * model's prompt said "could not be used without a valid key" of both, where the trace note of the
   * same run told them apart.
   */
  sent: boolean;
  /** What the failure was beyond its kind (a server that only redirected sent no 5xx), when the error said. */
  reason?: ProviderErrorReason;
}

export interface RunState {
  readonly request: ResearchRequest;
  readonly deps: ResearchDeps;
  readonly mode: ExternalMode;
  /** Providers this run may ask (deduplicated; the request's, else the settings'). */
  readonly providers: ProviderName[];
  readonly freshness: Freshness;
  /** Outside URLs wanted: 5 by default, 10 at most. */
  readonly count: number;
  readonly recorder: TraceRecorder;
  readonly stages: StageRunner;
  /**
   * The question's plan, made when first read: by the plan stage (run.ts), so that the planning is
   * timed as that stage's; a run stopped before it plans its question for the pack it returns.
   */
  plan: QueryPlan;
  vaultRows: VaultRow[];
  notesSearched: number;
  /** The search dial's level asked and run for local retrieval (null without a dial). */
  retrievalLevel: RetrievalLevel | null;
  judgement: Judgement;
  outsideRows: OutsideVaultRow[];
  external: ExternalOutcome;
  /** The pages the run chose to read, and what became of each. */
  pageReads: PageRead[];
  warnings: PackWarning[];
}

export function startRun(asked: ResearchRequest, deps: ResearchDeps): RunState {
  const { clock, settings } = deps;
  // A key the caller holds, typed or pasted into the question or the chat before it, is gone before
  // anything reads them: planning (which lower-cases and splits words, past any scrubbing after it),
  // the vault search, provider queries, the model's prompt, the trace and its note's name.
  const held = secretScrubber(deps.knownSecrets);
  const typed = held.text(asked.question);
  // The whole run, its trace and its pack read the question as planning reads it.
  const question = questionRead(typed);
  // An earlier question that was a key was refused, but the chat still holds it: it lends no terms.
  const history = asked.history?.filter((earlier) => !keyInQuestion(earlier, deps.knownSecrets)).map((earlier) => held.text(earlier));
  const request: ResearchRequest = { ...asked, question, ...(history ? { history } : {}) };
  const mode = request.mode ?? "never";
  const providers = request.providers && request.providers.length > 0 ? [...new Set(request.providers)] : settings.external.providers;
  const freshness = request.freshness ?? settings.external.freshness;
  const count = Math.min(RUN_LIMITS.maxUrls, Math.max(1, request.count ?? settings.external.count ?? RUN_LIMITS.defaultUrls));
  const recorder = new TraceRecorder({ question: request.question, mode, providers: mode === "never" ? [] : providers, freshness, clock });
  // Before anything is recorded: a page, a provider or a model may echo a key too.
  recorder.addSecrets(...deps.knownSecrets);
  if (deps.replayedFrom !== undefined) recorder.replayedFrom(deps.replayedFrom);
  const stages = new StageRunner({ clock, recorder, totalMs: RUN_LIMITS.totalMs, ...(deps.signal ? { signal: deps.signal } : {}), ...(deps.onProgress ? { onProgress: deps.onProgress } : {}) });
  let plan: QueryPlan | undefined;
  return {
    request,
    deps,
    mode,
    providers,
    freshness,
    count,
    recorder,
    stages,
    get plan(): QueryPlan {
      plan ??= planQuestion(request.question, { history: request.history, clock });
      return plan;
    },
    set plan(planned: QueryPlan) {
      plan = planned;
    },
    vaultRows: [],
    notesSearched: 0,
    retrievalLevel: null,
    judgement: { verdict: "no_evidence", reason: "The run stopped before the vault was searched.", missing_terms: [] },
    outsideRows: [],
    external: { used: false, failed: false, failures: [], sourceFailures: [], freshness: [], withPageText: new Set() },
    pageReads: [],
    warnings: question === typed ? [] : [{ kind: "question_cut", message: questionCutMessage(typed, "question") }],
  };
}

/** The pack as the run has it now. It shares the run's warnings, which may still grow. */
export function packOf(run: RunState): ResearchPack {
  // Whichever stage added a row, a saved web page says so (its text goes to a model fenced).
  markSavedPages(run.vaultRows, run.deps.index);
  return {
    schema: RESEARCH_PACK_VERSION,
    question: run.request.question,
    query_plan: run.plan,
    evidence: run.vaultRows,
    external_evidence: run.outsideRows,
    judge: run.judgement,
    coverage: {
      local_evidence_count: run.vaultRows.length,
      external_evidence_count: run.outsideRows.length,
      external_by_provider: countByProvider(run.outsideRows),
      external_freshness: run.external.freshness,
      recall_note: recallNote(run),
    },
    warnings: run.warnings,
  };
}

export function providersOf(rows: OutsideVaultRow[]): string[] {
  return Array.from(new Set(rows.map((r) => r.provider)));
}

function countByProvider(rows: OutsideVaultRow[]): { key: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const r of rows) counts.set(r.provider, (counts.get(r.provider) ?? 0) + 1);
  return Array.from(counts, ([key, count]) => ({ key, count }));
}

function recallNote(run: RunState): string {
  const notes = run.notesSearched;
  // Level 1 (or no dial) says nothing of the dial: the words every trace and golden already hold.
  const vault = `Searched ${notes} note${notes === 1 ? "" : "s"}${retrievalLevelDetail(run.retrievalLevel)}; ${run.vaultRows.length} matched.`;
  return `${vault} ${webRecall(run)}`;
}

/**
 * What the web added, and whether it answered, in the words every surface shares (notes/web-outcome.ts).
 * "Web search added 0 outside rows." was all a run said when no source had answered, or when a stop
 * cut them all off: the panel, an agent and the trace read it as "the web found nothing".
 */
function webRecall(run: RunState): string {
  return webOutcomeSentence(webOutcomeOfRun(run));
}

/** The run's web outcome from its typed state: the same facts its trace gives the trace note and the panel. */
export function webOutcomeOfRun(run: RunState): WebOutcome {
  const { external } = run;
  // A source the user's stop cut off is one the search asked that neither answered nor failed.
  const stopped = run.warnings.some((w) => w.kind === "cancelled");
  return webOutcomeOf({
    mode: run.mode,
    searched: external.used,
    // Wanted but never asked: no source was enabled (run.ts, the external policy stage).
    noSource: !external.used && external.failed,
    notNeeded: !decideExternal(run.mode, run.judgement, run.plan).search,
    rowProviders: run.outsideRows.map((r) => r.provider),
    answered: external.freshness.map((f) => f.provider),
    failures: external.sourceFailures,
    cutOff: stopped && external.used ? sourcesAsked(run) : [],
    stopped,
  });
}

/** The sources the web search asks: the ones that fit the question, as the external retrieval stage routes them. */
function sourcesAsked(run: RunState): string[] {
  return routeQuestion(run.request.question, run.providers).decisions.filter((d) => d.ask).map((d) => d.source);
}
