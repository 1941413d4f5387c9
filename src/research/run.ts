// One research run: plan → local retrieval → judge → external policy → external retrieval →
// normalize/dedupe → merge/rank → prepare synthesis → synthesize → verify citations → trace.
//
// The invariant every stage serves: vault evidence and model synthesis are separate, and the web
// extends the retrieval set for this run only. Nothing leaves the device unless the run's mode
// allows it; provider queries come from the question alone; a provider failure never destroys
// local results; an answer whose citations do not check out is never shown as a normal answer.
import type { Secrets, SecretName } from "../ports";
import { createSearchSession, searchProviders, type MergedResult } from "../websearch/search-providers";
import type { ProviderContext } from "../websearch/types";
import { ModelError } from "../llm/chat-model";
import type { Citation, Judgement, OutsideVaultRow, PackWarning, QueryPlan, ResearchPack, StopReason, VaultRow } from "../evidence/research-pack";
import { RESEARCH_PACK_VERSION } from "../evidence/research-pack";
import { writeEvidenceBrief } from "./stages/extractive-brief";
import { judgeEvidence } from "./stages/judge";
import { outsideVaultCounter, providerDisplayName, providerList, vaultEvidenceCounter } from "../evidence/labels";
import { retrieveLocal } from "./stages/local-retrieval";
import { buildOutsideEvidence, type DedupeDecision } from "./stages/outside-evidence";
import { planQuestion } from "./stages/plan";
import type { ProgressEvent, ResearchAnswer, ResearchDeps, ResearchRequest, ResearchResult, StageName } from "./types";
import { buildSynthesisPrompt } from "./stages/synthesis-prompt";
import { TraceRecorder } from "./trace-recorder";
import { renderTraceNote, traceNotePath } from "../notes/trace-note";
import { verifyCitations, type CitationCheck } from "./stages/verify-citations";
import { errorMessage } from "../text/error-message";

/** Bounds of one run, whatever the settings say. */
export const RUN_LIMITS = {
  /** The whole run, model included. */
  totalMs: 5 * 60_000,
  /** Local stages (plan through merge) are in-memory work; this only guards against a hang. */
  localStageMs: 20_000,
  /** Provider queries per run (one pass). */
  maxQueries: 2,
  /** Outside URLs per run. */
  maxUrls: 10,
  defaultUrls: 5,
  /** Synthesis attempts: the answer and one repair. */
  synthesisAttempts: 2,
};

class RunStopped extends Error {
  constructor(readonly reason: "timeout" | "cancelled", message: string) {
    super(message);
  }
}

