// `stopwatch`: the one way a duration is timed on a Clock, on its monotonic reading.
import { describe, expect, it } from "vitest";
import { stopwatch, type Clock } from "../src/ports";
import { fakeClock } from "./support/fake-clock";

describe("stopwatch", () => {
  it("counts the time that passed, not the wall clock being set back or forward", () => {
    const clock = fakeClock();
    const elapsed = stopwatch(clock);
    clock.advance(250);
    clock.set(clock.now() - 3_600_000);
    expect(elapsed()).toBe(250);
    clock.set(clock.now() + 24 * 3_600_000);
    clock.advance(50);
    expect(elapsed()).toBe(300);
  });

  it("on a clock with wall time only, reads no less than nothing when that clock is set back", () => {
    let wall = 1_000_000;
    const clock: Pick<Clock, "now"> = { now: () => wall };
    const elapsed = stopwatch(clock);
    wall += 40;
    expect(elapsed()).toBe(40);
    wall -= 3_600_000;
    expect(elapsed()).toBe(0);
  });
});

describe("stopwatch's figures", () => {
  it("reads whole ms: a monotonic reading's fractions are no figure anyone reads", () => {
    let monotonic = 1_000.25;
    const elapsed = stopwatch({ now: () => 0, monotonicNow: () => monotonic });
    monotonic += 64.5765840000001;
    expect(elapsed()).toBe(65);
  });
});
