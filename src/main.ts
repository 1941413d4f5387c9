// The plugin's lifecycle, and nothing else: load settings, build the services, index once the
// workspace is ready, keep the index current through the update queue, and tear it all down.
// The work itself lives in the index (src/index) and the adapters (src/plugin).
import { debounce, Notice, Plugin, TFile, type Debouncer, type TAbstractFile } from "obsidian";
import { runResearch } from "./core/research-run";
import { createChatModel, modelConfigFromSettings, secretNameFor } from "./llm/model-spec";
import { testConnection } from "./llm/test-connection";
import type { ChatModel } from "./llm/chat-model";
import { UpdateQueue, type IndexUpdate, type VaultChange } from "./index/update-queue";
import type { IndexStatus } from "./index/types";
import { VaultIndex } from "./index/vault-index";
import { canonicalizeUrl } from "./websearch/canonical-url";
import { IndexedDbCache } from "./plugin/indexeddb-cache";
import { ObsidianNoteStore } from "./plugin/obsidian-note-store";
import { Promoter } from "./plugin/promoter";
import { RequestUrlHttp } from "./plugin/request-url-http";
import { SecretStorageSecrets } from "./plugin/secret-storage-secrets";
import { TimerClock } from "./plugin/timer-clock";
import { defaultSettings, loadSettings, SETTINGS_VERSION, type Settings } from "./settings";
import { IndexProblemsModal, IndexStatusBar, indexIssues, type IndexIssue } from "./ui/index-status";
import { openAtSection, VaultSearchModal } from "./ui/search-modal";
import { VaultResearchSettingTab, type SettingsHost } from "./ui/settings-tab";
import { AskQuestionModal } from "./ui/ask-modal";
import { isTraceNoteWithOutsideRows, pickAndPromoteFromTrace } from "./ui/promote-modal";
import { RESEARCH_VIEW_TYPE, ResearchView, type PreparedRun, type ResearchPanelHost } from "./ui/research-view";
import { createSearchSession, type SearchSession } from "./websearch/search-providers";

/** Quiet time after the last edit before the index catches up. */
const UPDATE_DELAY_MS = 1500;
/** How long index changes may sit unsaved in memory. */
const CACHE_SAVE_DELAY_MS = 10_000;
/** Index steps between yields to the UI during a large batch (a folder rename, a sync). */
const STEPS_PER_YIELD = 25;

export default class VaultResearchPlugin extends Plugin implements SettingsHost {
  override settings: Settings = defaultSettings();
  index!: VaultIndex;
  store!: ObsidianNoteStore;
  http!: RequestUrlHttp;
  secrets!: SecretStorageSecrets;
  promoter!: Promoter;

  private clock!: TimerClock;
  /** One per plugin session: the web cache and the rate governor outlive a single run. */
  private searchSession!: SearchSession;
  private cache!: IndexedDbCache;
  private queue!: UpdateQueue;
  private statusBar!: IndexStatusBar;
  private stopWatchingIndex: () => void = () => {};
  private scheduleCacheSave!: Debouncer<[], void>;
  /** Why the last build failed, if it did. */
  private buildFailure: IndexIssue | null = null;
  /** Updates that failed, by path (a later successful update clears them). */
  private updateFailures = new Map<string, IndexIssue>();
  /** Settles when the current build (start-up sync or rebuild) is over; updates wait for it. */
  private indexing: Promise<void> | null = null;
  private cacheDirty = false;
  private unloaded = false;

