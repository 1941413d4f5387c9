// The run's state before any stage ran, and the pack it describes at any moment.
import { describe, expect, it } from "vitest";
import { researchPackSchema } from "../../src/evidence/research-pack";
import { RUN_LIMITS } from "../../src/research/run-limits";
import { MAX_QUESTION_CHARS, questionRead } from "../../src/text/cut-text";
import { packOf, startRun } from "../../src/research/run-state";
import { ANSWERED_QUESTION, sampleVaultHarness } from "../support/research-harness";
import { fakeClock } from "../support/fake-clock";

describe("startRun", () => {
  it("takes mode, providers, freshness and count from the request, else the settings, within the run's limits", async () => {
    const h = await sampleVaultHarness({ settings: (s) => (s.external.providers = ["exa"]) });
    const defaults = startRun({ question: ANSWERED_QUESTION }, h.deps);
    expect(defaults).toMatchObject({ mode: "never", providers: ["exa"], freshness: h.settings.external.freshness });
    expect(defaults.recorder.finish("no_evidence", packOf(defaults)).providers).toEqual([]);

    const asked = startRun({ question: ANSWERED_QUESTION, mode: "always", providers: ["brave", "brave"], freshness: "pw", count: 50 }, h.deps);
    expect(asked).toMatchObject({ mode: "always", providers: ["brave"], freshness: "pw", count: RUN_LIMITS.maxUrls });
    expect(startRun({ question: ANSWERED_QUESTION, count: 0 }, h.deps).count).toBe(1);
  });

  it("before any stage: a valid pack with no rows, a no_evidence verdict that says the run stopped early", async () => {
    const h = await sampleVaultHarness();
    const pack = packOf(startRun({ question: ANSWERED_QUESTION }, h.deps));
    expect(() => researchPackSchema.parse(pack)).not.toThrow();
    expect(pack.judge).toMatchObject({ verdict: "no_evidence", reason: "The run stopped before the vault was searched." });
    expect(pack.coverage.recall_note).toBe("Searched 0 notes; 0 matched. Nothing left the device: web search is off for this run.");
  });

  it("the pack shares the run's warnings, so a warning added at the end still reaches it", async () => {
    const h = await sampleVaultHarness();
    const run = startRun({ question: ANSWERED_QUESTION }, h.deps);
    const pack = packOf(run);
    run.warnings.push({ kind: "trace_not_written", message: "disk full" });
    expect(pack.warnings).toEqual([{ kind: "trace_not_written", message: "disk full" }]);
  });

  it("reads the first MAX_QUESTION_CHARS characters of a longer question, everywhere, and warns", async () => {
    const h = await sampleVaultHarness();
    const asked = `${ANSWERED_QUESTION} ${"word ".repeat(1_000)}`;
    const run = startRun({ question: asked }, h.deps);
    const pack = packOf(run);
    expect(pack.question).toBe(questionRead(asked));
    expect(pack.question.length).toBeLessThanOrEqual(MAX_QUESTION_CHARS);
    expect(pack.query_plan.question).toBe(pack.question);
    expect(pack.warnings).toEqual([{ kind: "question_cut", message: `The question is ${asked.length.toLocaleString("en-US")} characters long; only its first 2,000 were read.` }]);
    expect(packOf(startRun({ question: ANSWERED_QUESTION }, h.deps)).warnings).toEqual([]);
  });

  it("plans the question in the plan stage, whose time in the trace is the planning's", async () => {
    const h = await sampleVaultHarness();
    // Planning reads the clock's date (which years are "now"); here each reading of it takes 20 ms.
    const clock = fakeClock();
    const slowDates = { ...clock, now: () => (clock.advance(20), clock.now()) };
    const result = await h.run({ question: ANSWERED_QUESTION, writeTrace: false }, { clock: slowDates });
    expect(result.pack.query_plan.terms).toContain("automerge");
    expect(result.trace.timings_ms.plan).toBeGreaterThanOrEqual(20);
  });
});

describe("the recall note on web sources that failed", () => {
  /** A run that asked Hacker News and Wikipedia: `answered` gave their freshness entries, `failed` failed a query. */
  async function webRun(answered: ("hackernews" | "wikipedia")[], failed: ("hackernews" | "wikipedia")[]) {
    const h = await sampleVaultHarness();
    const run = startRun({ question: ANSWERED_QUESTION, mode: "always", providers: ["hackernews", "wikipedia"] }, h.deps);
    run.external.used = true;
    run.external.freshness = answered.map((provider) => ({ provider, requested: "any" }));
    run.external.sourceFailures = failed.map((provider) => ({ provider, kind: "http", sent: true }));
    run.external.failed = answered.length === 0;
    return run;
  }
  const webPart = (note: string) => note.slice(note.indexOf("Web search"));

  it("names each source that did not answer, from the run's typed failures", async () => {
    expect(webPart(packOf(await webRun([], ["hackernews", "wikipedia"])).coverage.recall_note)).toBe("Web search failed: Hacker News answered with a server error; Wikipedia answered with a server error.");
    expect(webPart(packOf(await webRun(["wikipedia"], ["hackernews"])).coverage.recall_note)).toBe("Web search added no outside rows: Wikipedia answered with nothing to add; Hacker News answered with a server error.");
  });

  it("calls no source that answered another query failed, and still says some of its requests failed", async () => {
    expect(webPart(packOf(await webRun(["wikipedia"], ["wikipedia"])).coverage.recall_note)).toBe("Web search added no outside rows: Wikipedia answered with nothing to add; some requests to Wikipedia failed.");
    expect(webPart(packOf(await webRun(["wikipedia"], ["hackernews", "wikipedia"])).coverage.recall_note)).toBe(
      "Web search added no outside rows: Wikipedia answered with nothing to add; Hacker News answered with a server error; some requests to Wikipedia failed.",
    );
  });

  it("tells a source with no key set from one whose key was refused, by whether its call left, as the trace note does", async () => {
    const h = await sampleVaultHarness();
    const refusedOrNot = async (sent: boolean) => {
      const run = startRun({ question: ANSWERED_QUESTION, mode: "always", providers: ["brave"] }, h.deps);
      run.external.used = true;
      run.external.failed = true;
      run.external.sourceFailures = [{ provider: "brave", kind: "auth", sent }];
      return webPart(packOf(run).coverage.recall_note);
    };
    // Both read "Brave could not be used without a valid key", beside a trace note that told them apart.
    expect(await refusedOrNot(false)).toBe("Web search failed: Brave has no API key set.");
    expect(await refusedOrNot(true)).toBe("Web search failed: Brave refused the API key.");
  });
});
