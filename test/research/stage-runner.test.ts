// The stage runner on its own: what the panel hears, what the trace keeps, and how a stage ends
// when it runs out of time or the run is cancelled.
import { describe, expect, it } from "vitest";
import { ModelError } from "../../src/llm/chat-model";
import { RUN_LIMITS } from "../../src/research/run-limits";
import { RunStopped, StageRunner, StageTimedOut } from "../../src/research/stage-runner";
import { TraceRecorder } from "../../src/research/trace-recorder";
import type { ProgressEvent } from "../../src/research/types";
import type { ResearchPack } from "../../src/evidence/research-pack";
import { planQuestion } from "../../src/research/stages/plan";
import { fakeClock, type FakeClock } from "../support/fake-clock";

function runner(options: { clock?: FakeClock; totalMs?: number; signal?: AbortSignal } = {}) {
  const clock = options.clock ?? fakeClock();
  const recorder = new TraceRecorder({ question: "q", mode: "never", providers: [], freshness: "any", clock });
  const progress: ProgressEvent[] = [];
  const stages = new StageRunner({
    clock,
    recorder,
    totalMs: options.totalMs ?? 60_000,
    ...(options.signal ? { signal: options.signal } : {}),
    onProgress: (e) => progress.push(e),
  });
  return { clock, recorder, progress, stages };
}

const failureOf = (promise: Promise<unknown>): Promise<unknown> => promise.then(() => "resolved", (e: unknown) => e);

