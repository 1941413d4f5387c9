// @vitest-environment happy-dom
// The panel's status line counts the run's time on the monotonic reading: a wall clock set back
// or forward during a run (a time sync, a laptop waking) moves neither the ticking seconds nor
// "Finished in".
import { afterEach, describe, expect, it, vi } from "vitest";
import "../stubs/obsidian";
import { RunStatus } from "../../src/ui/run-status";

const HOUR = 3_600_000;

describe("run status", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("shows the time the run took when the wall clock was set back an hour or forward a day during it (it showed -3597 s, or a day)", () => {
    for (const step of [-HOUR, 24 * HOUR]) {
      // Date and performance faked: `setSystemTime` then moves the wall clock only, as a time sync does.
      vi.useFakeTimers({ toFake: ["Date", "performance", "setInterval", "clearInterval", "setTimeout", "clearTimeout"], now: Date.UTC(2026, 10, 30, 14, 0, 0) });
      const parent = document.body.createDiv();
      const status = new RunStatus(parent);
      status.start("Searching the vault");
      vi.advanceTimersByTime(2_000);
      vi.setSystemTime(Date.now() + step);
      vi.advanceTimersByTime(1_500);
      expect(parent.querySelector(".vault-research-run-elapsed")?.textContent).toBe("3 s");
      expect(status.elapsed()).toBe("3.5 s");
      status.finish(`Finished in ${status.elapsed()}.`);
      vi.useRealTimers();
    }
  });
});