export async function runResearch(request: ResearchRequest, deps: ResearchDeps): Promise<ResearchResult> {
  const { clock, settings } = deps;
  const mode = request.mode ?? "never";
  const providers = request.providers && request.providers.length > 0 ? [...new Set(request.providers)] : settings.external.providers;
  const freshness = request.freshness ?? settings.external.freshness;
  const count = Math.min(RUN_LIMITS.maxUrls, Math.max(1, request.count ?? settings.external.count ?? RUN_LIMITS.defaultUrls));
  const recorder = new TraceRecorder({ question: request.question, mode, providers: mode === "never" ? [] : providers, freshness, clock });
  const deadline = recorder.startedAt + RUN_LIMITS.totalMs;
  const warnings: PackWarning[] = [];

  const progress = (stage: StageName, status: ProgressEvent["status"], detail: string, provider?: ProgressEvent["provider"]) => {
    const event: ProgressEvent = { stage, status, detail, at: recorder.elapsed() };
    if (provider) event.provider = provider;
    deps.onProgress?.(event);
  };
  const checkStop = () => {
    if (deps.signal?.aborted) throw new RunStopped("cancelled", "The run was cancelled.");
    if (clock.now() > deadline) throw new RunStopped("timeout", `The run took longer than ${RUN_LIMITS.totalMs / 1000} s.`);
  };
  /**
   * Runs one stage under its own time limit, with progress events and a timing in the trace. The
   * work gets a signal that aborts when the run is cancelled or the stage runs out of time, so a
   * model or provider call that can be aborted does not go on after the stage gave up on it.
   */
  const stage = async <T>(name: StageName, startDetail: string, limitMs: number, work: (signal: AbortSignal) => Promise<T> | T, doneDetail: (value: T) => string): Promise<T> => {
    checkStop();
    progress(name, "started", startDetail);
    recorder.stageStart(name);
    const controller = new AbortController();
    const cancel = () => controller.abort();
    deps.signal?.addEventListener("abort", cancel, { once: true });
    try {
      const value = await withTimeout(Promise.resolve().then(() => work(controller.signal)), Math.min(limitMs, Math.max(1, deadline - clock.now())), name);
      const detail = doneDetail(value);
      recorder.stageEnd(name, { detail });
      progress(name, "done", detail);
      return value;
    } catch (error) {
      controller.abort();
      recorder.stageEnd(name, { failed: true });
      progress(name, "failed", errorMessage(error));
      throw error;
    } finally {
      deps.signal?.removeEventListener("abort", cancel);
    }
  };

  // What the run has so far; a stop mid-way still returns it, with its trace.
  let plan: QueryPlan = planQuestion(request.question, { history: request.history, clock });
  let vaultRows: VaultRow[] = [];
  let outsideRows: OutsideVaultRow[] = [];
  let judgement: Judgement = { verdict: "no_evidence", reason: "The run stopped before the vault was searched.", missing_terms: [] };
  let externalUsed = false;
  let externalFailed = false;
  /** Why web search failed, provider by provider, for the stop reason's message. */
  const externalFailures: string[] = [];
  let notesSearched = 0;
  const freshnessByProvider: ResearchPack["coverage"]["external_freshness"] = [];

  const packNow = (): ResearchPack => ({
    schema: RESEARCH_PACK_VERSION,
    question: request.question,
    query_plan: plan,
    evidence: vaultRows,
    external_evidence: outsideRows,
    judge: judgement,
    coverage: {
      local_evidence_count: vaultRows.length,
      external_evidence_count: outsideRows.length,
      external_by_provider: countByProvider(outsideRows),
      external_freshness: freshnessByProvider,
      recall_note: recallNote(notesSearched, vaultRows.length, outsideRows, externalUsed, mode),
    },
    warnings,
  });

  const finish = async (stop: StopReason, extra: Partial<ResearchResult> = {}): Promise<ResearchResult> => {
    const pack = packNow();
    const writeTrace = request.writeTrace ?? settings.notes.writeTraceNotes;
    let tracePath: string | undefined;
    let trace = recorder.finish(stop, pack, extra.answer);
    if (writeTrace) {
      progress("trace", "started", "Writing the trace note");
      try {
        tracePath = await traceNotePath(settings.notes.traceFolder, trace, (p) => deps.store.exists(p));
        trace = recorder.finish(stop, pack, extra.answer);
        await deps.store.create(tracePath, renderTraceNote(trace));
        progress("trace", "done", `Trace note: ${tracePath}`);
      } catch (error) {
        warnings.push({ kind: "trace_not_written", message: `The trace note could not be written: ${errorMessage(error)}` });
        progress("trace", "failed", errorMessage(error));
        tracePath = undefined;
      }
    } else {
      progress("trace", "skipped", "Trace notes are off for this run");
    }
    const result: ResearchResult = { ...extra, pack: packNow(), stop_reason: stop, trace };
    if (tracePath) result.trace_path = tracePath;
    return result;
  };

  try {
    plan = await stage("plan", "Planning", RUN_LIMITS.localStageMs, () => plan, (p) => `${p.terms.length} search terms${p.freshness.flagged ? "; asks about the current state" : ""}`);

    const local = await stage(
      "local_retrieval",
      "Searching the vault",
      RUN_LIMITS.localStageMs,
      () => retrieveLocal(plan, deps.index, deps.store),
      (l) => `${l.rows.length} of ${l.notesSearched} notes matched`,
    );
    vaultRows = local.rows;
    notesSearched = local.notesSearched;

    judgement = await stage(
      "judge",
      "Judging the vault evidence",
      RUN_LIMITS.localStageMs,
      () => {
        const { figures: _figures, ...j } = judgeEvidence(plan, local.results);
        return j;
      },
      (j) => `${j.verdict.replace(/_/g, " ")}: ${j.reason}`,
    );

    // ── external policy ──
    const decision = await stage(
      "external_policy",
      "Deciding whether to look outside the vault",
      RUN_LIMITS.localStageMs,
      () => decideExternal(mode, judgement, plan),
      (d) => d.reason,
    );
    if (!decision.search) {
      recorder.event("external_search_skipped", { reason: decision.reason, mode });
    } else if (providers.length === 0) {
      recorder.event("external_search_skipped", { reason: "no provider is enabled", mode });
      warnings.push({ kind: "no_provider", message: "External search was allowed but no provider is enabled in settings." });
      externalFailures.push("No provider is enabled in settings.");
      externalFailed = true;
    } else {
      // ── external retrieval ──
      const session = deps.searchSession ?? createSearchSession({ clock });
      const secrets = recordingSecrets(deps.secrets, recorder);
      const context: ProviderContext = { http: deps.http, secrets, clock, settings, governor: session.governor };
      const queries = plan.provider_queries.slice(0, RUN_LIMITS.maxQueries);
      const gathered = await stage(
        "external_retrieval",
        `Searching the web with ${providerList(providers)}`,
        settings.external.timeoutMs + 5000,
        async (signal) => {
          const all: MergedResult[] = [];
          const failures: { provider: string; kind: string; message: string }[] = [];
          let answered = 0;
          for (const query of queries) {
            checkStop();
            recorder.event("external_query_built", { query, from: "question" });
            for (const provider of providers) {
              progress("external_retrieval", "started", `Asking ${providerDisplayName(provider)}`, provider);
              recorder.event("external_provider_request", { provider, query, count, freshness });
            }
            recorder.querySent(query);
            const outcome = await searchProviders(providers, { query, count, freshness, timeoutMs: settings.external.timeoutMs, maxTokens: settings.external.tokenBudget }, { ...context, signal }, session);
            for (const response of outcome.responses) {
              answered++;
              recorder.event("external_provider_response", {
                provider: response.provider,
                endpoint: response.endpoint,
                results: response.results.length,
                urls: response.results.slice(0, 10).map((r) => r.url),
                titles: response.results.slice(0, 10).map((r) => r.title),
                cached: response.cached === true,
                warnings: response.warnings,
              });
              for (const w of response.warnings) warnings.push({ kind: "provider_warning", message: `${providerDisplayName(response.provider)}: ${w}` });
              const newest = response.results.map((r) => r.publishedAt).filter((d): d is string => !!d).sort().pop();
              if (!freshnessByProvider.some((f) => f.provider === response.provider)) {
                freshnessByProvider.push(newest ? { provider: response.provider, requested: freshness, newest_published_at: newest } : { provider: response.provider, requested: freshness });
              }
            }
            for (const { provider, error } of outcome.errors) {
              failures.push({ provider, kind: error.kind, message: error.message });
              recorder.error("external_retrieval", error.kind, error.message, provider);
              recorder.event("external_provider_response", { provider, error: error.kind, message: error.message });
            }
            all.push(...outcome.results);
          }
          return { all, failures, answered };
        },
        (g) => `${g.all.length} web results from ${g.answered} answer${g.answered === 1 ? "" : "s"}${g.failures.length ? `; ${g.failures.length} provider error${g.failures.length === 1 ? "" : "s"}` : ""}`,
      );
      externalUsed = true;
      for (const f of gathered.failures) {
        const failed = `${providerDisplayName(f.provider)} failed (${f.kind}): ${f.message}`;
        externalFailures.push(failed);
        warnings.push({ kind: `provider_${f.kind}`, message: `${failed} Vault results are kept.` });
      }
      if (gathered.answered === 0 && gathered.failures.length > 0) externalFailed = true;

      // ── normalize, dedupe ──
      const outside = await stage(
        "normalize",
        "Normalising and removing duplicates",
        RUN_LIMITS.localStageMs,
        () => buildOutsideEvidence(gathered.all, plan, vaultRows, deps.index, deps.store, { count, tokenBudget: settings.external.tokenBudget, now: clock.now() }),
        (o) => `${o.rows.length} outside rows; ${o.decisions.length} duplicates folded`,
      );
      for (const d of outside.decisions) recordDedupe(recorder, d);
      vaultRows = outside.vaultRows;
      outsideRows = outside.rows;
      for (const row of outsideRows) recorder.event("external_evidence_selected", { key: row.source_key, url: row.url, title: row.title, provider: row.provider });
    }

    await stage(
      "merge",
      "Merging vault and outside evidence",
      RUN_LIMITS.localStageMs,
      () => {
        recorder.event("external_merge_completed", { vault_rows: vaultRows.length, outside_rows: outsideRows.length, freshness_question: plan.freshness.flagged });
        return null;
      },
      () => `${vaultEvidenceCounter(vaultRows.length)}; ${outsideVaultCounter(outsideRows.length, providersOf(outsideRows))}`,
    );

    if (externalFailed && vaultRows.length === 0) {
      // Not the provider warnings themselves: they promise vault results that do not exist here.
      const why = externalFailures.join(" ");
      warnings.push({ kind: "external_required_failed", message: `External search was needed because the vault has nothing on this, and it failed. ${why}`.trim() });
      return await finish("external_required_failed");
    }
    if (request.retrievalOnly) return await finish("retrieval_only");

    // ── synthesis ──
    const pack = packNow();
    const prompt = await stage(
      "prepare_synthesis",
      "Preparing the evidence for the answer",
      RUN_LIMITS.localStageMs,
      () => buildSynthesisPrompt(pack),
      (p) => `${p.admitted.size} rows admitted${p.dropped.length ? `, ${p.dropped.length} left out for room` : ""}${p.trimmed.length ? `, ${p.trimmed.length} trimmed` : ""}`,
    );
    if (prompt.dropped.length || prompt.trimmed.length) {
      recorder.event("prepare_synthesis", { dropped: prompt.dropped, trimmed: prompt.trimmed });
    }
    const evidenceExisted = prompt.admitted.size > 0;
    let stop: StopReason = baseStopReason(judgement, externalFailed, vaultRows.length);
    let answer: ResearchAnswer;
    let check: CitationCheck;

    if (!deps.model) {
      const brief = await stage("synthesize", "Writing an evidence brief (no model)", RUN_LIMITS.localStageMs, () => writeEvidenceBrief(pack, { admitted: prompt.admitted }), () => "Extractive evidence brief written");
      answer = { text: brief.text, kind: "extractive", verified: true };
      check = await stage("verify", "Checking citations", RUN_LIMITS.localStageMs, () => verifyCitations(brief.text, prompt.admitted, { evidenceExisted, claimedNoEvidence: !evidenceExisted }), describeCheck);
    } else {
      const model = deps.model;
      const messages: { role: "user" | "assistant"; content: string }[] = [{ role: "user", content: prompt.user }];
      let text: string | null = null;
      let modelName = model.name;
      try {
        const first = await stage("synthesize", `Writing the answer with ${model.name}`, settings.model.timeoutMs, (signal) => model.complete({ system: prompt.system, messages, signal }), () => "Answer written");
        text = first.text;
        modelName = first.model;
      } catch (error) {
        if (error instanceof RunStopped) throw error;
        if (deps.signal?.aborted) throw new RunStopped("cancelled", "The run was cancelled.");
        const message = error instanceof ModelError ? error.message : errorMessage(error);
        recorder.error("synthesize", error instanceof ModelError ? error.kind : "error", message);
        warnings.push({ kind: "synthesis_unavailable", message: `The model could not answer (${message}); an extractive evidence brief is shown instead.` });
      }
      if (text === null) {
        const brief = writeEvidenceBrief(pack, { admitted: prompt.admitted });
        answer = { text: brief.text, kind: "extractive", verified: true };
        check = verifyCitations(brief.text, prompt.admitted, { evidenceExisted, claimedNoEvidence: !evidenceExisted });
        stop = "synthesis_unavailable";
      } else {
        check = await stage("verify", "Checking citations", RUN_LIMITS.localStageMs, () => verifyCitations(text!, prompt.admitted, { evidenceExisted }), describeCheck);
        if (!check.passed) {
          // One repair: the model sees exactly what was wrong and which keys exist.
          messages.push({ role: "assistant", content: text }, { role: "user", content: repairRequest(check, prompt.admitted) });
          try {
            const repaired = await stage("synthesize", "Repairing citations", settings.model.timeoutMs, (signal) => model.complete({ system: prompt.system, messages, signal }), () => "Repaired answer written");
            text = repaired.text;
            check = await stage("verify", "Checking citations again", RUN_LIMITS.localStageMs, () => verifyCitations(text!, prompt.admitted, { evidenceExisted }), describeCheck);
          } catch (error) {
            if (error instanceof RunStopped) throw error;
            recorder.error("synthesize", error instanceof ModelError ? error.kind : "error", `Repair failed: ${errorMessage(error)}`);
          }
        }
        answer = { text, kind: "model", verified: check.passed, model: modelName };
        if (!check.passed) stop = "verification_failed";
      }
    }
    if (!check.passed && answer.kind === "extractive") answer.verified = false;
    const citations: Citation[] = check.citations;
    return await finish(stop, {
      answer,
      citations,
      verification: { passed: check.passed, errors: check.errors, warnings: check.warnings },
    });
  } catch (error) {
    if (error instanceof RunStopped) {
      warnings.push({ kind: error.reason, message: error.message });
      return finish(error.reason);
    }
    if (error instanceof StageTimeout) {
      warnings.push({ kind: "timeout", message: error.message });
      recorder.error(error.stage, "timeout", error.message);
      return finish("timeout");
    }
    throw error;
  }
}

