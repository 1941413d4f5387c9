// Keeps the plugin's vault index current: the first build once the workspace is ready, vault
// events through the debounced update queue, rebuilds when index settings change, and the cache
// saved a while after the last change (and on unload). Failures become issues the status bar
// shows; nothing here throws at Obsidian.
import { debounce, TFile, type Debouncer, type EventRef, type TAbstractFile, type Vault } from "obsidian";
import { languageLearning, type IndexIssue } from "../index/index-status-text";
import { describeRebuildReason, meansDamage } from "../index/rebuild-reason";
import type { IndexStatus, SyncReport } from "../index/types";
import { UpdateQueue, type IndexUpdate, type VaultChange } from "../index/update-queue";
import { VaultIndex } from "../index/vault-index";
import { vaultLanguageRanking } from "../index/ranking/ranking-options";
import type { IndexCache, NoteStore, Workers } from "../ports";
import type { Settings } from "../settings";
import { canonicalizeUrl } from "../websearch/canonical-url";
import type { TimerClock } from "./timer-clock";
import { errorMessage } from "../text/error-message";
import { yieldToUi } from "./yield-to-ui";

/** Quiet time after the last edit before the index catches up. */
const UPDATE_DELAY_MS = 1500;
/** How long index changes may sit unsaved in memory. */
const CACHE_SAVE_DELAY_MS = 10_000;
/** Index steps between yields to the UI during a large batch (a folder rename, a sync). */
const STEPS_PER_YIELD = 25;
/** Renames handed to the index at once (it pauses for the UI within): a folder's notes move a thousand to a walk over the postings, and unloading stops the batch between two such steps. */
const RENAMES_PER_STEP = 1000;

export interface IndexKeeperDeps {
  store: NoteStore;
  cache: IndexCache;
  clock: TimerClock;
  settings: () => Settings;
  /** The index's state changed (the status bar redraws). */
  onStatus: (status: IndexStatus | null, issues: IndexIssue[]) => void;
  /** Something the user should see now (a Notice in the plugin). */
  notify: (message: string) => void;
  /** The index's notes changed (a build ended, updates were applied): the vectors follow. */
  onNotesChanged?: () => void;
  /** Gives the UI a turn between slices (default: a MessageChannel yield, unclamped). */
  yieldToUi?: () => Promise<void>;
  /** Where the vault's language is learned (a Web Worker); absent, it is learned between slices. */
  workers?: Workers | null;
}

export class IndexKeeper {
  index: VaultIndex;
  private readonly deps: IndexKeeperDeps;
  private readonly queue: UpdateQueue;
  private readonly scheduleCacheSave: Debouncer<[], void>;
  private stopWatchingIndex: () => void = () => {};
  /** Why the last build failed, if it did. */
  private buildFailure: IndexIssue | null = null;
  /** Why the last build could not use the saved index, when that was damaged (an upgrade or a first start is no issue). */
  private cacheDamage: IndexIssue | null = null;
  /** Updates that failed, by path (a later successful update clears them). */
  private readonly updateFailures = new Map<string, IndexIssue>();
  /** Settles when the current build (start-up sync or rebuild) is over; updates wait for it. */
  private indexing: Promise<void> | null = null;
  private cacheDirty = false;
  private disposed = false;
  /** Notes the running build will hold when done (null outside a build, or before it is counted). */
  private buildTotal: number | null = null;
  /** A batch of updates that spans several turns of the UI (a folder renamed, a sync catching up) is being applied. */
  private applyingMany = false;
  /** Lets the index learn the vault's language again: held from a build's or a batch's start until no batch follows it. */
  private relearningHeld: { index: VaultIndex; release: () => void } | null = null;
  /** The save `dispose` started. */
  private unloadSaving: Promise<void> = Promise.resolve();

  constructor(deps: IndexKeeperDeps) {
    this.deps = deps;
    this.index = this.createIndex();
    this.queue = new UpdateQueue({
      clock: deps.clock,
      delayMs: UPDATE_DELAY_MS,
      apply: (updates) => this.applyUpdates(updates),
      onError: (error) => console.error("Vault Research: an index update failed.", error),
    });
    this.scheduleCacheSave = debounce(() => void this.saveCache(), CACHE_SAVE_DELAY_MS);
  }

  /** Starts watching the vault and builds the index from the cache (called once layout is ready). */
  start(vault: Vault, register: (ref: EventRef) => void): void {
    if (this.disposed) return;
    this.watch(vault, register);
    this.indexing = this.runBuild(() => this.index.sync(this.deps.store, this.deps.cache));
  }

