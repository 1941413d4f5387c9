// @vitest-environment happy-dom
// What the plugin's index keeps across an unload: the vault's language learned during the session
// (after the first build, or again once much of the vault changed) is in the save the unload makes,
// so the next start takes it from the cache instead of reading the whole vault to learn it again.
import { describe, expect, it } from "vitest";
import type { EventRef, Vault as ObsidianVault } from "obsidian";
import { Vault } from "../stubs/obsidian";
import { IndexKeeper } from "../../src/plugin/index-keeper";
import { TimerClock } from "../../src/plugin/timer-clock";
import { defaultSettings } from "../../src/settings";
import { ControlledStore } from "../support/controlled-note-store";
import { laneVault } from "../support/lane-vault";
import { MemoryIndexCache } from "../support/memory-index-cache";

function laneStore(): ControlledStore {
  const store = new ControlledStore();
  for (const [path, text] of Object.entries(laneVault())) store.write(path, text);
  return store;
}

/** A keeper over `store` and `cache`, started, its first build and its learning of the vault's language done. */
async function startedKeeper(store: ControlledStore, cache: MemoryIndexCache): Promise<IndexKeeper> {
  const keeper = new IndexKeeper({
    store,
    cache,
    clock: new TimerClock(),
    settings: defaultSettings,
    onStatus: () => {},
    notify: () => {},
    yieldToUi: () => new Promise((resolve) => window.setTimeout(resolve, 0)),
  });
  keeper.start(new Vault("Garden") as unknown as ObsidianVault, (_ref: EventRef) => {});
  await keeper.ready();
  await keeper.index.languageSettled();
  return keeper;
}

describe("IndexKeeper unloading with the vault's language learned in the session", () => {
  it("saves meanings learned again during the session: the next start takes them from the cache", async () => {
    const store = laneStore();
    const cache = new MemoryIndexCache();
    const keeper = await startedKeeper(store, cache);
    expect(keeper.index.languageLearnedIn()).toBe("this thread");
    // The save a while after the build: the first meanings are in the cache.
    await keeper.index.save(cache);
    // A tenth of the notes edited (dated before the learning they set off starts): learned again behind.
    for (const path of keeper.index.paths().slice(0, 52)) {
      store.write(path, `${store.files.get(path)!.text}\nRevised.\n`, Date.now() - 1);
      await keeper.index.updateFile(store, path);
    }
    expect(keeper.index.status().vaultLanguage).toBe("relearning");
    await keeper.index.languageSettled();
    expect(keeper.index.status().vaultLanguage).toBe("ready");
    // Quit before the save that follows the end of that learning came due.
    keeper.dispose();
    await keeper.unloadSave();

    const next = await startedKeeper(store, cache);
    // Taken from the cache: not learned once more from the notes edited since the first meanings.
    expect(next.index.languageLearnedIn()).toBeNull();
    expect(next.index.status().vaultLanguage).toBe("ready");
    next.dispose();
  });

  it("saves the meanings of the first build's learning when the plugin is unloaded before the save after it", async () => {
    const store = laneStore();
    const cache = new MemoryIndexCache();
    const keeper = await startedKeeper(store, cache);
    expect(keeper.index.languageLearnedIn()).toBe("this thread");
    keeper.dispose();
    await keeper.unloadSave();

    const next = await startedKeeper(store, cache);
    expect(next.index.languageLearnedIn()).toBeNull();
    expect(next.index.status().vaultLanguage).toBe("ready");
    next.dispose();
  });
});
