// The run's second, bounded local pass, between local retrieval and the judge: the model's
// local-only rewrites of the question (when a chat model is configured and its levers are on) and
// the related expansion along the best notes' links and tags (when the run has the vault's link
// graph). Each adds at most three notes to the pack, as rows whose lane and signal say how they
// were found, and hands them to the judge. Either can fail, run out of its stage's time (the first
// use of the link graph reads every note) or find nothing; the first search's rows always stand,
// and the run goes on to its verdict. What each did goes into the trace (a `local_retrieval` event).
import type { VaultRow } from "../../evidence/research-pack";
import type { SearchResult } from "../../index/types";
import { createAnalyzer } from "../../index/tokenize";
import { oneLine } from "../../text/one-line";
import { RUN_LIMITS, workTimeLeft } from "../run-limits";
import type { RunState } from "../run-state";
import { RunStopped, StageTimedOut } from "../stage-runner";
import { relationWords, type RelatedResult } from "./judge";
import { toVaultRow, weighedForJudge } from "./local-retrieval";
import { rewriteForLocalSearch } from "./question-rewrites";
import { expandAlongLinks } from "./related-expansion";

/** The levers of the second pass a run may use (absent: none; the default). */
export interface SecondPassLevers {
  rewrites: boolean;
  related: boolean;
}

export function secondPassLevers(run: RunState): SecondPassLevers {
  return { rewrites: run.deps.model !== null && run.deps.modelLevers === true, related: run.deps.links !== undefined };
}

/** Notes found beyond the first search, in the order found; their rows are already in the pack. */
export async function secondLocalPass(run: RunState, searched: SearchResult[]): Promise<RelatedResult[]> {
  const levers = secondPassLevers(run);
  const added: RelatedResult[] = [];
  if (levers.rewrites) added.push(...(await leverPass(run, "question_rewrite", () => rewritesPass(run, searched))));
  if (levers.related) added.push(...(await leverPass(run, "related_expansion", () => relatedPass(run, [...searched, ...added.map((a) => a.result)]))));
  return added;
}

/**
 * One lever's pass. Out of its stage's time it adds nothing, says so in the trace, and the run goes
 * on; stopped by the user, the trace says it was stopped (no failure of the lever's) and the run stops.
 */
async function leverPass(run: RunState, lever: "question_rewrite" | "related_expansion", pass: () => Promise<RelatedResult[]>): Promise<RelatedResult[]> {
  // A run stopped before the lever began: the lever never ran, and its trace says nothing of it.
  run.stages.checkStop();
  try {
    return await pass();
  } catch (error) {
    if (error instanceof RunStopped && error.kind === "cancelled") run.recorder.event("local_retrieval", { lever, status: "stopped" });
    if (!(error instanceof StageTimedOut)) throw error;
    run.recorder.event("local_retrieval", { lever, status: "failed", why: "timeout", message: error.message });
    return [];
  }
}

async function rewritesPass(run: RunState, searched: SearchResult[]): Promise<RelatedResult[]> {
  const model = run.deps.model!;
  const outcome = await run.stages.run({
    name: "local_retrieval",
    start: "Searching the vault with other words for the question",
    limitMs: RUN_LIMITS.localStageMs,
    work: async (signal) => {
      const rewritten = await rewriteForLocalSearch(run.request.question, run.plan, searched, { model, index: run.deps.index, store: run.deps.store, clock: run.deps.clock, ms: timeLeft(run), signal });
      // A call cut short by the user's Stop is the stop, not a model that failed: the stage ends stopped.
      if (rewritten.kind === "failed" && rewritten.failure.kind === "cancelled") run.stages.checkStop();
      return rewritten;
    },
    done: (o) => (o.kind === "rewritten" ? `${o.rewrites.length} rewrites searched in the vault only; ${o.added.length} notes added` : `No rewrites: ${o.failure.message}`),
  });
  if (outcome.kind === "failed") {
    run.recorder.event("local_retrieval", { lever: "question_rewrite", status: "failed", why: outcome.failure.kind, message: outcome.failure.message });
    return [];
  }
  run.recorder.event("local_retrieval", { lever: "question_rewrite", status: "used", model: outcome.model, rewrites: outcome.rewrites, added: outcome.added.map((a) => a.result.path) });
  addRows(run, outcome.added);
  // Weighed as the first search's notes are: what a note says only in a list of links is not counted.
  const weighed = await weighedForJudge(outcome.added.map((a) => a.result), run.deps.store, createAnalyzer({ stemming: run.deps.settings.index.stemming }));
  return outcome.added.map((a, i) => ({ ...a, result: weighed[i] }));
}

async function relatedPass(run: RunState, searched: SearchResult[]): Promise<RelatedResult[]> {
  const links = run.deps.links!;
  const expansion = await run.stages.run({
    name: "local_retrieval",
    start: "Looking along the best notes' links and tags",
    limitMs: RUN_LIMITS.localStageMs,
    work: async (signal) => {
      await links.sync(run.deps.index, run.deps.store, signal);
      const analyzer = createAnalyzer({ stemming: run.deps.settings.index.stemming });
      return expandAlongLinks(run.plan, searched, { index: run.deps.index, store: run.deps.store, links, analyzer, signal });
    },
    done: (x) => `${x.related.length} related notes weighed (${x.added.length} new) of ${x.considered} linked or tagged`,
  });
  const joined = addRows(run, expansion.related);
  run.recorder.event("local_retrieval", {
    lever: "related_expansion",
    status: expansion.related.length > 0 ? "used" : "nothing_related",
    considered: expansion.considered,
    related: expansion.related.map((a) => ({ path: a.result.path, ...(a.found.kind === "link" ? { from: a.found.from, how: relationWords(a.found.relation) } : {}), joined_pack: joined.has(a.result.path) })),
  });
  return expansion.related;
}

/** Notes not yet in the pack join it as rows, after the first search's, each saying how it was found; returns their paths. */
function addRows(run: RunState, added: RelatedResult[]): Set<string> {
  const joined = new Set<string>();
  const required = run.plan.required_terms.length > 0 ? run.plan.required_terms : run.plan.terms;
  const paths = run.deps.index.paths();
  const inPack = new Set(run.vaultRows.map((r) => r.note_path));
  for (const a of added) {
    if (inPack.has(a.result.path)) continue;
    const lane = a.found.kind === "link" ? "related_expansion" : "question_rewrite";
    const row: VaultRow = toVaultRow(a.result, required, [{ name: lane, status: "used" }], run.plan.tags, paths);
    const detail = a.found.kind === "link" ? `"${oneLine(a.found.fromTitle)}" ${relationWords(a.found.relation)} it` : `found by the rewrite "${a.found.rewrite}" (searched in the vault only)`;
    row.retrieval.signals.unshift({ name: lane, detail, weight: 0 });
    run.vaultRows.push(row);
    inPack.add(a.result.path);
    joined.add(a.result.path);
  }
  return joined;
}

/** What is left of the run's budget for one model call, the run's end margin kept for the stages after it. */
export function timeLeft(run: RunState): number {
  return Math.max(0, workTimeLeft(run.recorder, Number.POSITIVE_INFINITY)());
}