  /** Resolves when no build is running (a run during the first build would search half an index). */
  async ready(): Promise<void> {
    if (this.indexing) await this.indexing;
  }

  get building(): boolean {
    return this.indexing !== null;
  }

  /** While a build runs: how many notes it will hold, for "N of M notes" (null otherwise). */
  indexingTotal(): number | null {
    return this.indexing ? this.buildTotal : null;
  }

  /** Rebuilds from scratch; false when a build is already running or the plugin is unloaded. */
  async rebuild(): Promise<boolean> {
    if (this.indexing || this.disposed) return false;
    this.indexing = this.runBuild(() => this.index.rebuild(this.deps.store));
    await this.indexing;
    return this.buildFailure === null;
  }

  /**
   * Swaps in an empty index made with the current settings (word analysis is fixed when an index is
   * made, so a stemming change needs a new one); the caller then rebuilds it.
   */
  async replaceIndex(): Promise<void> {
    await this.ready();
    if (this.disposed) return;
    this.stopWatchingIndex();
    // The old index would go on learning the vault's language (in a worker) for nothing.
    this.index.stopLearning();
    this.index = this.createIndex();
    this.report();
  }

  /** Applies changed folder exclusions: excluded notes leave at once, newly included ones are read. */
  async applyExclusions(): Promise<void> {
    await this.ready();
    if (this.disposed) return;
    this.index.setExcludedFolders(this.excludedFolders());
    // The cache is saved under the new exclusions (else the next start finds them changed and rebuilds),
    // and notes that left go from the vectors too (a run under way stops sending them: EmbeddingKeeper's mayEmbed).
    this.markCacheDirty();
    this.deps.onNotesChanged?.();
    await this.indexNewlyIncludedNotes();
  }

  /** A note was added behind the queue's back (a promotion already indexed it): save and redraw. */
  noteAdded(): void {
    this.markCacheDirty();
    this.report();
  }

  status(): IndexStatus | null {
    try {
      return this.shown(this.index.status());
    } catch {
      return null;
    }
  }

  /** The index's status as the user should read it: while a large batch lands, it is being updated, not ready. */
  private shown(status: IndexStatus): IndexStatus {
    return this.applyingMany && status.state === "ready" ? { ...status, state: "updating" } : status;
  }

  issues(): IndexIssue[] {
    return [...(this.buildFailure ? [this.buildFailure] : []), ...(this.cacheDamage ? [this.cacheDamage] : []), ...this.updateFailures.values()];
  }

  /** Stops everything and saves what is unsaved (`unloadSave` says when that save is over). */
  dispose(): void {
    this.disposed = true;
    this.queue.dispose();
    // Learning the vault's language runs behind the ready index for seconds: it stops with the
    // plugin. Meanings it finished learning stay in the index, and go into the save below.
    this.index.stopLearning();
    this.scheduleCacheSave.cancel();
    this.stopWatchingIndex();
    // A build cut short stops at its next pause (see yieldToUi); its half is not saved: the next
    // start compares the vault with the cache as it was and reads what is missing.
    if (!this.cacheDirty || this.indexing) return;
    this.cacheDirty = false;
    // Obsidian does not wait for onunload; the write finishes on its own.
    this.unloadSaving = this.index.save(this.deps.cache).catch((error) => console.warn("Vault Research: could not save the index cache.", error));
  }

  /** Resolves when the save the unload started is over (at once when it started none). */
  unloadSave(): Promise<void> {
    return this.unloadSaving;
  }

  private createIndex(): VaultIndex {
    const index = new VaultIndex({
      excludedFolders: this.excludedFolders(),
      stemming: this.deps.settings().index.stemming,
      ranking: vaultLanguageRanking(this.deps.settings().index.vaultLanguage),
      clock: this.deps.clock,
      canonicalizeUrl,
      // Obsidian paints and handles input between indexing slices.
      yieldToUi: this.yieldToUi,
      workers: this.deps.workers ?? null,
    });
    // The vault's language learned again behind (vault-index.ts `relearnWhenStale`) ends after the
    // edit that set it off was saved: its end is a change to save, as the MCP server's watcher
    // counts it, or the next start learned it all once more. One that ends with no meanings (a
    // rebuild's reset, the plugin unloaded) leaves nothing to save; a first build's is saved once settled (runBuild).
    let learning = languageLearning(index.status());
    this.stopWatchingIndex = index.onChange((status) => {
      const learnedNow = learning && !languageLearning(status) && status.vaultLanguage === "ready";
      learning = languageLearning(status);
      if (learnedNow) this.markCacheDirty();
      this.deps.onStatus(this.shown(status), this.issues());
    });
    return index;
  }

