import { getEventListeners } from "node:events";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DeadlineMissed, pacedUnlessAborted, whenAborted, withDeadline } from "../src/deadline";
import { systemClock, type Clock } from "../src/ports";
import { fakeClock } from "./support/fake-clock";

/** A promise the test settles by hand. */
function pending<T>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: unknown) => void } {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const failureOf = (promise: Promise<unknown>): Promise<unknown> => promise.then(() => "resolved", (e: unknown) => e);

describe("withDeadline", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("gives the work's value when it answers in time, and clears its timer", async () => {
    const clock = fakeClock();
    const value = await withDeadline(Promise.resolve(42), { clock, ms: 1000 });
    expect(value).toBe(42);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("passes the work's own error through unchanged", async () => {
    const clock = fakeClock();
    const boom = new TypeError("parser broke");
    expect(await failureOf(withDeadline(Promise.reject(boom), { clock, ms: 1000 }))).toBe(boom);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("times out when the clock passes the deadline first: kind timeout, with a message in words", async () => {
    const clock = fakeClock();
    const work = pending<number>();
    const raced = failureOf(withDeadline(work.promise, { clock, ms: 2000 }));
    clock.advance(1999);
    clock.advance(1);
    const error = await raced;
    expect(error).toBeInstanceOf(DeadlineMissed);
    expect(error).toMatchObject({ kind: "timeout", message: "No answer within 2 s." });
  });

  it("a signal aborted before the start: kind aborted at once, and no timer is started", async () => {
    const clock = fakeClock();
    const controller = new AbortController();
    controller.abort();
    const onLate = vi.fn();
    const work = pending<string>();
    const error = await failureOf(withDeadline(work.promise, { clock, ms: 1000, signal: controller.signal, onLate }));
    expect(error).toMatchObject({ kind: "aborted" });
    expect(clock.pendingTimers()).toBe(0);
    work.resolve("late");
    await Promise.resolve();
    expect(onLate).toHaveBeenCalledTimes(1);
  });

  it("a signal aborted while waiting: kind aborted, timer cleared, listener removed", async () => {
    const clock = fakeClock();
    const controller = new AbortController();
    const raced = failureOf(withDeadline(pending<string>().promise, { clock, ms: 1000, signal: controller.signal }));
    expect(clock.pendingTimers()).toBe(1);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(1);
    controller.abort();
    expect(await raced).toMatchObject({ kind: "aborted" });
    expect(clock.pendingTimers()).toBe(0);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("many deadlines on one signal hold one abort listener while they wait, and none once they end (no leak warning)", async () => {
    const clock = fakeClock();
    const controller = new AbortController();
    const works = Array.from({ length: 15 }, () => pending<number>());
    const raced = works.map((w) => withDeadline(w.promise, { clock, ms: 1000, signal: controller.signal }));
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(1);
    works.forEach((w, i) => w.resolve(i));
    expect(await Promise.all(raced)).toEqual(works.map((_, i) => i));
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("an abort reaches every deadline sharing the signal, and one that ended early is not called", async () => {
    const clock = fakeClock();
    const controller = new AbortController();
    const early = withDeadline(Promise.resolve("early"), { clock, ms: 1000, signal: controller.signal });
    const waiting = Array.from({ length: 3 }, () => failureOf(withDeadline(pending<string>().promise, { clock, ms: 1000, signal: controller.signal })));
    expect(await early).toBe("early");
    controller.abort();
    for (const error of await Promise.all(waiting)) expect(error).toMatchObject({ kind: "aborted" });
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("an abort after the work answered changes nothing", async () => {
    const clock = fakeClock();
    const controller = new AbortController();
    const value = await withDeadline(Promise.resolve("done"), { clock, ms: 1000, signal: controller.signal });
    controller.abort();
    expect(value).toBe("done");
    expect(clock.pendingTimers()).toBe(0);
  });

  it("ignores a late answer or a late error, and tells onLate once", async () => {
    for (const settle of ["resolve", "reject"] as const) {
      const clock = fakeClock();
      const onLate = vi.fn();
      const work = pending<string>();
      const raced = failureOf(withDeadline(work.promise, { clock, ms: 500, onLate }));
      clock.advance(500);
      expect(await raced).toMatchObject({ kind: "timeout" });
      if (settle === "resolve") work.resolve("too late");
      else work.reject(new Error("too late"));
      await new Promise((r) => setTimeout(r, 0));
      expect(onLate).toHaveBeenCalledTimes(1);
    }
  });

  it("on the system clock, leaves no timer behind once the work answered (a finished run does not keep Node alive)", async () => {
    vi.useFakeTimers();
    const work = pending<string>();
    const raced = withDeadline(work.promise, { clock: systemClock, ms: 60_000 });
    expect(vi.getTimerCount()).toBe(1);
    work.resolve("ok");
    expect(await raced).toBe("ok");
    expect(vi.getTimerCount()).toBe(0);
  });

  it("on the system clock, times out when the real time passes", async () => {
    vi.useFakeTimers();
    const raced = failureOf(withDeadline(pending<string>().promise, { clock: systemClock, ms: 300 }));
    await vi.advanceTimersByTimeAsync(300);
    expect(await raced).toMatchObject({ kind: "timeout", message: "No answer within 300 ms." });
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("Clock.sleep with a signal", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("systemClock: cancelling clears the timer and rejects", async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const slept = failureOf(systemClock.sleep(10_000, controller.signal));
    expect(vi.getTimerCount()).toBe(1);
    controller.abort();
    expect(await slept).toBeInstanceOf(Error);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("systemClock: an already aborted signal rejects without a timer", async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    controller.abort();
    expect(await failureOf(systemClock.sleep(10_000, controller.signal))).toBeInstanceOf(Error);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("fake clock: a plain sleep moves the clock at once; a deadline sleep waits until the clock passes it", async () => {
    const clock = fakeClock(0);
    await clock.sleep(1000);
    expect(clock.now()).toBe(1000);
    expect(clock.sleeps).toEqual([1000]);

    let woke = false;
    const slept = clock.sleep(5000, new AbortController().signal).then(() => (woke = true));
    await Promise.resolve();
    expect(woke).toBe(false);
    expect(clock.sleeps).toEqual([1000]);
    clock.advance(5000);
    await slept;
    expect(woke).toBe(true);
    expect(clock.pendingTimers()).toBe(0);
  });
});

describe("Clock.sleep for pacing, given a signal", () => {
  it("fake clock: still skipped (moves the clock at once, no timer left), and refused once its signal aborted", async () => {
    const clock = fakeClock(0);
    await clock.sleep(6000, new AbortController().signal, "pacing");
    expect(clock.now()).toBe(6000);
    expect(clock.sleeps).toEqual([6000]);
    expect(clock.pendingTimers()).toBe(0);

    const controller = new AbortController();
    controller.abort();
    expect(await failureOf(clock.sleep(6000, controller.signal, "pacing"))).toBeInstanceOf(Error);
    expect(clock.now()).toBe(6000);
    expect(clock.sleeps).toEqual([6000]);
  });
});

describe("pacedUnlessAborted", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("on the system clock, an abort during the wait ends it at once and clears its timer (a stopped CLI run exits)", async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const paced = pacedUnlessAborted(systemClock, 6000, controller.signal);
    expect(vi.getTimerCount()).toBe(1);
    controller.abort();
    expect(await paced).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("on the system clock, true when the time passed, with no listener left on the signal", async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const paced = pacedUnlessAborted(systemClock, 6000, controller.signal);
    await vi.advanceTimersByTimeAsync(6000);
    expect(await paced).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("on the fake clock, skipped as any pacing is: the clock moves, no timer waits, the turn came", async () => {
    const clock = fakeClock(0);
    expect(await pacedUnlessAborted(clock, 6000, new AbortController().signal)).toBe(true);
    expect(clock.sleeps).toEqual([6000]);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("a signal aborted before the start: false, and no sleep asked for", async () => {
    const clock = fakeClock(0);
    const controller = new AbortController();
    controller.abort();
    expect(await pacedUnlessAborted(clock, 6000, controller.signal)).toBe(false);
    expect(clock.sleeps).toEqual([]);
  });

  it("ends at the abort even on a clock that holds the sleep and ignores its signal", async () => {
    const held: Pick<Clock, "sleep"> = { sleep: () => new Promise(() => undefined) };
    const controller = new AbortController();
    const paced = pacedUnlessAborted(held, 6000, controller.signal);
    controller.abort();
    expect(await paced).toBe(false);
  });

  it("many waits on one signal hold one abort listener, and none once they end", async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const waits = Array.from({ length: 12 }, () => pacedUnlessAborted(systemClock, 1000, controller.signal));
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(await Promise.all(waits)).toEqual(Array.from({ length: 12 }, () => true));
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });
});

describe("whenAborted", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("a wait stopped by another's callback during the abort is not called", () => {
    const controller = new AbortController();
    const calls: string[] = [];
    let stopSecond = (): void => undefined;
    whenAborted(controller.signal, () => {
      calls.push("first");
      stopSecond();
    });
    stopSecond = whenAborted(controller.signal, () => calls.push("second"));
    controller.abort();
    expect(calls).toEqual(["first"]);
  });

  it("a callback that throws leaves the other waits their call, and its error is still reported", () => {
    const reported = vi.spyOn(globalThis, "queueMicrotask").mockImplementation(() => undefined);
    const controller = new AbortController();
    const calls: string[] = [];
    whenAborted(controller.signal, () => {
      throw new Error("boom");
    });
    whenAborted(controller.signal, () => calls.push("second"));
    controller.abort();
    expect(calls).toEqual(["second"]);
    expect(reported).toHaveBeenCalledTimes(1);
    expect(() => reported.mock.calls[0][0]()).toThrow("boom");
  });

  it("a wait added by a callback while the abort is told, or after it, is called at once", () => {
    const controller = new AbortController();
    const calls: string[] = [];
    whenAborted(controller.signal, () => {
      calls.push("first");
      whenAborted(controller.signal, () => calls.push("added during"));
    });
    controller.abort();
    whenAborted(controller.signal, () => calls.push("added after"));
    expect(calls).toEqual(["first", "added during", "added after"]);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("a long-lived signal (the MCP server's) holds no listener after thousands of waits that ended, and still tells the next", () => {
    const controller = new AbortController();
    for (let i = 0; i < 5_000; i++) whenAborted(controller.signal, () => undefined)();
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
    let told = false;
    whenAborted(controller.signal, () => (told = true));
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(1);
    controller.abort();
    expect(told).toBe(true);
  });
});
