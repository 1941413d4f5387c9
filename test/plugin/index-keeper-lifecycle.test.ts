// @vitest-environment happy-dom
// IndexKeeper across the plugin's lifecycle: a build cut short by unloading stops reading notes
// and starts no worker; an index replaced (a stemming or vault-language switch) stops learning; a
// rebuild asked for after unloading does nothing; and nothing late leaves a timer behind.
import { afterEach, describe, expect, it, vi } from "vitest";
import type { EventRef, Vault as ObsidianVault } from "obsidian";
import { Vault } from "../stubs/obsidian";
import { IndexKeeper } from "../../src/plugin/index-keeper";
import { TimerClock } from "../../src/plugin/timer-clock";
import type { NoteStore, Workers } from "../../src/ports";
import { defaultSettings } from "../../src/settings";
import { ControlledStore } from "../support/controlled-note-store";
import { laneVault } from "../support/lane-vault";
import { MemoryIndexCache } from "../support/memory-index-cache";
import { ObsidianNoteStore } from "../../src/plugin/obsidian-note-store";

/** The Workers port, recording each job; a job runs until its signal aborts (as a real worker is ended). */
class RecordingWorkers implements Workers {
  readonly runs: AbortSignal[] = [];
  run(_message: unknown, signal: AbortSignal): Promise<unknown> {
    this.runs.push(signal);
    return new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(new Error("ended")), { once: true }));
  }
  /** Jobs still running. */
  get live(): number {
    return this.runs.filter((s) => !s.aborted).length;
  }
}

/** An index cache whose reads wait until the test opens the gate. */
class GatedCache extends MemoryIndexCache {
  private open: () => void = () => {};
  private readonly gate = new Promise<void>((resolve) => (this.open = resolve));
  reads = 0;
  override async read(name: string): Promise<unknown> {
    this.reads++;
    await this.gate;
    return super.read(name);
  }
  release(): void {
    this.open();
  }
}

function manyNotes(count: number): ControlledStore {
  const store = new ControlledStore();
  for (let i = 0; i < count; i++) store.write(`Notes/Note ${i}.md`, `# Note ${i}\n\nText about topic ${i}.\n`);
  return store;
}

function keeperOver(store: NoteStore, options: { cache?: MemoryIndexCache; workers?: Workers } = {}): IndexKeeper {
  const keeper = new IndexKeeper({
    store,
    cache: options.cache ?? new MemoryIndexCache(),
    clock: new TimerClock(),
    settings: defaultSettings,
    onStatus: () => {},
    notify: () => {},
    workers: options.workers ?? null,
    yieldToUi: () => new Promise((resolve) => setTimeout(resolve, 0)),
  });
  keeper.start(new Vault("Garden") as unknown as ObsidianVault, (_ref: EventRef) => {});
  return keeper;
}

afterEach(() => {
  vi.useRealTimers();
});

