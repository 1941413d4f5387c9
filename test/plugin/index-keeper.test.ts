// @vitest-environment happy-dom
// IndexKeeper keeps the plugin's index current: the first build leaves trace notes out, vault
// edits arrive after a quiet time, the cache is saved a while after the last change, and a failed
// build is an issue the status bar can list and a notice, never an exception at Obsidian.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Vault as ObsidianVault, EventRef } from "obsidian";
import { Vault } from "../stubs/obsidian";
import type { IndexIssue } from "../../src/index/index-status-text";
import type { IndexStatus } from "../../src/index/types";
import { PartRefused, type RebuildReason } from "../../src/index/rebuild-reason";
import { IndexKeeper } from "../../src/plugin/index-keeper";
import { ObsidianNoteStore } from "../../src/plugin/obsidian-note-store";
import { TimerClock } from "../../src/plugin/timer-clock";
import type { NoteStore } from "../../src/ports";
import { defaultSettings } from "../../src/settings";
import { MemoryIndexCache } from "../support/memory-index-cache";
import { wait } from "./fake-time";

/** Counts saves: each one ends with the manifest. */
class MemoryCache extends MemoryIndexCache {
  get saves(): number {
    return this.written.filter((name) => name === "manifest").length;
  }
}

interface Harness {
  keeper: IndexKeeper;
  vault: Vault;
  cache: MemoryCache;
  statuses: [IndexStatus | null, IndexIssue[]][];
  notices: string[];
}

function startKeeper(options: { store?: NoteStore; cache?: MemoryCache; vault?: Vault } = {}): Harness {
  const vault = options.vault ?? new Vault("Garden");
  if (!options.vault) {
    vault.seed("Gardening/Tomatoes.md", "# Tomatoes\n\nWater tomatoes deeply.\n", 1);
    vault.seed("Research/Traces/run-1.md", "# Trace\n\nTomatoes came up in a run.\n", 1);
  }
  const cache = options.cache ?? new MemoryCache();
  const statuses: Harness["statuses"] = [];
  const notices: string[] = [];
  const keeper = new IndexKeeper({
    store: options.store ?? new ObsidianNoteStore(vault as unknown as ObsidianVault),
    cache,
    clock: new TimerClock(),
    settings: defaultSettings,
    onStatus: (status, issues) => statuses.push([status, issues]),
    notify: (message) => notices.push(message),
  });
  const refs: EventRef[] = [];
  keeper.start(vault as unknown as ObsidianVault, (ref) => refs.push(ref));
  return { keeper, vault, cache, statuses, notices };
}

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

