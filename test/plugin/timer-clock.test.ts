// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from "vitest";
import { TimerClock } from "../../src/plugin/timer-clock";
import { TraceRecorder } from "../../src/research/trace-recorder";

describe("TimerClock", () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it("sleeps on a window timer", async () => {
    vi.useFakeTimers();
    const clock = new TimerClock();
    let woke = false;
    const slept = clock.sleep(1000).then(() => (woke = true));
    expect(clock.pending).toBe(1);
    await vi.advanceTimersByTimeAsync(999);
    expect(woke).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await slept;
    expect(clock.pending).toBe(0);
  });

  it("a sleep whose signal aborts clears its timer and rejects", async () => {
    vi.useFakeTimers();
    const clock = new TimerClock();
    const controller = new AbortController();
    const slept = clock.sleep(60_000, controller.signal).then(
      () => "woke",
      (e: unknown) => e,
    );
    controller.abort();
    expect(await slept).toBeInstanceOf(Error);
    expect(clock.pending).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("a pacing sleep given a signal is cancelled the same way: timer cleared at once, not left to end on its own", async () => {
    vi.useFakeTimers();
    const clock = new TimerClock();
    const controller = new AbortController();
    const slept = clock.sleep(6000, controller.signal, "pacing").then(
      () => "woke",
      (e: unknown) => e,
    );
    expect(clock.pending).toBe(1);
    controller.abort();
    expect(await slept).toBeInstanceOf(Error);
    expect(clock.pending).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("dispose wakes every sleeper at once and later sleeps return immediately", async () => {
    vi.useFakeTimers();
    const clock = new TimerClock();
    const slept = Promise.all([clock.sleep(10_000), clock.sleep(20_000, new AbortController().signal)]);
    clock.dispose();
    await slept;
    expect(vi.getTimerCount()).toBe(0);
    await clock.sleep(5000);
    expect(clock.pending).toBe(0);
  });

  it("a run on it counts a wait during which the wall clock went back an hour as the time that passed, on the window's monotonic time (it counted none)", () => {
    let wall = Date.UTC(2026, 10, 30, 14, 12, 3);
    let monotonic = 1_000;
    vi.spyOn(Date, "now").mockImplementation(() => wall);
    vi.spyOn(window.performance, "now").mockImplementation(() => monotonic);
    const clock = new TimerClock();
    const recorder = new TraceRecorder({ question: "q", mode: "never", providers: [], freshness: "any", clock });
    wall -= 3_600_000;
    monotonic += 30_000;
    expect(recorder.elapsed()).toBe(30_000);
    expect(clock.now()).toBe(wall);
  });
});