/** The external policy: whether this run may, and should, look outside the vault. */
export function decideExternal(mode: ResearchRequest["mode"], judgement: Judgement, plan: QueryPlan): { search: boolean; reason: string } {
  if (mode === "never" || mode === undefined) return { search: false, reason: "External search is off for this run; nothing left the device." };
  if (mode === "always") return { search: true, reason: "External search is set to always for this run." };
  if (plan.freshness.flagged) {
    return { search: true, reason: `The question asks about the current state ("${plan.freshness.cues.join('", "')}"); the vault may be out of date, so the web is searched.` };
  }
  if (judgement.verdict !== "enough_evidence") {
    return { search: true, reason: `The vault's evidence is ${judgement.verdict === "no_evidence" ? "missing" : "weak"}, so the web is searched (mode: if vault is weak).` };
  }
  return { search: false, reason: "The vault has enough evidence; the web was not searched." };
}

function baseStopReason(judgement: Judgement, externalFailed: boolean, vaultRows: number): StopReason {
  if (externalFailed && vaultRows > 0) return "external_failed_local_used";
  return judgement.verdict;
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

function recordDedupe(recorder: TraceRecorder, d: DedupeDecision): void {
  recorder.event("external_result_deduped", d.kind === "local_source" ? { url: d.url, provider: d.provider, kept: "vault", note: d.note_path } : { url: d.url, provider: d.provider, kept: "first_provider" });
}

function countByProvider(rows: OutsideVaultRow[]): { key: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const r of rows) counts.set(r.provider, (counts.get(r.provider) ?? 0) + 1);
  return Array.from(counts, ([key, count]) => ({ key, count }));
}