describe("IndexKeeper", () => {
  it("builds once started, leaving the trace folder out, and saves the cache a while later", async () => {
    const { keeper, cache, statuses } = startKeeper();
    expect(keeper.building).toBe(true);
    await keeper.ready();
    expect(keeper.index.paths()).toEqual(["Gardening/Tomatoes.md"]);
    expect(statuses.at(-1)?.[0]).toMatchObject({ state: "ready", notes: 1 });
    expect(cache.saves).toBe(0);
    await wait(10_000);
    expect(cache.saves).toBe(1);
    keeper.dispose();
  });

  it("takes vault edits into the index after the quiet time, renames included", async () => {
    const { keeper, vault } = startKeeper();
    await keeper.ready();
    const file = await vault.create("Gardening/Basil.md", "# Basil\n\nPinch out the flowers.\n");
    await wait(100);
    expect(keeper.index.note("Gardening/Basil.md")).toBeUndefined();
    await wait(1500);
    expect(keeper.index.note("Gardening/Basil.md")?.title).toBe("Basil");
    await vault.rename(file, "Gardening/Sweet basil.md");
    await wait(1600);
    expect(keeper.index.paths().sort()).toEqual(["Gardening/Sweet basil.md", "Gardening/Tomatoes.md"]);
    keeper.dispose();
  });

  it("keeps only the new name of a note renamed in case only, though the disk still answers to the old one", async () => {
    const vault = new Vault("Garden");
    vault.seed("Gardening/Tomatoes.md", "# Tomatoes\n\nWater tomatoes deeply.\n", 1);
    const store = new ObsidianNoteStore(vault as unknown as ObsidianVault);
    // As the desktop adapter on APFS or NTFS: `exists` asks the disk, which ignores case.
    const exists = store.exists.bind(store);
    store.exists = async (path) => (await exists(path)) || (await exists(path.toLowerCase()));
    const { keeper } = startKeeper({ store, vault });
    await keeper.ready();
    await vault.rename(vault.getAbstractFileByPath("Gardening/Tomatoes.md")!, "Gardening/tomatoes.md");
    await wait(1600);
    expect(keeper.index.paths()).toEqual(["Gardening/tomatoes.md"]);
    keeper.dispose();
  });

  it("moves a renamed folder's notes in the index without reading them again", async () => {
    const vault = new Vault("Garden");
    for (let i = 0; i < 200; i++) vault.seed(`Projects/Plot ${i}.md`, `# Plot ${i}\n\nRaised bed number${i} with [[Plot ${(i + 1) % 200}]].\n`, 1);
    vault.seed("Gardening/Tomatoes.md", "# Tomatoes\n\nWater tomatoes deeply.\n", 1);
    const store = new ObsidianNoteStore(vault as unknown as ObsidianVault);
    const reads: string[] = [];
    const read = store.read.bind(store);
    store.read = (path) => (reads.push(path), read(path));
    const { keeper } = startKeeper({ store, vault });
    await keeper.ready();
    reads.length = 0;
    // Obsidian reports the folder, then each file in it, renamed.
    await vault.createFolder("Archive");
    await vault.rename(vault.getAbstractFileByPath("Projects")!, "Archive/Projects");
    await wait(1600);
    expect(reads).toEqual([]);
    expect(keeper.index.paths().filter((p) => p.startsWith("Archive/Projects/"))).toHaveLength(200);
    expect(keeper.index.paths().filter((p) => p.startsWith("Projects/"))).toEqual([]);
    expect((await keeper.index.search("number17", store))[0].path).toBe("Archive/Projects/Plot 17.md");
    expect((await keeper.index.search("archive", store, { limit: 1 }))[0].path).toMatch(/^Archive\/Projects\//);
    keeper.dispose();
  });

  it("reads a renamed note once when it was also edited in the same quiet time (Obsidian rewriting its links)", async () => {
    const vault = new Vault("Garden");
    for (let i = 0; i < 3; i++) vault.seed(`Projects/Plot ${i}.md`, `# Plot ${i}\n\nSee [Plot](Plot ${(i + 1) % 3}.md).\n`, 1);
    const store = new ObsidianNoteStore(vault as unknown as ObsidianVault);
    const reads: string[] = [];
    const read = store.read.bind(store);
    store.read = (path) => (reads.push(path), read(path));
    const { keeper } = startKeeper({ store, vault });
    await keeper.ready();
    reads.length = 0;
    await vault.createFolder("Archive");
    await vault.rename(vault.getAbstractFileByPath("Projects")!, "Archive/Projects");
    const file = vault.getFileByPath("Archive/Projects/Plot 0.md")!;
    await vault.process(file, (text) => text.replace("(Plot 1.md)", "(Archive/Projects/Plot 1.md)"));
    await wait(1600);
    expect(reads.filter((p) => p === "Archive/Projects/Plot 0.md")).toHaveLength(1);
    expect(keeper.index.paths().sort()).toEqual(["Archive/Projects/Plot 0.md", "Archive/Projects/Plot 1.md", "Archive/Projects/Plot 2.md"]);
    expect((await keeper.index.search("archive", store, { limit: 1 }))[0].path).toBe("Archive/Projects/Plot 0.md");
    keeper.dispose();
  });

  it("turns a failed build into an issue and a notice, and will not start a second build meanwhile", async () => {
    let release: () => void = () => {};
    const failing: NoteStore = {
      list: () => new Promise((_resolve, reject) => (release = () => reject(new Error("vault is locked")))),
      read: async () => "",
      exists: async () => false,
      create: async () => undefined,
    };
    const { keeper, notices } = startKeeper({ store: failing });
    expect(await keeper.rebuild()).toBe(false);
    await wait(); // until the build lists the vault
    release();
    await keeper.ready();
    expect(keeper.issues()).toEqual([{ message: "The index could not be built: vault is locked" }]);
    expect(notices).toEqual(["Vault Research: The index could not be built: vault is locked"]);
    expect(keeper.status()).toMatchObject({ state: "empty" });
    keeper.dispose();
  });

  // Enough of the vault changed for its language to be learned again behind: that ended after the save
  // of the edit that set it off, nothing marked it to save, and the next start learned it all once more.
  it.each(["relearning", "learning"] as const)("saves the cache when a learning of the vault's language (%s) ends with meanings to keep", async (learning) => {
    const { keeper, cache } = startKeeper();
    await keeper.ready();
    await wait(10_000);
    expect(cache.saves).toBe(1);
    const status = vi.spyOn(keeper.index, "status");
    const ready: IndexStatus = { notes: 2, lastUpdated: 1, state: "ready", problems: [] };
    // The index tells its listeners of a change (applyText): the lane is learning, then learned.
    status.mockReturnValue({ ...ready, vaultLanguage: learning });
    keeper.index.applyText("Gardening/Basil.md", "# Basil\n", 1, 8);
    await wait(10_000);
    expect(cache.saves).toBe(1);
    status.mockReturnValue({ ...ready, vaultLanguage: "ready" });
    keeper.index.applyText("Gardening/Sage.md", "# Sage\n", 1, 7);
    await wait(10_000);
    expect(cache.saves).toBe(2);
    keeper.dispose();
  });

  it("saves nothing for a learning that ended with no meanings (a rebuild started over)", async () => {
    const { keeper, cache } = startKeeper();
    await keeper.ready();
    await wait(10_000);
    const status = vi.spyOn(keeper.index, "status");
    status.mockReturnValue({ notes: 2, lastUpdated: 1, state: "ready", problems: [], vaultLanguage: "relearning" });
    keeper.index.applyText("Gardening/Basil.md", "# Basil\n", 1, 8);
    status.mockReturnValue({ notes: 0, lastUpdated: 1, state: "building", problems: [] });
    keeper.index.applyText("Gardening/Sage.md", "# Sage\n", 1, 7);
    await wait(10_000);
    expect(cache.saves).toBe(1);
    keeper.dispose();
  });

  describe("a saved index it could not use", () => {
    /** A cache whose every part is refused for `reason`, as the IndexedDB cache refuses them. */
    function refusing(reason: RebuildReason): MemoryCache {
      const cache = new MemoryCache();
      cache.failRead = new PartRefused(reason, "the part manifest was refused");
      return cache;
    }

    // A damaged cache's rebuild reached the console only: the user never learnt why start-up was slow, or that their disk or sync tool damaged files.
    it("leaves an issue naming the damage until the next build", async () => {
      const { keeper, statuses } = startKeeper({ cache: refusing({ kind: "corrupt", detail: "the part segment-1-0 does not match its checksum" }) });
      await keeper.ready();
      const issue = { message: "The index was built again from the notes: the cache is corrupt (the part segment-1-0 does not match its checksum)." };
      expect(keeper.issues()).toEqual([issue]);
      expect(statuses.at(-1)?.[1]).toEqual([issue]);
      expect(keeper.index.paths()).toEqual(["Gardening/Tomatoes.md"]);
      expect(await keeper.rebuild()).toBe(true);
      expect(keeper.issues()).toEqual([]);
      keeper.dispose();
    });

    it.each<RebuildReason>([{ kind: "saved_without_checksums" }, { kind: "format_changed", from: "15", to: 16 }, { kind: "settings_changed" }])("rebuilds quietly after an upgrade or a settings change (%j)", async (reason) => {
      const { keeper, notices } = startKeeper({ cache: refusing(reason) });
      await keeper.ready();
      expect(keeper.issues()).toEqual([]);
      expect(notices).toEqual([]);
      keeper.dispose();
    });
  });
});
