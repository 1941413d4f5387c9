// The system clock measures durations on a monotonic reading: a wall clock set back or forward
// while a run waits (a time sync, a laptop waking) moves its dates, not the run's time.
import { afterEach, describe, expect, it, vi } from "vitest";
import { DeadlineMissed, withDeadline } from "../src/deadline";
import { monotonicReading, systemClock } from "../src/ports";
import { TraceRecorder } from "../src/research/trace-recorder";

const HOUR = 3_600_000;
const WALL = Date.UTC(2026, 10, 30, 14, 12, 3);

/** Fake timers for Date, timers and performance: `setSystemTime` then moves the wall clock only, as a time sync does. */
function fakeTime(): void {
  vi.useFakeTimers({ toFake: ["Date", "setTimeout", "clearTimeout", "performance"], now: WALL });
}

describe("systemClock", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("a run on it counts a wait during which the wall clock went back an hour, or forward a day, as the time that passed (it counted none, or a day)", () => {
    fakeTime();
    for (const step of [-HOUR, 24 * HOUR]) {
      const recorder = new TraceRecorder({ question: "q", mode: "never", providers: [], freshness: "any", clock: systemClock });
      vi.advanceTimersByTime(10_000);
      vi.setSystemTime(Date.now() + step);
      vi.advanceTimersByTime(20_000);
      expect(recorder.elapsed()).toBe(30_000);
    }
  });

  it("reads its wall time for dates: a trace's start is the wall clock's", () => {
    fakeTime();
    const recorder = new TraceRecorder({ question: "q", mode: "never", providers: [], freshness: "any", clock: systemClock });
    expect(systemClock.now()).toBe(WALL);
    expect(recorder.startedAt).toBe(WALL);
    expect(monotonicReading(systemClock)).not.toBe(WALL);
  });

  it("a deadline on it ends when its time has passed, whatever the wall clock did meanwhile", async () => {
    fakeTime();
    let missed: unknown = "waiting";
    void withDeadline(new Promise<never>(() => undefined), { clock: systemClock, ms: 5_000 }).catch((e: unknown) => (missed = e));
    await vi.advanceTimersByTimeAsync(2_000);
    vi.setSystemTime(Date.now() + 24 * HOUR);
    await vi.advanceTimersByTimeAsync(2_999);
    expect(missed).toBe("waiting");
    vi.setSystemTime(Date.now() - 2 * 24 * HOUR);
    await vi.advanceTimersByTimeAsync(1);
    expect(missed).toBeInstanceOf(DeadlineMissed);
  });
});
