// A long job's slices: measured on the monotonic reading, so a wall clock set back does not keep a
// build from yielding (the UI froze for as long as the clock went back).
import { describe, expect, it } from "vitest";
import { SLICE_MS, timeSlices } from "../../src/index/work-slice";
import { fakeClock } from "../support/fake-clock";

describe("timeSlices", () => {
  it("is over after SLICE_MS of work, and starts afresh after a pause", async () => {
    const clock = fakeClock();
    const ran: number[] = [];
    const slice = timeSlices(clock, async (ms) => void ran.push(ms));
    clock.advance(SLICE_MS - 1);
    expect(slice.over()).toBe(false);
    clock.advance(1);
    expect(slice.over()).toBe(true);
    await slice.pause();
    expect(ran).toEqual([SLICE_MS]);
    expect(slice.over()).toBe(false);
  });

  it("is over after SLICE_MS of work though the wall clock was set back an hour meanwhile", () => {
    const clock = fakeClock();
    const slice = timeSlices(clock, () => Promise.resolve());
    clock.set(clock.now() - 3_600_000);
    clock.advance(SLICE_MS);
    expect(slice.over()).toBe(true);
  });
});
