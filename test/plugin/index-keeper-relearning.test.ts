// @vitest-environment happy-dom
// The vault's language learned again behind the plugin's index (once a tenth of the notes changed),
// as vault events bring the changes: a batch that crosses that line is learned from once it is all
// in, once, not from the vault half changed and then again for the rest of the batch; and the first
// learning after a build waits for the edits that came during the build (a sync still downloading).
import { describe, expect, it, vi } from "vitest";
import type { Vault as ObsidianVault } from "obsidian";
import { Vault } from "../stubs/obsidian";
import { IndexKeeper } from "../../src/plugin/index-keeper";
import { ObsidianNoteStore } from "../../src/plugin/obsidian-note-store";
import type { NoteStore } from "../../src/ports";
import { TimerClock } from "../../src/plugin/timer-clock";
import { defaultSettings } from "../../src/settings";
import { learnWordMeanings } from "../../src/index/vault-language/word-meanings";
import { laneVault } from "../support/lane-vault";
import { MemoryIndexCache } from "../support/memory-index-cache";

// Learning is counted.
vi.mock(import("../../src/index/vault-language/word-meanings"), async (importOriginal) => {
  const actual = await importOriginal();
  return { ...actual, learnWordMeanings: vi.fn(actual.learnWordMeanings) };
});
const learned = vi.mocked(learnWordMeanings);

async function until(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error("timed out waiting");
    await new Promise((resolve) => window.setTimeout(resolve, 5));
  }
}

describe("IndexKeeper and the vault's language learned again", () => {
  it("learns once from a batch of edits that crosses the line, after the batch is in: the next edit sets off no second learning", async () => {
    const vault = new Vault("Garden");
    for (const [path, text] of Object.entries(laneVault())) vault.seed(path, text, 1);
    /** Builds and batches of changes that landed (told once each is all in). */
    let landed = 0;
    const keeper = new IndexKeeper({
      store: new ObsidianNoteStore(vault as unknown as ObsidianVault),
      cache: new MemoryIndexCache(),
      clock: new TimerClock(),
      settings: defaultSettings,
      onStatus: () => {},
      notify: () => {},
      onNotesChanged: () => landed++,
      yieldToUi: () => new Promise((resolve) => window.setTimeout(resolve, 0)),
    });
    keeper.start(vault as unknown as ObsidianVault, () => {});
    await keeper.ready();
    await keeper.index.languageSettled();
    learned.mockClear();

    // A sync catching up: 150 of the 520 notes edited at once (the line is 52), one batch.
    const edit = async (path: string) => {
      const file = vault.getFileByPath(path)!;
      await vault.modify(file, `${await vault.read(file)}\nRevised after a trip.\n`);
    };
    const paths = keeper.index.paths().sort();
    let before = landed;
    for (const path of paths.slice(0, 150)) await edit(path);
    await until(() => landed > before);
    expect(paths.slice(0, 150).every((p) => keeper.index.note(p)!.mtime > 1)).toBe(true);
    await keeper.index.languageSettled();
    expect(learned).toHaveBeenCalledTimes(1);

    // One edit more: the meanings were learned from all of the batch, so nothing is counted against them but this.
    before = landed;
    await edit(paths[200]);
    await until(() => landed > before);
    await keeper.index.languageSettled();
    expect(learned).toHaveBeenCalledTimes(1);
    keeper.dispose();
  });

  it("learns the vault's language after a first build once the edits that came during it are in: once, not again at the next edit", async () => {
    const vault = new Vault("Garden");
    for (const [path, text] of Object.entries(laneVault())) vault.seed(path, text, 1);
    const notes = new ObsidianNoteStore(vault as unknown as ObsidianVault);
    let hold = true;
    const held: (() => void)[] = [];
    const store: NoteStore = {
      list: () => notes.list(),
      exists: (path) => notes.exists(path),
      stat: (path) => notes.stat(path),
      create: (path, text) => notes.create(path, text),
      read: (path) => {
        const reading = notes.read(path);
        if (!hold) return reading;
        return new Promise((resolve, reject) => held.push(() => void reading.then(resolve, reject)));
      },
    };
    let landed = 0;
    const keeper = new IndexKeeper({
      store,
      cache: new MemoryIndexCache(),
      clock: new TimerClock(),
      settings: defaultSettings,
      onStatus: () => {},
      notify: () => {},
      onNotesChanged: () => landed++,
      yieldToUi: () => new Promise((resolve) => window.setTimeout(resolve, 0)),
    });
    learned.mockClear();
    keeper.start(vault as unknown as ObsidianVault, () => {});
    await until(() => held.length > 0);
    // A sync still bringing the vault in while the first build reads it: 150 of the 520 notes change.
    const paths = Object.keys(laneVault()).sort();
    for (const path of paths.slice(0, 150)) await vault.modify(vault.getFileByPath(path)!, `${await vault.read(vault.getFileByPath(path)!)}\nRevised after a trip.\n`);
    hold = false;
    while (held.length > 0) held.shift()!();
    await keeper.ready();
    // The build, then the batch of the edits made during it.
    await until(() => landed >= 2);
    expect(paths.slice(0, 150).every((p) => keeper.index.note(p)!.mtime > 1)).toBe(true);
    await keeper.index.languageSettled();
    expect(keeper.index.status().vaultLanguage).toBe("ready");

    const before = landed;
    const file = vault.getFileByPath(paths[200])!;
    await vault.modify(file, `${await vault.read(file)}\nOne more line.\n`);
    await until(() => landed > before);
    await keeper.index.languageSettled();
    expect(learned).toHaveBeenCalledTimes(1);
    keeper.dispose();
  });
});
