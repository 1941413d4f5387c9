import { describe, expect, it, vi } from "vitest";
import { yieldToUi } from "../../src/plugin/yield-to-ui";

describe("yieldToUi", () => {
  it("resumes on a message, not a timer, so it is not clamped to 4 ms", async () => {
    const timeout = vi.spyOn(globalThis, "setTimeout");
    await yieldToUi();
    expect(timeout).not.toHaveBeenCalled();
    timeout.mockRestore();
  });

  it("resumes waiting slices in the order they yielded", async () => {
    const order: number[] = [];
    await Promise.all([1, 2, 3].map((n) => yieldToUi().then(() => order.push(n))));
    expect(order).toEqual([1, 2, 3]);
  });

  it("a thousand yields take far less than a thousand clamped timers would (4 s)", async () => {
    const started = performance.now();
    for (let i = 0; i < 1000; i++) await yieldToUi();
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