  override async onload(): Promise<void> {
    this.unloaded = false;
    await this.loadPluginSettings();

    this.clock = new TimerClock();
    this.store = new ObsidianNoteStore(this.app.vault);
    this.cache = new IndexedDbCache(vaultId(this.app));
    this.http = new RequestUrlHttp();
    this.secrets = new SecretStorageSecrets(this.app.secretStorage, () => this.settings);
    this.index = this.createIndex();
    this.searchSession = createSearchSession({ clock: this.clock });
    this.promoter = new Promoter({
      vault: this.app.vault,
      store: this.store,
      http: this.http,
      clock: this.clock,
      settings: () => this.settings,
      index: () => this.index,
      indexReady: async () => {
        if (this.indexing) await this.indexing;
      },
      // The note is already in the index; the cache and the status bar follow.
      onNoteCreated: () => {
        this.markCacheDirty();
        this.renderStatus();
      },
    });
    this.queue = new UpdateQueue({
      clock: this.clock,
      delayMs: UPDATE_DELAY_MS,
      apply: (updates) => this.applyUpdates(updates),
      onError: (error) => console.error("Vault Research: an index update failed.", error),
    });
    this.scheduleCacheSave = debounce(() => void this.saveCache(), CACHE_SAVE_DELAY_MS);

    this.statusBar = new IndexStatusBar(this.addStatusBarItem(), () => this.showIndexDetails());
    this.renderStatus();

    this.addCommand({ id: "search-vault", name: "Search vault", callback: () => this.openSearch() });
    this.addCommand({ id: "rebuild-index", name: "Rebuild index", callback: () => void this.rebuildIndex() });
    this.addSettingTab(new VaultResearchSettingTab(this.app, this, this));

    this.registerView(RESEARCH_VIEW_TYPE, (leaf) => new ResearchView(leaf, this.researchHost()));
    this.addRibbonIcon("telescope", "Open research panel", () => void this.openResearchPanel());
    this.addCommand({ id: "open-research-panel", name: "Open research panel", callback: () => void this.openResearchPanel() });
    this.addCommand({
      id: "ask-question",
      name: "Ask a research question",
      callback: () => new AskQuestionModal(this.app, (question) => void this.askInPanel(question)).open(),
    });
    this.addCommand({
      id: "research-selection",
      name: "Research the selection",
      editorCallback: (editor) => {
        const selection = editor.getSelection().trim();
        if (selection === "") new Notice("Select some text to research first.");
        else void this.askInPanel(selection);
      },
    });
    this.addCommand({
      id: "promote-from-trace",
      name: "Promote a result from this trace",
      checkCallback: (checking) => {
        const file = this.app.workspace.getActiveFile();
        if (!isTraceNoteWithOutsideRows(this.app, file)) return false;
        if (!checking) void pickAndPromoteFromTrace(this.app, file.path, this.promoter);
        return true;
      },
    });

    // Indexing reads every note: wait until Obsidian has drawn its workspace so start-up stays fast.
    // Watching starts there too, so the vault's start-up "create" events are not mistaken for news.
    this.app.workspace.onLayoutReady(() => {
      if (this.unloaded) return;
      this.watchVault();
      this.indexing = this.runBuild(() => this.index.sync(this.store, this.cache));
    });
  }

  override onunload(): void {
    this.unloaded = true;
    this.queue?.dispose();
    this.scheduleCacheSave?.cancel();
    this.stopWatchingIndex();
    this.clock?.dispose();
    const cache = this.cache;
    if (this.cacheDirty && cache) {
      // Obsidian does not wait for onunload; the write finishes on its own.
      void this.index.save(cache).catch((error) => console.warn("Vault Research: could not save the index cache.", error));
      this.cacheDirty = false;
    }
  }

  async saveSettings(): Promise<void> {
    await this.saveData(this.settings);
    for (const view of this.researchViews()) view.refreshSettings();
  }

  async testModelConnection(): Promise<{ ok: boolean; message: string }> {
    const prepared = await this.prepareModel();
    if (!prepared.ok) return { ok: false, message: prepared.problem.message };
    if (!prepared.model) return { ok: false, message: "No model is chosen, so answers are evidence briefs." };
    return testConnection(prepared.model, { clock: this.clock });
  }

  /** Opens (or reveals) the research panel in the right sidebar. */
  async openResearchPanel(): Promise<ResearchView | null> {
    const workspace = this.app.workspace;
    let leaf = workspace.getLeavesOfType(RESEARCH_VIEW_TYPE)[0] ?? null;
    if (!leaf) {
      const side = workspace.getRightLeaf(false);
      if (!side) return null;
      await side.setViewState({ type: RESEARCH_VIEW_TYPE, active: true });
      leaf = side;
    }
    await workspace.revealLeaf(leaf);
    const view = leaf.view instanceof ResearchView ? leaf.view : null;
    view?.focusComposer();
    return view;
  }

