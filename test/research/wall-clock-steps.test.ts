// A whole run on a device whose wall clock is stepped while a provider call is under way (a time
// sync, a laptop waking, a time zone set by hand): the run's budget and each stage's limit are
// counted on the clock's steady reading, to the millisecond, and the trace's dates stay the wall's.
import { describe, expect, it } from "vitest";
import { RUN_LIMITS } from "../../src/research/run-limits";
import type { ProgressEvent } from "../../src/research/types";
import type { ResearchTrace } from "../../src/evidence/trace-types";
import { FAKE_NOW } from "../support/fake-clock";
import { FRESHNESS_QUESTION, sampleVaultHarness } from "../support/research-harness";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** A run with 12 s of its budget left when it decides to search, whose first provider call takes 10.5 s and steps the wall clock by `step` halfway. */
async function runWithStepDuringCall(step: number) {
  let asked = 0;
  const h = await sampleVaultHarness({
    settings: (s) => (s.external.sourceTimeoutMs = 15_000),
    httpOptions: {
      beforeAnswer: () => {
        if (++asked > 1) return;
        h.clock.advance(5_000);
        h.clock.set(h.clock.now() + step);
        h.clock.advance(5_500);
      },
    },
  });
  const onProgress = (e: ProgressEvent) => {
    h.progress.push(e);
    if (e.stage === "external_policy" && e.status === "started") h.clock.advance(RUN_LIMITS.totalMs - 12_000);
  };
  const result = await h.run({ question: FRESHNESS_QUESTION, mode: "always", providers: ["brave"], writeTrace: false }, { onProgress });
  return { result, asked };
}

/** The trace's times are those that passed, to the ms; its date and run id, the wall clock's at the start. */
function expectTimesAsTheyPassed(trace: ResearchTrace): void {
  const at = (type: string) => trace.events.find((e) => e.type === type)?.at;
  expect(at("external_provider_request")).toBe(RUN_LIMITS.totalMs - 12_000);
  expect(at("external_provider_response")).toBe(RUN_LIMITS.totalMs - 1_500);
  expect(trace.timings_ms.external_retrieval).toBe(10_500);
  expect(trace.timings_ms.total).toBe(RUN_LIMITS.totalMs - 1_500);
  expect(trace.started_at).toBe(new Date(FAKE_NOW).toISOString());
  expect(trace.run_id.startsWith("20250921-100000-")).toBe(true);
}

describe("a wall clock stepped during a provider call", () => {
  it("set back an hour: the call's 10.5 s are spent, so the second query, with 500 ms left of the run, is not sent (it was, on the hour back)", async () => {
    const { result, asked } = await runWithStepDuringCall(-HOUR);

    expect(asked).toBe(1);
    expect(result.trace.queries_sent).toHaveLength(1);
    const built = result.trace.events.filter((e) => e.type === "external_query_built");
    // 11 s to the run's end less its margin, 10.5 s of them spent on the first query.
    expect(built[1]?.data).toMatchObject({ not_sent: "only 500 ms left of the search's 15 s" });
    expect(result.stop_reason).not.toBe("timeout");
    expectTimesAsTheyPassed(result.trace);
  });

  it("stepped forward a day: the run goes on with the 500 ms it really has (it stopped at once as a day late)", async () => {
    const { result, asked } = await runWithStepDuringCall(DAY);

    expect(asked).toBe(1);
    expect(result.stop_reason).not.toBe("timeout");
    const built = result.trace.events.filter((e) => e.type === "external_query_built");
    expect(built[1]?.data).toMatchObject({ not_sent: "only 500 ms left of the search's 15 s" });
    expect(result.pack.external_evidence.length).toBeGreaterThan(0);
    expectTimesAsTheyPassed(result.trace);
  });
});