  private excludedFolders(): string[] {
    const settings = this.deps.settings();
    // Trace notes describe runs; indexing them would feed answers back into the evidence.
    return [...new Set([...settings.index.excludedFolders, settings.notes.traceFolder])];
  }

  private watch(vault: Vault, register: (ref: EventRef) => void): void {
    register(vault.on("create", (file) => this.onFileEvent("create", file)));
    register(vault.on("modify", (file) => this.onFileEvent("modify", file)));
    register(vault.on("delete", (file) => this.onFileEvent("delete", file)));
    register(
      vault.on("rename", (file, oldPath) => {
        if (!(file instanceof TFile)) return;
        const wasNote = oldPath.toLowerCase().endsWith(".md");
        const isNote = file.extension === "md";
        if (wasNote && isNote) this.queue.push({ kind: "rename", oldPath, path: file.path });
        else if (wasNote) this.queue.push({ kind: "delete", path: oldPath });
        else if (isNote) this.queue.push({ kind: "create", path: file.path });
      }),
    );
  }

  private onFileEvent(kind: Exclude<VaultChange["kind"], "rename">, file: TAbstractFile): void {
    // Deleting a folder reports each file in it as well, so folders themselves can be ignored.
    if (file instanceof TFile && file.extension === "md") this.queue.push({ kind, path: file.path });
  }

  private async applyUpdates(updates: IndexUpdate[]): Promise<void> {
    await this.ready();
    // A batch too large to land between two frames says so: "12,000 notes indexed" while a sync's
    // 5,000 changes are still being read would tell the user the index is current when it is not.
    this.applyingMany = updates.length > STEPS_PER_YIELD;
    if (this.applyingMany && !this.disposed) this.report();
    // The vault's language is learned again once the changes are all in: held while batches follow
    // one another (events that came during one are the next, at once), let go once none is pending.
    // Taken just before the `try` whose `finally` lets it go: nothing between may throw with it held.
    this.holdRelearning();
    try {
      if (!(await this.applyEach(updates))) return;
    } finally {
      this.applyingMany = false;
      if (this.queue.size === 0) this.letRelearn();
    }
    this.markCacheDirty();
    this.report();
    this.deps.onNotesChanged?.();
  }

  /** Holds back the index's learning of the vault's language (once: a hold on an index replaced since goes). */
  private holdRelearning(): void {
    if (this.relearningHeld?.index === this.index) return;
    this.letRelearn();
    this.relearningHeld = { index: this.index, release: this.index.holdRelearning() };
  }

  /** Lets the index learn the vault's language again, if enough changed, now that no batch follows. */
  private letRelearn(): void {
    const held = this.relearningHeld;
    this.relearningHeld = null;
    held?.release();
  }

  /** Applies the batch's steps in order, yielding to the UI between groups; false when the plugin was unloaded meanwhile. */
  private async applyEach(updates: IndexUpdate[]): Promise<boolean> {
    // The renames come first, and go to the index together: a folder renamed moves its notes unread.
    const renames = updates.filter((u): u is Extract<IndexUpdate, { kind: "rename" }> => u.kind === "rename");
    const readAfter = new Set(updates.flatMap((u) => (u.kind === "update" ? [u.path] : [])));
    for (let i = 0; i < renames.length; i += RENAMES_PER_STEP) {
      if (this.disposed) return false;
      await this.applyRenames(renames.slice(i, i + RENAMES_PER_STEP), readAfter);
    }
    for (const [i, update] of updates.filter((u) => u.kind !== "rename").entries()) {
      if (this.disposed) return false;
      try {
        if (update.kind === "remove") this.index.removeFile(update.path);
        else await this.index.updateFile(this.deps.store, update.path);
        this.updateFailures.delete(update.path);
      } catch (error) {
        this.updateFailures.set(update.path, { path: update.path, message: `Could not update the index: ${errorMessage(error)}` });
      }
      if ((i + 1) % STEPS_PER_YIELD === 0) await this.yieldToUi();
    }
    return true;
  }