  private async askInPanel(question: string): Promise<void> {
    const view = await this.openResearchPanel();
    await view?.ask(question);
  }

  private researchViews(): ResearchView[] {
    return this.app.workspace
      .getLeavesOfType(RESEARCH_VIEW_TYPE)
      .map((leaf) => leaf.view)
      .filter((view): view is ResearchView => view instanceof ResearchView);
  }

  private researchHost(): ResearchPanelHost {
    // A getter, so the panel always reads the settings object the plugin holds now.
    const settings = () => this.settings;
    return {
      get settings() {
        return settings();
      },
      runResearch,
      prepareRun: () => this.prepareRun(),
      promote: (row, result) => this.promoter.promoteRow(row, result),
    };
  }

  private async prepareRun(): Promise<PreparedRun> {
    const prepared = await this.prepareModel();
    if (!prepared.ok) return prepared;
    // A run during the first build would search a half-built index.
    if (this.indexing) await this.indexing;
    return {
      ok: true,
      deps: {
        index: this.index,
        store: this.store,
        http: this.http,
        secrets: this.secrets,
        clock: this.clock,
        settings: this.settings,
        model: prepared.model,
        searchSession: this.searchSession,
      },
    };
  }

  private async prepareModel(): Promise<{ ok: true; model: ChatModel | null } | Extract<PreparedRun, { ok: false }>> {
    const config = modelConfigFromSettings(this.settings.model);
    const secret = secretNameFor(config);
    const apiKey = secret ? await this.secrets.get(secret) : null;
    const created = createChatModel(config, { http: this.http, apiKey, timeoutMs: this.settings.model.timeoutMs });
    if (created.ok) return { ok: true, model: created.model };
    return {
      ok: false,
      problem: { severity: "error", kind: created.error.kind, message: created.error.message, hint: "Choose a key under Model for answers in Settings → Vault Research." },
    };
  }

  async applyIndexSettings(options: { rebuild: boolean }): Promise<void> {
    if (this.indexing) await this.indexing;
    if (options.rebuild) {
      // Word analysis is fixed when an index is made; a new one is built with the new settings.
      this.stopWatchingIndex();
      this.index = this.createIndex();
      this.renderStatus();
      await this.rebuildIndex();
      return;
    }
    this.index.setExcludedFolders(this.excludedFolders());
    await this.indexNewlyIncludedNotes();
  }