function providersOf(rows: OutsideVaultRow[]): string[] {
  return Array.from(new Set(rows.map((r) => r.provider)));
}

function recallNote(notes: number, vaultRows: number, outside: OutsideVaultRow[], externalUsed: boolean, mode: string): string {
  const vault = `Searched ${notes} note${notes === 1 ? "" : "s"}; ${vaultRows} matched.`;
  if (!externalUsed) return `${vault} Web search not used (mode: ${mode}).`;
  return `${vault} Web search added ${outside.length} outside row${outside.length === 1 ? "" : "s"}${outside.length ? ` from ${providerList(providersOf(outside))}` : ""}.`;
}

/** Secrets that tell the trace which values to scrub as soon as they are looked up. */
function recordingSecrets(secrets: Secrets, recorder: TraceRecorder): Secrets {
  return {
    async get(name: SecretName) {
      const value = await secrets.get(name);
      recorder.addSecrets(value);
      return value;
    },
  };
}

class StageTimeout extends Error {
  constructor(
    readonly stage: StageName,
    ms: number,
  ) {
    super(`The ${stage.replace(/_/g, " ")} stage took longer than ${Math.round(ms / 1000)} s.`);
  }
}

async function withTimeout<T>(work: Promise<T>, ms: number, stage: StageName): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StageTimeout(stage, ms)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}

