// A long job's slices: measured on the monotonic reading, so a wall clock set back does not keep a
// build from yielding (the UI froze for as long as the clock went back).
import { describe, expect, it } from "vitest";
import { NO_SLICES, SLICE_MS, timeSlices, waitOn, type WorkSlice } from "../../src/index/work-slice";
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

  // A cache or store may answer without giving the event loop a turn (a memory cache, a quick
  // IndexedDB): a slice started afresh after such an await never ended, however much work came
  // before and after it.
  it("counts the work on both sides of a wait, and not the wait, whether it succeeds or fails", async () => {
    const clock = fakeClock();
    const ran: number[] = [];
    const slice = timeSlices(clock, async (ms) => void ran.push(ms));
    clock.advance(5);
    expect(await waitOn(slice, Promise.resolve("answered"))).toBe("answered");
    clock.advance(4);
    const slow = (async () => {
      await new Promise((resolve) => setTimeout(resolve, 0));
      clock.advance(5000);
      throw new Error("disk full");
    })();
    await expect(waitOn(slice, slow)).rejects.toThrow("disk full");
    expect(slice.over()).toBe(false);
    clock.advance(SLICE_MS - 9);
    expect(slice.over()).toBe(true);
    await slice.pause();
    expect(ran).toEqual([SLICE_MS]);
  });

  it("counts a wait as work in a slice that cannot tell it apart (a test's)", async () => {
    let looked = 0;
    const slice: WorkSlice = { ...NO_SLICES, over: () => (looked++, false) };
    expect(await waitOn(slice, Promise.resolve(7))).toBe(7);
    expect(looked).toBe(0);
  });

  it("is over after SLICE_MS of work though the wall clock was set back an hour meanwhile", () => {
    const clock = fakeClock();
    const slice = timeSlices(clock, () => Promise.resolve());
    clock.set(clock.now() - 3_600_000);
    clock.advance(SLICE_MS);
    expect(slice.over()).toBe(true);
  });
});
