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

  // A build pays the 4 ms clamp once per slice it yields through a timer: what keeps a thousand
  // slices from costing seconds is that every one of them resumes on a message, through one channel
  // opened once, and none falls back to setTimeout. (How long it takes is for `npm run bench`.)
  it("a thousand yields open one channel, post a thousand messages and start no timer", async () => {
    vi.resetModules();
    let channelsOpened = 0;
    class CountedChannel extends MessageChannel {
      constructor() {
        super();
        channelsOpened++;
      }
    }
    vi.stubGlobal("MessageChannel", CountedChannel);
    const timeout = vi.spyOn(globalThis, "setTimeout");
    const post = vi.spyOn(MessagePort.prototype, "postMessage");
    try {
      const fresh = await import("../../src/plugin/yield-to-ui");
      for (let i = 0; i < 1000; i++) await fresh.yieldToUi();
      expect(channelsOpened).toBe(1);
      expect(post).toHaveBeenCalledTimes(1000);
      expect(timeout).not.toHaveBeenCalled();
    } finally {
      post.mockRestore();
      timeout.mockRestore();
      vi.unstubAllGlobals();
    }
  });
});