/** Lets pending promise callbacks and timers run, until `done` or a bound. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 50 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 0));
}

describe("StageRunner", () => {
  it("a stage that finishes: started and done events, its timing and detail in the trace", async () => {
    const { clock, recorder, progress, stages } = runner();
    const value = await stages.run({
      name: "plan",
      start: "Planning",
      limitMs: 1000,
      work: () => {
        clock.advance(40);
        return 3;
      },
      done: (n) => `${n} search terms`,
    });
    expect(value).toBe(3);
    expect(progress.map((e) => [e.stage, e.status, e.detail])).toEqual([
      ["plan", "started", "Planning"],
      ["plan", "done", "3 search terms"],
    ]);
    const trace = recorder.finish("enough_evidence", emptyPack());
    expect(trace.timings_ms.plan).toBe(40);
    expect(trace.events).toEqual([{ type: "plan", at: 40, data: { detail: "3 search terms", ms: 40 } }]);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("a stage past its limit: StageTimedOut naming the stage, a failed event, and its work told to stop", async () => {
    const { clock, progress, stages } = runner();
    let signal: AbortSignal | undefined;
    const outcome = failureOf(
      stages.run({
        name: "local_retrieval",
        start: "Searching the vault",
        limitMs: 5000,
        work: (s) => {
          signal = s;
          return new Promise<never>(() => {});
        },
        done: () => "",
      }),
    );
    await Promise.resolve();
    clock.advance(5000);
    const error = await outcome;
    expect(error).toBeInstanceOf(StageTimedOut);
    expect(error).toMatchObject({ stage: "local_retrieval", message: "The local retrieval stage took longer than 5 s." });
    expect(signal?.aborted).toBe(true);
    expect(progress.at(-1)).toMatchObject({ stage: "local_retrieval", status: "failed", detail: "The local retrieval stage took longer than 5 s." });
  });

  it("the run's remaining budget cuts a stage's limit shorter, and the message says the run's time ran out", async () => {
    const { clock, stages } = runner({ totalMs: 10_000 });
    clock.advance(9000);
    const outcome = failureOf(stages.run({ name: "judge", start: "Judging", limitMs: 20_000, work: () => new Promise<never>(() => {}), done: () => "" }));
    await Promise.resolve();
    clock.advance(1000);
    expect(await outcome).toMatchObject({ stage: "judge", message: "The run's time (10 s in all) ran out during the judge stage." });
  });

  it("a stage cut short by the run's last moments names no limit it never had (it said 'took longer than 0 s')", async () => {
    const { clock, stages, progress } = runner({ totalMs: 10_000 });
    clock.advance(9950);
    const outcome = failureOf(stages.run({ name: "local_retrieval", start: "Searching", limitMs: 20_000, work: () => new Promise<never>(() => {}), done: () => "" }));
    await Promise.resolve();
    clock.advance(50);
    const error = await outcome;
    expect(error).toBeInstanceOf(StageTimedOut);
    expect((error as Error).message).toBe("The run's time (10 s in all) ran out during the local retrieval stage.");
    expect(progress.at(-1)?.detail).toBe("The run's time (10 s in all) ran out during the local retrieval stage.");
  });

  it("a clock set back an hour mid-run does not give the run its budget again: the next stage still has only what was left", async () => {
    const { clock, stages } = runner({ totalMs: 10_000 });
    await stages.run({ name: "local_retrieval", start: "Searching", limitMs: 20_000, work: () => clock.advance(9000), done: () => "" });
    clock.set(clock.now() - 3_600_000);
    let settled: unknown = "waiting";
    void failureOf(stages.run({ name: "synthesize", start: "Writing", limitMs: 120_000, work: () => new Promise<never>(() => {}), done: () => "" })).then((e) => (settled = e));
    await Promise.resolve();
    clock.advance(1000);
    await until(() => settled !== "waiting");
    expect(settled).toMatchObject({ name: "StageTimedOut", message: "The run's time (10 s in all) ran out during the synthesize stage." });
    clock.advance(1);
    expect(() => stages.checkStop()).toThrow(expect.objectContaining({ kind: "timeout" }));
  });

  it("a wall clock set back an hour during a stage's wait: the wait is spent, and the next stage has only what is really left, to the ms (it had the whole budget again)", async () => {
    const { clock, stages } = runner({ totalMs: 10_000 });
    await stages.run({
      name: "external_retrieval",
      start: "Searching the web",
      limitMs: 20_000,
      work: () => {
        clock.advance(6_000);
        clock.set(clock.now() - 3_600_000);
        clock.advance(3_000);
      },
      done: () => "",
    });
    let settled: unknown = "waiting";
    void failureOf(stages.run({ name: "synthesize", start: "Writing", limitMs: 120_000, work: () => new Promise<never>(() => {}), done: () => "" })).then((e) => (settled = e));
    await Promise.resolve();
    clock.advance(999);
    await until(() => settled !== "waiting");
    expect(settled).toBe("waiting");
    clock.advance(1);
    await until(() => settled !== "waiting");
    expect(settled).toMatchObject({ name: "StageTimedOut", message: "The run's time (10 s in all) ran out during the synthesize stage." });
  });

  it("a wall clock stepped forward a day during a stage's wait: the run goes on, and the stage's own limit still ends it to the ms (the run stopped as a day late)", async () => {
    const { clock, stages, progress } = runner({ totalMs: 60_000 });
    let settled: unknown = "waiting";
    void failureOf(stages.run({ name: "synthesize", start: "Writing", limitMs: 5_000, work: () => new Promise<never>(() => {}), done: () => "" })).then((e) => (settled = e));
    await Promise.resolve();
    clock.advance(2_000);
    clock.set(clock.now() + 24 * 3_600_000);
    expect(() => stages.checkStop()).not.toThrow();
    clock.advance(2_999);
    await until(() => settled !== "waiting");
    expect(settled).toBe("waiting");
    clock.advance(1);
    await until(() => settled !== "waiting");
    expect(settled).toMatchObject({ name: "StageTimedOut", message: "The synthesize stage took longer than 5 s." });
    expect(() => stages.checkStop()).not.toThrow();
    expect(progress.at(-1)).toMatchObject({ stage: "synthesize", status: "failed", at: 5_000 });
  });

  it("a stage limit under a second is said in milliseconds", async () => {
    const { clock, stages } = runner();
    const outcome = failureOf(stages.run({ name: "verify", start: "Checking", limitMs: 400, work: () => new Promise<never>(() => {}), done: () => "" }));
    await Promise.resolve();
    clock.advance(400);
    expect(await outcome).toMatchObject({ message: "The verify stage took longer than 400 ms." });
  });

  it("between stages: a cancelled run or one past its budget stops with RunStopped", async () => {
    const controller = new AbortController();
    const cancelled = runner({ signal: controller.signal });
    controller.abort();
    const stopped = await failureOf(cancelled.stages.run({ name: "plan", start: "Planning", limitMs: 1000, work: () => 1, done: () => "" }));
    expect(stopped).toBeInstanceOf(RunStopped);
    expect(stopped).toMatchObject({ kind: "cancelled", message: "The run was cancelled before it began." });
    expect(cancelled.progress).toEqual([]);

    const late = runner({ totalMs: 1000 });
    late.clock.advance(1001);
    expect(() => late.stages.checkStop()).toThrow(expect.objectContaining({ kind: "timeout", message: "The run took longer than 1 s; it stopped before it began." }));
  });

  it("cancelling the run aborts the running stage's work signal", async () => {
    const controller = new AbortController();
    const { stages } = runner({ signal: controller.signal });
    let signal: AbortSignal | undefined;
    const outcome = stages.run({
      name: "synthesize",
      start: "Writing",
      limitMs: 60_000,
      work: (s) => {
        signal = s;
        return new Promise<string>((resolve) => s.addEventListener("abort", () => resolve("stopped")));
      },
      done: (v) => v,
    });
    await Promise.resolve();
    controller.abort();
    expect(await outcome).toBe("stopped");
    expect(signal?.aborted).toBe(true);
  });

  it("a run stopped as its stage starts (by a progress listener) gives the work an aborted signal (it ran with a live one: requests and a model call after Stop)", async () => {
    const controller = new AbortController();
    const clock = fakeClock();
    const recorder = new TraceRecorder({ question: "q", mode: "never", providers: [], freshness: "any", clock });
    const stages = new StageRunner({ clock, recorder, totalMs: 60_000, signal: controller.signal, onProgress: () => controller.abort() });
    let seen: boolean | undefined;
    await stages.run({
      name: "synthesize",
      start: "Writing",
      limitMs: 60_000,
      work: (s) => {
        seen = s.aborted;
        return "written";
      },
      done: (v) => v,
    });
    expect(seen).toBe(true);
    // What the work handed back within the grace is kept; the run stops before the next stage.
    expect(() => stages.checkStop()).toThrow(expect.objectContaining({ kind: "cancelled" }));
  });

  it("a cancel stops waiting for work that ignores its signal: the stage ends as cancelled within the grace, not at its limit", async () => {
    const controller = new AbortController();
    const { clock, stages } = runner({ signal: controller.signal });
    let settled: unknown = "waiting";
    // A store read or a request Obsidian cannot abort: it never looks at the signal.
    void failureOf(stages.run({ name: "local_retrieval", start: "Searching", limitMs: 20_000, work: () => new Promise<never>(() => {}), done: () => "" })).then((e) => (settled = e));
    await Promise.resolve();
    controller.abort();
    // The stage's own timer is gone with the cancel; the grace's is the one left.
    await until(() => clock.pendingTimers() > 0);
    clock.advance(RUN_LIMITS.cancelGraceMs);
    await until(() => settled !== "waiting");
    expect(settled).toBeInstanceOf(RunStopped);
    expect(settled).toMatchObject({ kind: "cancelled" });
    expect(clock.pendingTimers()).toBe(0);
  });

  it("a cancel makes the work's own error a cancel: a cancelled model call is not the model's failure", async () => {
    const controller = new AbortController();
    const { stages, progress } = runner({ signal: controller.signal });
    const outcome = failureOf(
      stages.run({
        name: "synthesize",
        start: "Writing",
        limitMs: 60_000,
        work: (s) => new Promise<never>((_, reject) => s.addEventListener("abort", () => reject(new ModelError("cancelled", "The model call was cancelled.")))),
        done: () => "",
      }),
    );
    await Promise.resolve();
    controller.abort();
    expect(await outcome).toMatchObject({ name: "RunStopped", kind: "cancelled" });
    expect(progress.at(-1)).toMatchObject({ stage: "synthesize", status: "stopped", detail: "The run was cancelled during the synthesize stage." });
  });

  it("a stage the user stopped is recorded and shown as stopped, not failed; one out of time still as failed", async () => {
    const controller = new AbortController();
    const { clock, recorder, stages, progress } = runner({ signal: controller.signal });
    const stopped = failureOf(stages.run({ name: "external_retrieval", start: "Searching the web", limitMs: 20_000, work: (s) => new Promise<never>((_, reject) => s.addEventListener("abort", () => reject(new Error("aborted")))), done: () => "" }));
    await Promise.resolve();
    clock.advance(120);
    controller.abort();
    expect(await stopped).toMatchObject({ name: "RunStopped", kind: "cancelled" });

    const late = runner();
    const timedOut = failureOf(late.stages.run({ name: "local_retrieval", start: "Searching", limitMs: 5000, work: () => new Promise<never>(() => {}), done: () => "" }));
    await Promise.resolve();
    late.clock.advance(5000);
    expect(await timedOut).toBeInstanceOf(StageTimedOut);

    expect(recorder.finish("cancelled", emptyPack()).events).toEqual([{ type: "external_retrieval", at: 120, data: { stopped: "cancelled", ms: 120 } }]);
    expect(late.recorder.finish("timeout", emptyPack()).events).toEqual([{ type: "local_retrieval", at: 5000, data: { failed: true, ms: 5000 } }]);
    // The panel's timeline and the CLI's progress lines read the same ending from the event.
    expect(progress.at(-1)).toMatchObject({ stage: "external_retrieval", status: "stopped" });
    expect(late.progress.at(-1)).toMatchObject({ stage: "local_retrieval", status: "failed" });
  });

  it("a finished stage aborts its work's signal: what the work left running (a source past its own deadline) stops with it", async () => {
    const { stages } = runner();
    let signal: AbortSignal | undefined;
    await stages.run({
      name: "external_retrieval",
      start: "Searching the web",
      limitMs: 20_000,
      work: (s) => {
        signal = s;
        return "two of three sources answered";
      },
      done: (v) => v,
    });
    expect(signal?.aborted).toBe(true);
  });

  it("a stage's own error passes through, with a failed event", async () => {
    const { progress, stages } = runner();
    const boom = new Error("disk gone");
    expect(
      await failureOf(
        stages.run({
          name: "local_retrieval",
          start: "Searching",
          limitMs: 1000,
          work: () => {
            throw boom;
          },
          done: () => "",
        }),
      ),
    ).toBe(boom);
    expect(progress.at(-1)).toMatchObject({ status: "failed", detail: "disk gone" });
  });

  it("every progress text loses the keys the run knows: start, done, failed and a stage's own lines", async () => {
    const { recorder, progress, stages } = runner();
    const key = "sk-progress-Lq83Vz52Mn";
    recorder.addSecrets(key);
    stages.progress("external_retrieval", "started", `Asking with ${key}`);
    await stages.run({ name: "plan", start: `Planning ${key}`, limitMs: 1000, work: () => key, done: (k) => `got ${encodeURIComponent(k)}` });
    await failureOf(stages.run({ name: "judge", start: "Judging", limitMs: 1000, work: () => Promise.reject(new Error(`refused ${key}`)), done: () => "" }));
    expect(progress.map((e) => e.detail)).toEqual(["Asking with [redacted]", "Planning [redacted]", "got [redacted]", "Judging", "refused [redacted]"]);
  });
});

function emptyPack(): ResearchPack {
  return {
    schema: "research_pack.v1",
    question: "q",
    query_plan: planQuestion("q"),
    evidence: [],
    external_evidence: [],
    judge: { verdict: "no_evidence", reason: "", missing_terms: [] },
    coverage: { local_evidence_count: 0, external_evidence_count: 0, external_by_provider: [], external_freshness: [], recall_note: "" },
    warnings: [],
  };
}
