// `index --json` says where the vault's language was learned and, when it was learned on the CLI's
// own thread because of a worker thread, which of three things kept it from one: a worker that
// never started, one that started and failed, or one whose answer could not be used.
import { describe, expect, it } from "vitest";
import { indexReportJson, indexReportSchema, type LanguageReport } from "../../../src/cli/json/index-report-json";
import type { IndexStatus, SyncReport } from "../../../src/index/types";

const status: IndexStatus = { notes: 3000, lastUpdated: 1, state: "ready", problems: [], vaultLanguage: "ready" };
const sync: SyncReport = { mode: "rebuild", rebuildReason: { kind: "no_cache" }, added: 3000, updated: 0, removed: 0, unchanged: 0, ms: 10 };

function languageOf(language: LanguageReport) {
  const json = indexReportJson("/vault", status, sync, "/cache/manifest.v8", language, []);
  // Whatever it says, it says it in the documented shape.
  expect(indexReportSchema.safeParse(json).success).toBe(true);
  return json.vault_language;
}

describe("index_report.v1: where the vault's language was learned", () => {
  it("names a worker thread that could not be started, with its reason", () => {
    const worker = { kind: "not_started" as const, reason: "this build carries no worker code" };
    expect(languageOf({ on: true, learnedIn: "this thread", worker })).toEqual({
      state: "ready",
      learned_in: "this thread",
      worker_problem: { kind: "not_started", message: "this build carries no worker code" },
    });
  });

  it("tells a worker that started and failed from one that never started", () => {
    const worker = { kind: "failed" as const, reason: "the worker ran out of room" };
    expect(languageOf({ on: true, learnedIn: "this thread", worker }).worker_problem).toEqual({ kind: "failed", message: "the worker ran out of room" });
  });

  it("says when the worker answered but its answer could not be used", () => {
    expect(languageOf({ on: true, learnedIn: "this thread", worker: { kind: "answered" } }).worker_problem).toEqual({
      kind: "answer_unusable",
      message: "The worker thread's answer could not be used.",
    });
  });

  it("adds no worker_problem when a worker learned it, nothing was learned, or no worker was tried (output as before)", () => {
    const failed = { kind: "failed" as const, reason: "earlier" };
    expect(languageOf({ on: true, learnedIn: "worker", worker: { kind: "answered" } })).toEqual({ state: "ready", learned_in: "worker" });
    expect(languageOf({ on: true, learnedIn: null, worker: failed })).toEqual({ state: "ready", learned_in: null });
    expect(languageOf({ on: true, learnedIn: "this thread", worker: null })).toEqual({ state: "ready", learned_in: "this thread" });
    expect(languageOf({ on: true, learnedIn: "this thread" })).toEqual({ state: "ready", learned_in: "this thread" });
  });

  it("documents learned_in with every reason the CLI's own thread is used, not only a worker that could not be had", () => {
    const shape = indexReportSchema.shape.vault_language.shape;
    expect(shape.learned_in.description).toContain("the one started failed or gave no usable answer");
    expect(shape.worker_problem.unwrap().shape.kind.options).toEqual(["not_started", "failed", "answer_unusable"]);
  });
});
