// The time a stage's slow work is given is counted as the run's budget is: on the trace recorder's
// time, which a wall clock set back does not rewind.
import { describe, expect, it } from "vitest";
import { RUN_LIMITS, workTimeLeft } from "../../src/research/run-limits";
import { TraceRecorder } from "../../src/research/trace-recorder";
import { fakeClock } from "../support/fake-clock";

function recorderOn(clock = fakeClock()) {
  return { clock, recorder: new TraceRecorder({ question: "q", mode: "never", providers: [], freshness: "any", clock }) };
}

describe("workTimeLeft", () => {
  it("counts down as time passes, and a clock set back an hour gives none of it back (it gave the work its whole time again)", () => {
    const { clock, recorder } = recorderOn();
    const left = workTimeLeft(recorder, 15_000);
    expect(left()).toBe(15_000);
    clock.advance(14_000);
    expect(left()).toBe(1_000);
    clock.set(clock.now() - 3_600_000);
    expect(left()).toBe(1_000);
    clock.advance(500);
    expect(left()).toBe(500);
  });

  it("never reaches past the run's budget, less the margin kept for what follows, after a clock set back earlier in the run (it reached an hour past)", () => {
    const { clock, recorder } = recorderOn();
    clock.advance(RUN_LIMITS.totalMs - 10_000);
    // The run's stages read the time as they go (their events): then the clock is set back.
    recorder.event("plan");
    clock.set(clock.now() - 3_600_000);
    expect(workTimeLeft(recorder, 28_000)()).toBe(10_000 - RUN_LIMITS.runEndMarginMs);
  });

  it("a wall clock stepped during the work's wait, back an hour or forward a day, moves the time left only by what really passed (back: the wait was free; forward: none was left)", () => {
    for (const step of [-3_600_000, 24 * 3_600_000]) {
      const { clock, recorder } = recorderOn();
      const left = workTimeLeft(recorder, 15_000);
      clock.advance(4_000);
      clock.set(clock.now() + step);
      clock.advance(6_000);
      expect(left()).toBe(5_000);
    }
  });
});
