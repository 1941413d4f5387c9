// @vitest-environment happy-dom
// While a build runs, the index keeper knows how many notes it will hold, so the status bar reads
// "Indexing… N of M notes" rather than a count that only rises; when the build ends (and when
// updates land) it says the notes changed, which is what starts the embedding job. A batch of
// changes too large to land between two frames reads "Updating index…" until it has.
import { describe, expect, it } from "vitest";
import type { EventRef, Vault as ObsidianVault } from "obsidian";
import { Vault } from "../stubs/obsidian";
import type { IndexStatus } from "../../src/index/types";
import { IndexKeeper } from "../../src/plugin/index-keeper";
import { ObsidianNoteStore } from "../../src/plugin/obsidian-note-store";
import { TimerClock } from "../../src/plugin/timer-clock";
import { defaultSettings } from "../../src/settings";
import { IndexStatusBar } from "../../src/ui/index-status";
import { ControlledStore } from "../support/controlled-note-store";
import { MemoryIndexCache } from "../support/memory-index-cache";

describe("IndexKeeper progress", () => {
  it("shows N of M notes while building (trace notes not counted), then the plain count", async () => {
    const store = new ControlledStore();
    for (let i = 0; i < 6; i++) store.write(`Notes/Note ${i}.md`, `# Note ${i}\n\nText ${i}.\n`);
    store.write("Research/Traces/run-1.md", "# Trace\n");
    store.holdReads = true;
    const el = document.createElement("div");
    const bar = new IndexStatusBar(el, () => {});
    let changes = 0;
    const keeper: IndexKeeper = new IndexKeeper({
      store,
      cache: new MemoryIndexCache(),
      clock: new TimerClock(),
      settings: defaultSettings,
      onStatus: (status: IndexStatus | null, issues) => bar.render(status, issues, keeper?.indexingTotal() ?? null),
      notify: () => {},
      onNotesChanged: () => changes++,
    });
    keeper.start(new Vault("Garden") as unknown as ObsidianVault, (_ref: EventRef) => {});
    await until(() => store.held.length > 0);
    expect(keeper.indexingTotal()).toBe(6);
    // The reads are held: nothing is indexed yet, and the bar already says how far there is to go.
    await until(() => el.textContent === "Indexing… 0 of 6 notes");
    expect(changes).toBe(0);
    store.holdReads = false;
    while (store.held.length > 0) store.held.shift()!.release();
    await keeper.ready();
    expect(el.textContent).toBe("6 notes indexed");
    expect(keeper.indexingTotal()).toBeNull();
    expect(changes).toBe(1);
    keeper.dispose();
  });
});

async function until(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

describe("IndexKeeper during a large batch of changes", () => {
  it("says the index is updating while many changes land at once, and indexed once they have", async () => {
    const vault = new Vault("Garden");
    vault.seed("Home.md", "# Home\n", 1);
    for (let i = 0; i < 60; i++) vault.seed(`Synced/Note ${i}.md`, `# Note ${i}\n`, 1);
    // Left out at first; taking the folder back in lands its 60 notes as one batch of updates,
    // as a sync client's day of changes or a folder renamed does.
    let settings = defaultSettings();
    settings.index.excludedFolders = ["Synced"];
    const el = document.createElement("div");
    const bar = new IndexStatusBar(el, () => {});
    const turns: string[] = [];
    const keeper: IndexKeeper = new IndexKeeper({
      store: new ObsidianNoteStore(vault as unknown as ObsidianVault),
      cache: new MemoryIndexCache(),
      clock: new TimerClock(),
      settings: () => settings,
      onStatus: (status: IndexStatus | null, issues) => bar.render(status, issues, keeper?.indexingTotal() ?? null),
      notify: () => {},
      // What the status bar reads each time the user's screen gets a turn mid-batch.
      yieldToUi: async () => void turns.push(el.textContent ?? ""),
    });
    keeper.start(vault as unknown as ObsidianVault, () => {});
    await keeper.ready();
    expect(el.textContent).toBe("1 note indexed");
    turns.length = 0;
    settings = { ...settings, index: { ...settings.index, excludedFolders: [] } };
    await keeper.applyExclusions();
    expect(turns.length).toBeGreaterThan(0);
    for (const text of turns) expect(text).toMatch(/^Updating index… \d+ notes$/);
    expect(el.textContent).toBe("61 notes indexed");
    keeper.dispose();
  });
});
