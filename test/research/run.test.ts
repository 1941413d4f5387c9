// How a research run ends: normally (model or evidence brief), early on request (retrieval
// only), or cut short (cancelled, out of time, model unavailable) — always with the pack it had
// so far and a trace that says why.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { nodePageReader } from "../../src/cli/dom-parser";
import { researchPackSchema } from "../../src/evidence/research-pack";
import { renderTraceNote } from "../../src/notes/trace-note";
import { QuestionRefused } from "../../src/research/key-in-question";
import { RUN_LIMITS } from "../../src/research/run-limits";
import { stageNames, type ProgressEvent, type ResearchResult } from "../../src/research/types";
import { ModelError } from "../../src/llm/chat-model";
import { problemsOf } from "../../src/ui/run-problems";
import { keysInPrompt, scriptedModel, stalledModel } from "../support/scripted-model";
import { replayFolder, REPO_ROOT } from "../support/recording-http";
import { ANSWERED_QUESTION, FRESHNESS_QUESTION, sampleVaultHarness } from "../support/research-harness";

/** Lets pending promise callbacks and timers run, until `done` or a bound. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 0));
}

describe("a normal run", () => {
  it("without a model writes an extractive evidence brief whose citations verify, and streams every stage in order", async () => {
    const h = await sampleVaultHarness();
    const result = await h.run({ question: ANSWERED_QUESTION });

    expect(() => researchPackSchema.parse(result.pack)).not.toThrow();
    expect(result.stop_reason).toBe("enough_evidence");
    expect(result.answer).toMatchObject({ kind: "extractive", verified: true });
    expect(result.verification?.passed).toBe(true);
    const vaultKeys = new Set(result.pack.evidence.map((r) => r.source_key));
    expect(result.citations!.length).toBeGreaterThan(0);
    for (const c of result.citations!) expect(vaultKeys.has(c.source_key)).toBe(true);

    const started = h.progress.filter((e) => e.status !== "done" && e.status !== "failed").map((e) => e.stage);
    const order = [...new Set(started)];
    expect(order).toEqual(stageNames.filter((s) => s !== "external_retrieval" && s !== "normalize" && s !== "read_pages"));
  });

  it("with a model returns its answer when the citations check out", async () => {
    const model = scriptedModel([(req) => `The team picked Automerge for its full history [${keysInPrompt(req, "src")[0]}].`]);
    const h = await sampleVaultHarness({ model });
    const result = await h.run({ question: ANSWERED_QUESTION });

    expect(model.calls).toHaveLength(1);
    expect(model.calls[0].system).toMatch(/Cite every claim/);
    expect(result.answer).toMatchObject({ kind: "model", verified: true, model: model.name });
    expect(result.stop_reason).toBe("enough_evidence");
  });
});

describe("retrieval-only", () => {
  it("stops before synthesis: stop_reason retrieval_only, no model call, the full pack", async () => {
    const model = scriptedModel([]);
    const h = await sampleVaultHarness({ model });
    const result = await h.run({ question: FRESHNESS_QUESTION, mode: "on-weak", retrievalOnly: true });

    expect(result.stop_reason).toBe("retrieval_only");
    expect(model.calls).toHaveLength(0);
    expect(result.answer).toBeUndefined();
    expect(result.verification).toBeUndefined();
    // Retrieval includes the web when the mode allows it.
    expect(result.pack.evidence.length).toBeGreaterThan(0);
    expect(result.pack.external_evidence.length).toBeGreaterThan(0);
    const stages = new Set(h.progress.map((e) => e.stage));
    expect(stages.has("prepare_synthesis")).toBe(false);
    expect(stages.has("synthesize")).toBe(false);
    expect(h.store.text(result.trace_path!)).toMatch(/retrieval only was asked/);
  });
});

describe("cancellation", () => {
  it("a signal aborted before the run starts: cancelled, nothing searched, nothing sent", async () => {
    const model = scriptedModel([]);
    const h = await sampleVaultHarness({ model });
    const controller = new AbortController();
    controller.abort();
    const result = await h.run({ question: FRESHNESS_QUESTION, mode: "always" }, { signal: controller.signal });

    expect(result.stop_reason).toBe("cancelled");
    expect(result.pack.evidence).toEqual([]);
    expect(h.http.requests).toEqual([]);
    expect(model.calls).toHaveLength(0);
    expect(result.pack.warnings.map((w) => w.kind)).toContain("cancelled");
  });

  it("aborted while a provider is being asked: cancelled, with the vault rows found so far and no model call", async () => {
    const controller = new AbortController();
    const model = scriptedModel([]);
    const h = await sampleVaultHarness({ model, httpOptions: { beforeAnswer: () => controller.abort() } });
    const local = await h.run({ question: FRESHNESS_QUESTION, mode: "never", retrievalOnly: true, writeTrace: false });
    const result = await h.run({ question: FRESHNESS_QUESTION, mode: "on-weak" }, { signal: controller.signal });

    expect(h.http.requests.length).toBeGreaterThan(0);
    expect(result.stop_reason).toBe("cancelled");
    expect(result.pack.evidence.map((r) => r.source_key)).toEqual(local.pack.evidence.map((r) => r.source_key));
    expect(result.answer).toBeUndefined();
    expect(model.calls).toHaveLength(0);
    expect(result.trace.stop_reason).toBe("cancelled");
    expect(renderTraceNote(result.trace)).toMatch(/stop_reason: cancelled/);
  });

  it("cancelled mid web search: the pack says the search was stopped, neither that the web was not used (it said 'Web search not used') nor that it found nothing (it said 'Web search added 0 outside rows.')", async () => {
    const controller = new AbortController();
    const h = await sampleVaultHarness({ httpOptions: { beforeAnswer: () => controller.abort() } });
    const result = await h.run({ question: FRESHNESS_QUESTION, mode: "always", writeTrace: false }, { signal: controller.signal });

    expect(result.stop_reason).toBe("cancelled");
    expect(result.trace.queries_sent).toHaveLength(1);
    expect(result.pack.coverage.recall_note).toMatch(/Web search stopped before Brave answered\.$/);
  });

  it("a cancelled run says where it stopped: during a stage, or after the last one that finished (it said only 'The run was cancelled.')", async () => {
    const duringSearch = new AbortController();
    const h = await sampleVaultHarness({ httpOptions: { beforeAnswer: () => duringSearch.abort() } });
    const searching = await h.run({ question: FRESHNESS_QUESTION, mode: "always", writeTrace: false }, { signal: duringSearch.signal });
    expect(searching.pack.warnings.find((w) => w.kind === "cancelled")?.message).toBe("The run was cancelled during the external retrieval stage.");

    const afterSearch = new AbortController();
    const stopAtSearch = (e: ProgressEvent) => {
      if (e.stage === "local_retrieval" && e.status === "done") afterSearch.abort();
    };
    const searched = await h.run({ question: FRESHNESS_QUESTION, writeTrace: true }, { signal: afterSearch.signal, onProgress: stopAtSearch });
    expect(searched.pack.warnings.find((w) => w.kind === "cancelled")?.message).toBe("The run was cancelled after the local retrieval stage.");
    expect(renderTraceNote(searched.trace)).toContain("The run was cancelled after the local retrieval stage.");
  });

  it("cancelled once the vault was searched, before the judge: its rows stay, and nothing says the vault was not searched", async () => {
    const controller = new AbortController();
    const h = await sampleVaultHarness();
    const stopAtSearch = (e: ProgressEvent) => {
      if (e.stage === "local_retrieval" && e.status === "done") controller.abort();
    };
    const result = await h.run({ question: FRESHNESS_QUESTION, mode: "on-weak" }, { signal: controller.signal, onProgress: stopAtSearch });

    expect(result.stop_reason).toBe("cancelled");
    expect(result.pack.evidence.length).toBeGreaterThan(0);
    expect(result.pack.judge.reason).toBe("The run stopped after the vault was searched, before its evidence was judged.");
    const note = renderTraceNote(result.trace);
    expect(note).not.toMatch(/before the vault was searched/);
    expect(note).toMatch(/before its evidence was judged/);
  });

  it("aborted while the model writes: cancelled, with the whole pack (vault and outside rows)", async () => {
    const controller = new AbortController();
    const model = stalledModel(() => controller.abort());
    const h = await sampleVaultHarness({ model });
    const result = await h.run({ question: FRESHNESS_QUESTION, mode: "on-weak" }, { signal: controller.signal });

    expect(model.calls).toHaveLength(1);
    expect(result.stop_reason).toBe("cancelled");
    expect(result.answer).toBeUndefined();
    expect(result.pack.evidence.length).toBeGreaterThan(0);
    expect(result.pack.external_evidence.length).toBeGreaterThan(0);
  });

  it("cancelled while the model repairs its citations: cancelled, and the draft is not shown as a finished run (it ended as verification_failed)", async () => {
    const controller = new AbortController();
    const model = scriptedModel([
      "The team picked Automerge [src:0000000000].",
      (req) =>
        new Promise<string>((_, reject) => {
          req.signal?.addEventListener("abort", () => reject(new ModelError("cancelled", "The model call was cancelled.")));
          controller.abort();
        }),
    ]);
    const h = await sampleVaultHarness({ model });
    const result = await h.run({ question: ANSWERED_QUESTION }, { signal: controller.signal });

    expect(model.calls).toHaveLength(2);
    expect(result.stop_reason).toBe("cancelled");
    expect(result.answer).toBeUndefined();
    expect(result.trace.errors).toEqual([]);
    expect(renderTraceNote(result.trace)).toMatch(/stop_reason: cancelled/);
  });

  it("Stop while the vault search waits on a note read that never returns: cancelled within the grace, not after the stage's 20 s", async () => {
    const controller = new AbortController();
    const h = await sampleVaultHarness();
    h.store.read = () => new Promise<string>(() => {});
    let result: ResearchResult | undefined;
    const stopOnSearch = (e: ProgressEvent) => {
      if (e.stage === "local_retrieval" && e.status === "started") controller.abort();
    };
    void h.run({ question: ANSWERED_QUESTION, writeTrace: false }, { signal: controller.signal, onProgress: stopOnSearch }).then((r) => (result = r));
    await until(() => controller.signal.aborted && h.clock.pendingTimers() > 0);
    h.clock.advance(RUN_LIMITS.cancelGraceMs);
    await until(() => result !== undefined);

    expect(result?.stop_reason).toBe("cancelled");
    expect(result?.pack.warnings.map((w) => w.kind)).toEqual(["cancelled"]);
  });
});

describe("a stopped run writes nothing into the vault", () => {
  const traceNotes = (h: { store: { paths(): string[] }; settings: { notes: { traceFolder: string } } }) => h.store.paths().filter((p) => p.startsWith(`${h.settings.notes.traceFolder}/`));

  it("Stop during the web search with trace notes on: no trace note (one was written after Stop), the result keeps the trace and says why there is no note", async () => {
    const controller = new AbortController();
    const h = await sampleVaultHarness({ httpOptions: { beforeAnswer: () => controller.abort() } });
    const result = await h.run({ question: FRESHNESS_QUESTION, mode: "always" }, { signal: controller.signal });

    expect(result.stop_reason).toBe("cancelled");
    expect(traceNotes(h)).toEqual([]);
    expect(result.trace_path).toBeUndefined();
    expect(result.trace.queries_sent).toHaveLength(1);
    expect(result.pack.warnings.find((w) => w.kind === "trace_not_written")?.message).toBe("The run was stopped, so no trace note was written into the vault.");
    expect(h.progress.at(-1)).toMatchObject({ stage: "trace", status: "skipped", detail: "The run was stopped, so no trace note was written into the vault." });
  });

  it("Stop after the last stage, as the answer is checked: still no trace note", async () => {
    const controller = new AbortController();
    const h = await sampleVaultHarness();
    const stopAtVerify = (e: ProgressEvent) => {
      h.progress.push(e);
      if (e.stage === "verify" && e.status === "done") controller.abort();
    };
    const result = await h.run({ question: ANSWERED_QUESTION }, { signal: controller.signal, onProgress: stopAtVerify });

    expect(result.answer).toBeDefined();
    expect(traceNotes(h)).toEqual([]);
    expect(result.pack.warnings.map((w) => w.kind)).toEqual(["trace_not_written"]);
  });

  it("Stop heard as the note is about to be written: no note", async () => {
    const controller = new AbortController();
    const h = await sampleVaultHarness();
    const stopAtWrite = (e: ProgressEvent) => {
      h.progress.push(e);
      if (e.stage === "trace" && e.status === "started") controller.abort();
    };
    const result = await h.run({ question: ANSWERED_QUESTION }, { signal: controller.signal, onProgress: stopAtWrite });

    expect(traceNotes(h)).toEqual([]);
    expect(result.trace_path).toBeUndefined();
    expect(result.trace.pack.warnings.map((w) => w.kind)).toEqual(["trace_not_written"]);
  });

  it("Stop heard as page reading starts: no page is fetched after it", async () => {
    const controller = new AbortController();
    const h = await sampleVaultHarness({ exchanges: replayFolder(path.join(REPO_ROOT, "evals/research/replay/page-reading")) });
    let requestsAtStop = -1;
    const stopAtPages = (e: ProgressEvent) => {
      h.progress.push(e);
      if (e.stage !== "read_pages" || e.status !== "started" || controller.signal.aborted) return;
      controller.abort();
      requestsAtStop = h.http.requests.length;
    };
    const question = "How long does Quillsync keep tombstones before compacting them?";
    const result = await h.run({ question, mode: "on-weak", providers: ["brave-web"] }, { signal: controller.signal, onProgress: stopAtPages, readPage: nodePageReader });

    expect(requestsAtStop).toBeGreaterThan(0);
    expect(h.http.requests).toHaveLength(requestsAtStop);
    expect(result.stop_reason).toBe("cancelled");
  });

  it("a run not stopped still writes its note", async () => {
    const h = await sampleVaultHarness();
    const result = await h.run({ question: ANSWERED_QUESTION }, { signal: new AbortController().signal });
    expect(traceNotes(h)).toEqual([result.trace_path]);
  });
});

describe("timeouts", () => {
  it("the run's time budget running out during web search: timeout, with the vault rows kept", async () => {
    const model = scriptedModel([]);
    const h = await sampleVaultHarness({
      model,
      // The provider takes the whole run budget (on the fake clock).
      httpOptions: { beforeAnswer: () => h.clock.advance(RUN_LIMITS.totalMs + 1) },
    });
    const result = await h.run({ question: FRESHNESS_QUESTION, mode: "on-weak" });

    expect(result.stop_reason).toBe("timeout");
    expect(result.pack.evidence.length).toBeGreaterThan(0);
    expect(result.answer).toBeUndefined();
    expect(model.calls).toHaveLength(0);
    expect(result.pack.warnings.find((w) => w.kind === "timeout")?.message).toMatch(/longer than/);
  });

  it("a stage that hangs past its limit: timeout, naming the stage", async () => {
    const h = await sampleVaultHarness();
    // After indexing, reading notes hangs; and the run has only 50 ms of its budget left after planning.
    h.store.read = () => new Promise<string>(() => {});
    const result = await h.run(
      { question: ANSWERED_QUESTION },
      {
        onProgress: (e) => {
          if (e.stage === "plan" && e.status === "done") h.clock.advance(RUN_LIMITS.totalMs - 50);
        },
      },
    );

    expect(result.stop_reason).toBe("timeout");
    expect(result.trace.errors).toContainEqual(expect.objectContaining({ stage: "local_retrieval", kind: "timeout" }));
    // The run's budget, not the stage's 20 s, cut it short: the message says so (it said "took longer than 0 s").
    expect(result.pack.warnings.find((w) => w.kind === "timeout")?.message).toBe(`The run's time (${RUN_LIMITS.totalMs / 1000} s in all) ran out during the local retrieval stage.`);
  });

  it("a model that does not answer within its stage limit: the evidence brief is shown instead (synthesis_unavailable)", async () => {
    const model = stalledModel();
    // Below the settings schema's floor on purpose: the limit is what is under test, not its value.
    const h = await sampleVaultHarness({ model, settings: (s) => (s.model.timeoutMs = 30) });
    const result = await h.run({ question: ANSWERED_QUESTION });

    expect(model.calls).toHaveLength(1);
    // The stage gave up on the call, so the call itself is told to stop (no request lingers).
    expect(model.calls[0].signal?.aborted).toBe(true);
    expect(result.stop_reason).toBe("synthesis_unavailable");
    expect(result.answer).toMatchObject({ kind: "extractive", verified: true });
    expect(result.pack.warnings.find((w) => w.kind === "synthesis_unavailable")?.message).toMatch(/synthesize stage took longer/);
  });

  it("a model out of time is a model timeout in the trace, so the panel says so and offers a retry (it was kind 'error', with neither)", async () => {
    const h = await sampleVaultHarness({ model: stalledModel(), settings: (s) => (s.model.timeoutMs = 30) });
    const result = await h.run({ question: ANSWERED_QUESTION });

    expect(result.trace.errors).toEqual([{ stage: "synthesize", kind: "timeout", message: "The synthesize stage took longer than 30 ms." }]);
    const [problem] = problemsOf(result, { enabledProviders: 0, hasKey: () => false });
    expect(problem).toMatchObject({ kind: "timeout", message: "The model did not answer in time. The evidence brief is shown instead.", action: "retry" });
  });
});

describe("model unavailable", () => {
  it("a model error falls back to the evidence brief, says so, and keeps the pack", async () => {
    const h = await sampleVaultHarness({
      model: {
        name: "scripted:down",
        complete: async () => {
          throw new ModelError("network", "Could not reach http://127.0.0.1:9/v1.");
        },
      },
    });
    const result = await h.run({ question: ANSWERED_QUESTION });

    expect(result.stop_reason).toBe("synthesis_unavailable");
    expect(result.answer).toMatchObject({ kind: "extractive", verified: true });
    expect(result.verification?.passed).toBe(true);
    expect(result.pack.warnings.find((w) => w.kind === "synthesis_unavailable")?.message).toMatch(/Could not reach/);
    expect(result.trace.errors).toContainEqual(expect.objectContaining({ stage: "synthesize", kind: "network" }));
  });
});

describe("a question that is an API key", () => {
  const PASTED_KEY = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z";

  it("is refused before anything starts: no request, no progress, no note, no model call, and the message does not repeat it (it was the web query and the trace note's title)", async () => {
    const model = scriptedModel([]);
    const h = await sampleVaultHarness({ model });
    const before = h.store.paths();
    const refused = await h.run({ question: PASTED_KEY, mode: "always", writeTrace: true }).then(
      () => null,
      (error: unknown) => error,
    );

    expect(refused).toBeInstanceOf(QuestionRefused);
    expect(String((refused as Error).message)).not.toContain(PASTED_KEY.slice(0, 8));
    expect(h.http.requests).toEqual([]);
    expect(h.progress).toEqual([]);
    expect(model.calls).toEqual([]);
    expect(h.store.paths()).toEqual(before);
  });

  it("an earlier question of the chat that was a key lends the next one no terms", async () => {
    const h = await sampleVaultHarness();
    const result = await h.run({ question: "and what about it?", history: [`Authorization: Bearer ${PASTED_KEY}`], writeTrace: false });

    expect(JSON.stringify(result)).not.toContain(PASTED_KEY.slice(3, 15).toLowerCase());
    expect(result.pack.query_plan.context_terms).toEqual([]);
  });
});