  async rebuildIndex(): Promise<void> {
    if (this.indexing) {
      new Notice("The index is already being built.");
      return;
    }
    const started = Date.now();
    this.indexing = this.runBuild(() => this.index.rebuild(this.store));
    await this.indexing;
    if (!this.buildFailure && !this.unloaded) {
      const notes = this.index.status().notes;
      new Notice(`Index rebuilt: ${notes.toLocaleString()} notes in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
    }
  }

  openSearch(): void {
    new VaultSearchModal(this.app, this.index, this.store).open();
  }

  private async loadPluginSettings(): Promise<void> {
    let raw: unknown;
    try {
      raw = await this.loadData();
    } catch (error) {
      raw = undefined;
      this.reportSettingsProblems([`The settings file could not be read (${messageOf(error)}).`]);
    }
    const { settings, problems } = loadSettings(raw);
    this.settings = settings;
    if (problems.length > 0) {
      // The stored file is left alone: the user's values stay there to be fixed, not overwritten.
      this.reportSettingsProblems(problems);
      return;
    }
    if (raw !== null && raw !== undefined && (raw as { version?: unknown }).version !== SETTINGS_VERSION) {
      await this.saveSettings();
    }
  }

  private reportSettingsProblems(problems: string[]): void {
    console.warn("Vault Research: settings problems", problems);
    new Notice(`Vault Research: some settings could not be used, so defaults apply.\n${problems.join("\n")}`, 15_000);
  }

  private createIndex(): VaultIndex {
    const index = new VaultIndex({
      excludedFolders: this.excludedFolders(),
      stemming: this.settings.index.stemming,
      clock: this.clock,
      canonicalizeUrl,
      // A zero-length timer lets Obsidian paint and handle input between indexing batches.
      yieldToUi: () => this.clock.sleep(0),
    });
    this.stopWatchingIndex = index.onChange((status) => this.renderStatus(status));
    return index;
  }

  private excludedFolders(): string[] {
    // Trace notes describe runs; indexing them would feed answers back into the evidence.
    return [...new Set([...this.settings.index.excludedFolders, this.settings.notes.traceFolder])];
  }

  private watchVault(): void {
    const vault = this.app.vault;
    this.registerEvent(vault.on("create", (file) => this.onFileEvent("create", file)));
    this.registerEvent(vault.on("modify", (file) => this.onFileEvent("modify", file)));
    this.registerEvent(vault.on("delete", (file) => this.onFileEvent("delete", file)));
    this.registerEvent(
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
    if (this.indexing) await this.indexing;
    for (const [i, update] of updates.entries()) {
      if (this.unloaded) return;
      try {
        if (update.kind === "rename") await this.index.renameFile(this.store, update.oldPath, update.path);
        else if (update.kind === "remove") this.index.removeFile(update.path);
        else await this.index.updateFile(this.store, update.path);
        this.updateFailures.delete(update.path);
        if (update.kind === "rename") this.updateFailures.delete(update.oldPath);
      } catch (error) {
        this.updateFailures.set(update.path, { path: update.path, message: `Could not update the index: ${messageOf(error)}` });
      }
      if ((i + 1) % STEPS_PER_YIELD === 0) await this.clock.sleep(0);
    }
    this.markCacheDirty();
    this.renderStatus();
  }

  /** After exclusions shrink, notes in folders no longer excluded are read; the rest stay as they are. */
  private async indexNewlyIncludedNotes(): Promise<void> {
    if (this.indexing) await this.indexing;
    for (const file of await this.store.list()) {
      if (this.index.isIndexable(file.path) && !this.index.note(file.path)) this.queue.push({ kind: "create", path: file.path });
    }
    await this.queue.flush();
  }

  private runBuild(build: () => Promise<unknown>): Promise<void> {
    this.buildFailure = null;
    this.updateFailures.clear();
    this.renderStatus();
    return build()
      .then(() => {
        if (this.unloaded) return;
        this.markCacheDirty();
      })
      .catch((error: unknown) => {
        if (this.unloaded) return;
        this.buildFailure = { message: `The index could not be built: ${messageOf(error)}` };
        new Notice(`Vault Research: ${this.buildFailure.message}`);
      })
      .finally(() => {
        this.indexing = null;
        if (!this.unloaded) this.renderStatus();
      });
  }

  private markCacheDirty(): void {
    this.cacheDirty = true;
    this.scheduleCacheSave();
  }

  private async saveCache(): Promise<void> {
    if (!this.cacheDirty || this.unloaded) return;
    this.cacheDirty = false;
    try {
      await this.index.save(this.cache);
    } catch (error) {
      console.warn("Vault Research: could not save the index cache.", error);
    }
  }

  private pluginIssues(): IndexIssue[] {
    return [...(this.buildFailure ? [this.buildFailure] : []), ...this.updateFailures.values()];
  }

  private currentStatus(): IndexStatus | null {
    try {
      return this.index.status();
    } catch {
      return null;
    }
  }

  private renderStatus(status: IndexStatus | null = this.currentStatus()): void {
    this.statusBar?.render(status, this.pluginIssues());
  }

  private showIndexDetails(): void {
    const status = this.currentStatus();
    new IndexProblemsModal(this.app, status, indexIssues(status, this.pluginIssues()), (path) => {
      void openAtSection(this.app, path, undefined);
    }).open();
  }
}

/** A stable id for this vault, so each vault gets its own cache. `appId` is not in the typings. */
function vaultId(app: Plugin["app"]): string {
  const appId = (app as { appId?: unknown }).appId;
  return typeof appId === "string" && appId !== "" ? appId : app.vault.getName();
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