describe("IndexKeeper and unloading", () => {
  it("stops a build cut short by unloading at its next pause: the rest of the vault is not read", async () => {
    const store = manyNotes(600);
    store.holdReads = true;
    const keeper = keeperOver(store);
    await until(() => store.held.length > 0);
    keeper.dispose();
    store.holdReads = false;
    while (store.held.length > 0) store.held.shift()!.release();
    await keeper.ready();
    // The batch in flight (250 notes) is finished; the 350 after it are never read.
    expect(store.reads.length).toBeLessThanOrEqual(250);
    expect(keeper.issues()).toEqual([]);
  });

  it("starts no worker when unloaded while the cache is still being read", async () => {
    const store = new ControlledStore();
    for (const [path, text] of Object.entries(laneVault())) store.write(path, text);
    const cache = new GatedCache();
    const workers = new RecordingWorkers();
    const keeper = keeperOver(store, { cache, workers });
    await until(() => cache.reads > 0);
    keeper.dispose();
    cache.release();
    await keeper.ready();
    await settle();
    expect(workers.live).toBe(0);
  });

  it("stops the replaced index learning the vault's language (its worker is ended)", async () => {
    const store = new ControlledStore();
    for (const [path, text] of Object.entries(laneVault())) store.write(path, text);
    const workers = new RecordingWorkers();
    const keeper = keeperOver(store, { workers });
    await keeper.ready();
    await until(() => workers.runs.length === 1);
    await keeper.replaceIndex();
    expect(workers.runs[0].aborted).toBe(true);
    keeper.dispose();
    await settle();
    expect(workers.live).toBe(0);
  });

  it("does not rebuild after unloading, even when the rebuild was asked for before", async () => {
    const store = manyNotes(600);
    store.holdReads = true;
    const keeper = keeperOver(store);
    await until(() => store.held.length > 0);
    // A stemming switch: the index is replaced once the running build is over, then rebuilt.
    const switched = keeper.replaceIndex().then(() => keeper.rebuild());
    keeper.dispose();
    store.holdReads = false;
    while (store.held.length > 0) store.held.shift()!.release();
    expect(await switched).toBe(false);
    await settle();
    expect(store.reads.length).toBeLessThanOrEqual(250);
    expect(keeper.building).toBe(false);
  });

  it("leaves no timer behind when a note arrives after unloading (a promotion finishing late)", async () => {
    vi.useFakeTimers();
    const { keeper } = await builtGarden();
    await vi.advanceTimersByTimeAsync(20_000); // saved
    keeper.dispose();
    keeper.noteAdded();
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("IndexKeeper and vault events during a build", () => {
  it("a folder renamed while the first build reads its notes ends with the notes at their new paths, no problems left", async () => {
    const vault = new Vault("Garden");
    for (let i = 0; i < 60; i++) vault.seed(`Projects/Note ${i}.md`, `# Note ${i}\n\nPlans for project ${i}.\n`, 1);
    const notes = new ObsidianNoteStore(vault as unknown as ObsidianVault);
    let hold = true;
    const held: (() => void)[] = [];
    const store: NoteStore = {
      list: () => notes.list(),
      exists: (path) => notes.exists(path),
      stat: (path) => notes.stat(path),
      create: (path, text) => notes.create(path, text),
      // The read starts at once (a moved note is then not there); its answer waits while held.
      read: (path) => {
        const reading = notes.read(path);
        if (!hold) return reading;
        // Releasing settles the read's own promise: its outcome goes to resolve or reject, none is lost.
        return new Promise((resolve, reject) => held.push(() => void reading.then(resolve, reject)));
      },
    };
    const keeper = new IndexKeeper({ store, cache: new MemoryIndexCache(), clock: new TimerClock(), settings: defaultSettings, onStatus: () => {}, notify: () => {}, yieldToUi: () => new Promise((resolve) => setTimeout(resolve, 0)) });
    keeper.start(vault as unknown as ObsidianVault, (_ref: EventRef) => {});
    await until(() => held.length > 0);
    await vault.rename(vault.getFolderByPath("Projects")!, "Done");
    hold = false;
    while (held.length > 0) held.shift()!();
    await keeper.ready();
    await until(() => keeper.index.paths().every((p) => p.startsWith("Done/")) && keeper.index.paths().length === 60);
    expect(keeper.index.status().problems ?? []).toEqual([]);
    expect(keeper.issues()).toEqual([]);
    keeper.dispose();
  });
});

describe("IndexKeeper and a cache that cannot be written", () => {
  it("tries a failed save again when unloaded", async () => {
    vi.useFakeTimers();
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const { keeper, cache } = await builtGarden();
    cache.failWrite = () => true; // the disk is full
    await vi.advanceTimersByTimeAsync(20_000);
    expect(cache.parts.has("manifest")).toBe(false);
    cache.failWrite = null; // room again
    keeper.dispose();
    await vi.advanceTimersByTimeAsync(10);
    expect(cache.parts.has("manifest")).toBe(true);
    vi.restoreAllMocks();
  });
});

describe("IndexKeeper and excluded folders", () => {
  it("a folder no longer excluded is in the index while a sync keeps writing notes, and the change returns", async () => {
    vi.useFakeTimers();
    const vault = new Vault("Garden");
    vault.seed("Gardening/Tomatoes.md", "# Tomatoes\n\nWater deeply.\n", 1);
    vault.seed("Private/Diary.md", "# Diary\n\nDear diary.\n", 1);
    await vault.createFolder("Synced");
    const settings = defaultSettings();
    settings.index.excludedFolders = ["Private"];
    const keeper = new IndexKeeper({
      store: new ObsidianNoteStore(vault as unknown as ObsidianVault),
      cache: new MemoryIndexCache(),
      clock: new TimerClock(),
      settings: () => settings,
      onStatus: () => {},
      notify: () => {},
      yieldToUi: () => Promise.resolve(),
    });
    keeper.start(vault as unknown as ObsidianVault, () => {});
    await vi.advanceTimersByTimeAsync(10);
    await keeper.ready();
    // A sync client downloads a note for each one the index reads: the stream outlasts any batch
    // (cut off at 2,000 notes, so the test ends either way).
    let written = 0;
    const read = vault.cachedRead.bind(vault);
    vi.spyOn(vault, "cachedRead").mockImplementation(async (file) => {
      if (written < 2_000) void vault.create(`Synced/${++written}.md`, `# Synced ${written}\n`);
      return read(file);
    });

    settings.index.excludedFolders = [];
    let writtenWhenDone: number | null = null;
    const applied = keeper.applyExclusions().then(() => (writtenWhenDone = written));
    for (let i = 0; i < 200 && writtenWhenDone === null; i++) await vi.advanceTimersByTimeAsync(10);
    await applied;
    expect(keeper.index.note("Private/Diary.md")).toBeDefined();
    // Only the batch holding the diary was waited for, not the sync behind it.
    expect(writtenWhenDone).toBeLessThan(10);
    keeper.dispose();
  });

  it("excluding a folder tells the vectors, and saves the cache so the next start need not rebuild", async () => {
    vi.useFakeTimers();
    const vault = new Vault("Garden");
    vault.seed("Gardening/Tomatoes.md", "# Tomatoes\n\nWater deeply.\n", 1);
    vault.seed("Private/Diary.md", "# Diary\n\nDear diary.\n", 1);
    const settings = defaultSettings();
    const cache = new MemoryIndexCache();
    let changes = 0;
    const keeperWith = () =>
      new IndexKeeper({
        store: new ObsidianNoteStore(vault as unknown as ObsidianVault),
        cache,
        clock: new TimerClock(),
        settings: () => settings,
        onStatus: () => {},
        notify: () => {},
        onNotesChanged: () => changes++,
        yieldToUi: () => Promise.resolve(),
      });
    const keeper = keeperWith();
    keeper.start(vault as unknown as ObsidianVault, () => {});
    await vi.advanceTimersByTimeAsync(10);
    await keeper.ready();
    await vi.advanceTimersByTimeAsync(20_000);
    changes = 0;

    settings.index.excludedFolders = ["Private"];
    await keeper.applyExclusions();
    expect(keeper.index.paths()).toEqual(["Gardening/Tomatoes.md"]);
    expect(changes).toBe(1);
    await vi.advanceTimersByTimeAsync(20_000);
    keeper.dispose();

    const read = vi.spyOn(vault, "cachedRead");
    const next = keeperWith();
    next.start(vault as unknown as ObsidianVault, () => {});
    await vi.advanceTimersByTimeAsync(10);
    await next.ready();
    expect(read).not.toHaveBeenCalled();
    expect(next.index.paths()).toEqual(["Gardening/Tomatoes.md"]);
    next.dispose();
  });
});

/** Lets pending promise chains and zero-delay timers run out. */
/** A keeper over a one-note vault in the stand-in, its first build done (under fake timers). */
async function builtGarden(): Promise<{ keeper: IndexKeeper; cache: MemoryIndexCache; vault: Vault }> {
  const vault = new Vault("Garden");
  vault.seed("Gardening/Tomatoes.md", "# Tomatoes\n\nWater deeply.\n", 1);
  const cache = new MemoryIndexCache();
  const keeper = new IndexKeeper({
    store: new ObsidianNoteStore(vault as unknown as ObsidianVault),
    cache,
    clock: new TimerClock(),
    settings: defaultSettings,
    onStatus: () => {},
    notify: () => {},
    yieldToUi: () => Promise.resolve(),
  });
  keeper.start(vault as unknown as ObsidianVault, () => {});
  await vi.advanceTimersByTimeAsync(10);
  await keeper.ready();
  return { keeper, cache, vault };
}

async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setTimeout(resolve, 1));
}

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}
