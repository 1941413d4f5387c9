// @vitest-environment happy-dom
// The panel's status line counts the run's time on the monotonic reading: a wall clock set back
// or forward during a run (a time sync, a laptop waking) moves neither the ticking seconds nor
// "Finished in".
import { afterEach, describe, expect, it, vi } from "vitest";
import "../stubs/obsidian";
import { RunStatus, SAY_AGAIN_PAUSE_MS } from "../../src/ui/run-status";

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

describe("what the run status says aloud", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Every text the live region was given, in order. */
  function listen(parent: HTMLElement): string[] {
    const said: string[] = [];
    const region = parent.querySelector<HTMLElement>("[aria-live]")!;
    const setText = region.setText.bind(region);
    region.setText = (text: string | DocumentFragment) => {
      setText(text);
      said.push(region.textContent ?? "");
    };
    return said;
  }

  it("says a long step once, also when something else was said while it went on (a busy Enter)", () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "setTimeout", "clearTimeout"] });
    const parent = document.body.createDiv();
    const status = new RunStatus(parent);
    const said = listen(parent);
    status.start("Starting…");
    status.progress("Searching the web with Brave…");
    vi.advanceTimersByTime(2_500);
    status.say("A run is in progress.");
    // The same step's next event (a source's news that left the title as it was).
    status.progress("Searching the web with Brave…");
    vi.advanceTimersByTime(2_500);
    status.progress("Writing…");
    vi.advanceTimersByTime(2_500);
    status.finish("Finished in 7.5 s.");
    expect(said).toEqual(["Starting…", "Searching the web with Brave…", "A run is in progress.", "Writing…", "Finished in 7.5 s."]);

    // The next run says its steps afresh.
    said.length = 0;
    status.start("Starting…");
    status.progress("Searching the web with Brave…");
    vi.advanceTimersByTime(2_500);
    expect(said).toEqual(["Starting…", "Searching the web with Brave…"]);
  });

  it("does not say a step again that the live region holds already (a wait said as it began, then the same count)", () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "setTimeout", "clearTimeout"] });
    const parent = document.body.createDiv();
    const status = new RunStatus(parent);
    const said = listen(parent);
    status.say("Waiting for the index: 120 of 900 notes…");
    status.progress("Waiting for the index: 120 of 900 notes…");
    vi.advanceTimersByTime(5_000);
    expect(said).toEqual(["Waiting for the index: 120 of 900 notes…"]);
  });

  // A live region that is given the text it holds does not change, and a screen reader reads changes:
  // a second Copy in a row was heard once, as if the button had done nothing.
  it("says the same answer to the same action again: the region is emptied, then given the words once the pause has passed", () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "setTimeout", "clearTimeout"] });
    const parent = document.body.createDiv();
    const status = new RunStatus(parent);
    const region = parent.querySelector<HTMLElement>("[aria-live]")!;
    const said = listen(parent);
    status.finish("Finished in 1.2 s.");
    status.aside("Answer copied.");
    status.aside("Answer copied.");
    expect(region.textContent).toBe("");
    vi.advanceTimersByTime(SAY_AGAIN_PAUSE_MS);
    expect(region.textContent).toBe("Answer copied.");
    expect(said).toEqual(["Finished in 1.2 s.", "Answer copied.", "", "Answer copied."]);
    // The status line keeps the run's ending.
    expect(parent.querySelector(".vault-research-run-text")?.textContent).toBe("Finished in 1.2 s.");

    // Other words before the pause has passed replace the repeat, which never comes after them.
    said.length = 0;
    status.aside("Answer copied.");
    status.say("A run is in progress.");
    vi.advanceTimersByTime(SAY_AGAIN_PAUSE_MS * 10);
    expect(said).toEqual(["", "A run is in progress."]);
    // Nor after the panel was closed.
    status.say("A run is in progress.");
    status.clear();
    vi.advanceTimersByTime(SAY_AGAIN_PAUSE_MS * 10);
    expect(region.textContent).toBe("");
  });
});