  /** The batch's renames, in its order (`readAfter`: the notes it reads after them); the index pauses for the UI between its slices. */
  private async applyRenames(renames: Extract<IndexUpdate, { kind: "rename" }>[], readAfter: ReadonlySet<string>): Promise<void> {
    try {
      await this.index.renameFiles(this.deps.store, renames, readAfter);
      for (const { oldPath, path } of renames) {
        this.updateFailures.delete(path);
        this.updateFailures.delete(oldPath);
      }
    } catch (error) {
      for (const { path } of renames) this.updateFailures.set(path, { path, message: `Could not update the index: ${errorMessage(error)}` });
    }
  }

  /** The index's pause between slices; a build still running once the plugin is unloaded ends there. */
  private readonly yieldToUi = async (): Promise<void> => {
    await (this.deps.yieldToUi ?? yieldToUi)();
    if (this.disposed && this.indexing) throw new BuildStopped();
  };

  /** After exclusions shrink, notes in folders no longer excluded are read; the rest stay as they are. */
  private async indexNewlyIncludedNotes(): Promise<void> {
    await this.ready();
    for (const file of await this.deps.store.list()) {
      if (this.index.isIndexable(file.path) && !this.index.note(file.path)) this.queue.push({ kind: "create", path: file.path });
    }
    await this.queue.flush();
  }

  private runBuild(build: () => Promise<SyncReport>): Promise<void> {
    // The vault's language is learned from the notes once the edits that come during the build
    // (a sync still bringing the vault in) are in too, not from the vault the build listed.
    this.holdRelearning();
    this.buildFailure = null;
    this.cacheDamage = null;
    this.updateFailures.clear();
    this.buildTotal = null;
    this.report();
    void this.countBuildTotal();
    return build()
      .then((report) => {
        if (this.disposed) return;
        this.cacheDamage = cacheDamageIssue(report);
        this.markCacheDirty();
        this.deps.onNotesChanged?.();
        // The vault's language is learned behind the ready index: saved once it is there.
        const index = this.index;
        void index.languageSettled().then(() => {
          if (!this.disposed && index === this.index) this.markCacheDirty();
        });
      })
      .catch((error: unknown) => {
        if (this.disposed) return;
        this.buildFailure = { message: `The index could not be built: ${errorMessage(error)}` };
        this.deps.notify(`Vault Research: ${this.buildFailure.message}`);
      })
      .finally(() => {
        this.indexing = null;
        // Else the batch of edits that waited for the build lets it go once it is in (applyUpdates).
        if (!this.queue.busy && this.queue.size === 0) this.letRelearn();
        // A build that ended after unloading may have started learning the vault's language: stopped too.
        if (this.disposed) this.index.stopLearning();
        else this.report();
      });
  }

  /** The vault's list is in memory in Obsidian, so counting the notes a build will hold costs no disk reads. */
  private async countBuildTotal(): Promise<void> {
    try {
      const files = await this.deps.store.list();
      if (this.indexing) this.buildTotal = files.filter((f) => this.index.isIndexable(f.path)).length;
    } catch {
      // Without a total the status shows the rising count alone.
    }
  }

  private markCacheDirty(): void {
    // After unloading, a late change (a promotion finishing) would only leave a timer behind.
    if (this.disposed) return;
    this.cacheDirty = true;
    this.scheduleCacheSave();
  }

  private async saveCache(): Promise<void> {
    if (!this.cacheDirty || this.disposed) return;
    this.cacheDirty = false;
    try {
      await this.index.save(this.deps.cache);
    } catch (error) {
      // The index kept what it could not write: the next change, or unloading, tries again.
      if (!this.disposed) this.cacheDirty = true;
      console.warn("Vault Research: could not save the index cache.", error);
    }
  }

  private report(): void {
    this.deps.onStatus(this.status(), this.issues());
  }
}

/** The issue a build that found the saved index damaged leaves (it went only to the console before), else null. */
function cacheDamageIssue(report: SyncReport): IndexIssue | null {
  if (report.mode !== "rebuild" || !meansDamage(report.rebuildReason)) return null;
  // Each damage reason's words start with "cache" (rebuild-reason.test.ts pins them).
  return { message: `The index was built again from the notes: the ${describeRebuildReason(report.rebuildReason)}.` };
}

/** Thrown at a build's pause once the plugin is unloaded: the build ends there, unreported. */
class BuildStopped extends Error {
  constructor() {
    super("the plugin was unloaded");
  }
}
