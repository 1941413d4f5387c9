// The plugin's lifecycle, and nothing else: load settings, build the services, index once the
// workspace is ready, keep the index current through the update queue, and tear it all down.
// The work itself lives in the index (src/index) and the adapters (src/plugin).
import { Notice, Plugin } from "obsidian";
import { runResearch } from "./research/run";
import type { ResearchDial, ResearchResult } from "./research/types";
import { PageCache } from "./research/page-cache";
import { createDefuddleReader } from "./promote/defuddle-reader";
import type { ReadPage } from "./promote/page-extract";
import { createChatModel, modelConfigFromSettings, secretNameFor } from "./llm/model-spec";
import { testConnection } from "./llm/test-connection";
import type { ChatModel } from "./llm/chat-model";
import type { VaultIndex } from "./index/vault-index";
import { IndexKeeper } from "./plugin/index-keeper";
import { IndexedDbCache } from "./plugin/indexeddb-cache";
import { AdapterQueryLogFile } from "./plugin/adapter-query-log-file";
import { IndexedDbQueryLogFile } from "./plugin/indexeddb-query-log-file";
import { IndexedDbVectorCache } from "./plugin/indexeddb-vector-cache";
import { embeddingChoice, type EmbeddingChoice } from "./plugin/embedding-choice";
import { SearchDialServices } from "./plugin/search-dial-services";
import { ObsidianNoteStore } from "./plugin/obsidian-note-store";
import { Promoter } from "./plugin/promoter";
import { keysHeld } from "./plugin/keys-held";
import { httpOnceSettled, pageAccess, type PageAccess } from "./plugin/desktop-pages";
import { RequestUrlHttp } from "./plugin/request-url-http";
import { SecretStorageSecrets } from "./plugin/secret-storage-secrets";
import { keepUnusableSettingsFile, storedSpellsOtherwise, storedWithoutKeysOutOfPlace, takeOutKeysOutOfPlace } from "./plugin/stored-settings";
import { moveSearxngPassword, storedWithSearxngAddress } from "./plugin/searxng-password";
import { TimerClock } from "./plugin/timer-clock";
import { bundledWebWorkers } from "./plugin/web-workers";
import { defaultSettings, loadSettings, SETTINGS_VERSION, type Settings } from "./settings";
import { stopwatch, type Http } from "./ports";
import type { DialHost } from "./ui/dial-host";
import { EmbeddingStatusBar, IndexProblemsModal, IndexStatusBar, indexIssues, waitingForIndexText } from "./ui/index-status";
import { embeddingProgressWords } from "./index/embeddings/progress-words";
import { openAtSection, VaultSearchModal } from "./ui/search-modal";
import { COMPARISON_VIEW_TYPE, ComparisonView } from "./ui/comparison-view";
import { VaultResearchSettingTab, type SettingsHost } from "./ui/settings-tab";
import { AskQuestionModal } from "./ui/ask-modal";
import { isTraceNoteWithOutsideRows, pickAndPromoteFromTrace } from "./ui/promote-modal";
import { RESEARCH_VIEW_TYPE, ResearchView, type PreparedRun, type ResearchPanelHost } from "./ui/research-view";
import { createSearchSession, type SearchSession } from "./websearch/search-providers";
import { errorMessage } from "./text/error-message";

export default class VaultResearchPlugin extends Plugin implements SettingsHost {
  override settings: Settings = defaultSettings();
  store!: ObsidianNoteStore;
  /** What models, embeddings and runs send through: requestUrl, and on desktop Node for pages and keyed requests. */
  http!: Http;
  secrets!: SecretStorageSecrets;
  promoter!: Promoter;

  private clock!: TimerClock;
  /**
   * The Http runs and promotions use, and the fetch guard's lookup: pages and keyed requests over Node
   * on desktop (plugin/desktop-pages.ts). Settled in the background at load; a run, a promotion and
   * every request through `http` wait for it.
   */
  private pages!: Promise<PageAccess>;
  /** One per plugin session: the web cache and the rate governor outlive a single run. */
  private searchSession!: SearchSession;
  /** Defuddle over the window's DOMParser: research's page reading and promotion read pages alike. */
  private readPage!: ReadPage;
  /** Pages read by the panel's runs, kept 30 minutes so a follow-up does not fetch them again. */
  private pageCache!: PageCache;
  private keeper!: IndexKeeper;
  private statusBar!: IndexStatusBar;
  /** The query log, the vectors, the embedding keeper and the dial the UI searches through. */
  searchDial!: SearchDialServices;
  private embeddingStatusBar: EmbeddingStatusBar | null = null;
  /** The IndexedDB stores opened this session: closed at unload, so no connection outlives the plugin. */
  private readonly databases: { close(): void }[] = [];
  /** Each prepared run's query-log line, found again by its dial when the run is over. */
  private readonly researchLogs = new WeakMap<ResearchDial, (question: string, result: ResearchResult) => Promise<void>>();
  private unloaded = false;
  /** Aborted at unload: a promotion still fetching its page then writes nothing, now or later. */
  private session = new AbortController();
  /**
   * Where the answers of runs and promotions are recorded rather than live (the workbench answers
   * from recordings, as the CLI does with `--replay`): each run's trace then names them (`runs`, read
   * at each run), and a promoted note says its page text is a recorded sample (`pages`). Null in
   * Obsidian, where every answer is live.
   */
  replayed: { runs(): string; pages(): string } | null = null;
  /** The services exist (onload got past reading data.json). */
  private servicesReady = false;
  /** The index was started once the workspace was ready, and follows settings changes since. */
  private indexStarted = false;
  /** The last settings write failed and the user was told. */
  private settingsSaveFailing = false;
  /**
   * data.json could not be read, nor a copy of it kept (a file another program holds locked, a sync
   * still bringing it): it holds the user's values, so no save writes over it until a copy is kept.
   */
  private settingsFileUnkept = false;

  /** The plugin's own folder (data.json, the query log): Obsidian sets `manifest.dir`. */
  private get pluginDir(): string {
    return this.manifest.dir ?? `${this.app.vault.configDir}/plugins/${this.manifest.id}`;
  }

  /** The vault index (replaced when index settings change, so read it each time). */
  get index(): VaultIndex {
    return this.keeper.index;
  }

  override async onload(): Promise<void> {
    this.unloaded = false;
    this.session = new AbortController();
    await this.loadPluginSettings();
    // Disabled while the settings were read: nothing may be added that no unload would take away.
    if (this.unloaded) return;
    this.clock = new TimerClock();
    // On desktop, page fetches over Node (every redirect and name checked) and so are requests that
    // carry a key (redirects followed on the same site only, so the key reaches no other); not on mobile.
    this.pages = pageAccess(new RequestUrlHttp(), this.clock, { keysHeld: () => keysHeld(this.secrets, this.settings) });
    this.http = httpOnceSettled(this.pages);
    this.createServices();
    this.servicesReady = true;

    this.statusBar = new IndexStatusBar(this.addStatusBarItem(), () => this.showIndexDetails());
    this.statusBar.render(this.keeper.status(), this.keeper.issues());
    this.embeddingStatusBar = new EmbeddingStatusBar(this.addStatusBarItem(), (state) => {
      if (state === "running") this.searchDial.embedding.pause();
      else this.searchDial.embedding.resume();
    });
    this.addSettingTab(new VaultResearchSettingTab(this.app, this, this));
    this.registerView(RESEARCH_VIEW_TYPE, (leaf) => new ResearchView(leaf, this.researchHost()));
    this.registerView(COMPARISON_VIEW_TYPE, (leaf) => new ComparisonView(leaf, this.dialHost));
    this.addRibbonIcon("telescope", "Open research panel", () => void this.openResearchPanel());
    this.registerCommands();

    // Indexing reads every note: wait until Obsidian has drawn its workspace so start-up stays fast.
    // Watching starts there too, so the vault's start-up "create" events are not mistaken for news.
    this.app.workspace.onLayoutReady(() => {
      if (this.unloaded) return;
      this.keeper.start(this.app.vault, (ref) => this.registerEvent(ref));
      this.indexStarted = true;
      void this.searchDial.start();
    });
  }

  /** What the search modal, the research panel and the comparison view search through. */
  get dialHost(): DialHost {
    return this.searchDial.dial;
  }

  /** The adapters and services the plugin hangs off itself for one session. */
  private createServices(): void {
    this.store = new ObsidianNoteStore(this.app.vault);
    this.secrets = new SecretStorageSecrets(this.app.secretStorage, () => this.settings);
    this.keeper = new IndexKeeper({
      store: this.store,
      cache: this.database(new IndexedDbCache(vaultId(this.app))),
      clock: this.clock,
      settings: () => this.settings,
      onStatus: (status, issues) => this.statusBar?.render(status, issues, this.keeper?.indexingTotal() ?? null),
      notify: (message) => new Notice(message),
      onNotesChanged: () => this.searchDial?.embedding.notesChanged(),
      workers: bundledWebWorkers(),
    });
    this.searchDial = this.createSearchDial();
    this.searchSession = createSearchSession({ clock: this.clock });
    this.readPage = createDefuddleReader((html) => new DOMParser().parseFromString(html, "text/html"));
    this.pageCache = new PageCache(this.clock);
    this.promoter = new Promoter({
      readPage: this.readPage,
      vault: this.app.vault,
      store: this.store,
      // Notes in excluded folders: their sources are taken from the app's metadata, not read.
      metadata: this.app.metadataCache,
      pages: () => this.pages,
      clock: this.clock,
      secrets: this.secrets,
      settings: () => this.settings,
      index: () => this.index,
      indexReady: () => this.keeper.ready(),
      // The note is already in the index; the cache and the status bar follow.
      onNoteCreated: () => this.keeper.noteAdded(),
      signal: this.session.signal,
      pagesReplayedFrom: () => this.replayed?.pages(),
    });
  }

  /** The query log, the vectors, the embedding keeper and the dial, following this plugin's settings. */
  private createSearchDial(): SearchDialServices {
    return new SearchDialServices({
      // The log of searches lives in IndexedDB; a file an earlier version kept in this plugin's folder is moved in.
      queryLogFile: this.database(new IndexedDbQueryLogFile(vaultId(this.app), new AdapterQueryLogFile(this.app.vault.adapter, this.pluginDir))),
      vectorCache: this.database(new IndexedDbVectorCache(vaultId(this.app))),
      notes: this.store,
      http: this.http,
      clock: this.clock,
      settings: () => this.settings,
      saveSettings: () => this.saveSettings(),
      secret: (id) => this.secrets.byId(id),
      keysHeld: () => keysHeld(this.secrets, this.settings),
      index: () => this.index,
      indexReady: () => this.keeper.ready(),
      chatModel: async () => {
        const prepared = await this.prepareModel();
        return prepared.ok ? prepared.model : null;
      },
      notify: (message) => new Notice(message, 10_000),
      onEmbeddingProgress: (progress) => this.embeddingStatusBar?.render(progress),
    });
  }

  /** The command palette's entries; none has a default hotkey. */
  private registerCommands(): void {
    this.addCommand({ id: "search-vault", name: "Search vault", callback: () => this.openSearch() });
    this.addCommand({ id: "rebuild-index", name: "Rebuild index", callback: () => void this.rebuildIndex() });
    // The status bar's box, for where there is no status bar (phones) and for the keyboard.
    this.addCommand({ id: "show-index-status", name: "Show index status", callback: () => this.showIndexDetails() });
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
    this.registerSearchDialCommands();
    this.addCommand({ id: "compare-search-levels", name: "Compare search levels", callback: () => void this.app.workspace.getLeaf("tab").setViewState({ type: COMPARISON_VIEW_TYPE, active: true }) });
  }

  /** The query log and the embedding job's controls; each shows only when it can act. */
  private registerSearchDialCommands(): void {
    const embedding = () => this.searchDial.embedding;
    const state = () => embedding().progress()?.state ?? null;
    this.addCommand({
      id: "clear-query-log",
      name: "Clear the search query log",
      callback: () => void this.clearQueryLog().then((message) => new Notice(message)),
    });
    this.addCommand({
      id: "pause-embedding",
      name: "Pause embedding",
      checkCallback: (checking) => (state() === "running" ? checking || embedding().pause() : false),
    });
    this.addCommand({
      id: "resume-embedding",
      name: "Resume embedding",
      checkCallback: (checking) => {
        const now = state();
        if (now !== "paused" && now !== "cancelled" && now !== "failed") return false;
        return checking || embedding().resume();
      },
    });
    this.addCommand({
      id: "cancel-embedding",
      name: "Cancel embedding",
      checkCallback: (checking) => (state() === "running" || state() === "paused" ? checking || embedding().cancel() : false),
    });
  }

  override onunload(): void {
    this.unloaded = true;
    this.session.abort();
    this.searchDial?.dispose();
    this.keeper?.dispose();
    this.clock?.dispose();
    // After the disposes: each lets its connection go once the last saves they started are done.
    for (const database of this.databases) database.close();
  }

  /** `store`, remembered to be closed at unload. */
  private database<T extends { close(): void }>(store: T): T {
    this.databases.push(store);
    return store;
  }

  /**
   * Writes data.json and makes the services follow. The settings in memory are the ones in use, so
   * the services follow them even when the write fails (a backend switched off stops); the failure
   * is said once until a write works again, and never thrown at the settings tab.
   */
  async saveSettings(): Promise<void> {
    let failure: unknown = null;
    try {
      await this.keepUnreadSettingsFile();
      await this.saveData(this.settings);
    } catch (error) {
      failure = error;
    }
    this.followSettings();
    if (failure === null) this.settingsSaveFailing = false;
    else if (!this.settingsSaveFailing) {
      this.settingsSaveFailing = true;
      console.warn("Vault Research: could not save the settings.", failure);
      new Notice(`Vault Research: the settings could not be saved (${errorMessage(failure)}). They apply until Obsidian closes.`, 10_000);
    }
  }

  /** The panels and the dial take up the settings in use now. */
  private followSettings(): void {
    for (const view of this.researchViews()) view.refreshSettings();
    // Not awaited: starting or stopping a backend reads the stored vectors, and the tab must not wait.
    if (this.searchDial) void this.searchDial.settingsChanged();
  }

  /**
   * Obsidian's call when data.json changed on disk (Sync or another program brought another device's
   * settings): they are used from now on, else the next change made here would write the old ones back
   * over them. A file that cannot be read keeps the settings in use, and a copy of it is kept first.
   */
  override async onExternalSettingsChange(): Promise<void> {
    if (this.unloaded || !this.servicesReady) return;
    const stored = await this.readStoredSettings();
    if (this.unloaded) return;
    if (stored.unreadable !== null) {
      this.reportSettingsProblems([stored.unreadable], await this.keepUnusableSettings({ unread: true }), "the settings file changed on disk; the settings in use are kept.");
      return;
    }
    const { settings, problems } = loadSettings(stored.raw);
    const keysTaken = takeOutKeysOutOfPlace(settings);
    reportKeysOutOfPlace(keysTaken);
    // Read, and nothing in it loading could not use: a file unread at start needs no copy now (its
    // values are the ones followed below, or in use already). Left set, the next save kept a copy of
    // this good file as "unusable" and said it "could be read again".
    if (problems.length === 0) this.settingsFileUnkept = false;
    // The plugin's own write, or a file saying what is in use already: nothing to follow (but a key
    // typed into it leaves it).
    if (JSON.stringify(settings) === JSON.stringify(this.settings)) {
      if (keysTaken.length > 0 && problems.length === 0) await this.writeSecretsOutOfFile(stored.raw, false);
      return;
    }
    const before = this.settings;
    this.settings = settings;
    const moved = this.movedSearxngPassword();
    if (problems.length > 0) {
      // As at load: the password, or a key typed in, leaves the file before a copy of it is kept, and nothing else is written.
      if (moved || storedWithoutKeysOutOfPlace(stored.raw) !== stored.raw) await this.writeSecretsOutOfFile(stored.raw, moved);
      this.reportSettingsProblems(problems, await this.keepUnusableSettings({ unread: false }), "the settings file changed on disk; some settings in it could not be used, so defaults apply to them.");
    }
    if (this.unloaded) return;
    if (moved && problems.length === 0) await this.saveSettings();
    else {
      if (keysTaken.length > 0 && problems.length === 0) await this.writeSecretsOutOfFile(stored.raw, false);
      this.followSettings();
    }
    await this.followIndexSettings(before);
  }

  /** After the settings were replaced: the index made anew when word analysis changed, exclusions applied when they did. */
  private async followIndexSettings(before: Settings): Promise<void> {
    const now = this.settings;
    const analysed = (s: Settings) => JSON.stringify([s.index.stemming, s.index.vaultLanguage]);
    const leftOut = (s: Settings) => JSON.stringify([s.index.excludedFolders, s.notes.traceFolder]);
    const reanalyse = analysed(before) !== analysed(now);
    if (this.unloaded || (!reanalyse && leftOut(before) === leftOut(now))) return;
    // Not built yet (the workspace is not ready): an empty index made with these settings, which the
    // first build then fills; no note is read before then.
    if (!this.indexStarted) return this.keeper.replaceIndex();
    await this.applyIndexSettings({ rebuild: reanalyse });
  }

  embeddingChoice(): EmbeddingChoice {
    return embeddingChoice(this.settings.search.embedding);
  }

  clearQueryLog(): Promise<string> {
    return this.searchDial.clearQueryLog();
  }

  async testModelConnection(): Promise<{ ok: boolean; message: string }> {
    const prepared = await this.prepareModel();
    if (!prepared.ok) return { ok: false, message: prepared.problem.message };
    if (!prepared.model) return { ok: false, message: "No model is chosen, so answers are evidence briefs." };
    return testConnection(prepared.model, { clock: this.clock });
  }

  /** Opens (or reveals) the research panel in the right sidebar, or in a tab where there is no right sidebar to have. */
  async openResearchPanel(): Promise<ResearchView | null> {
    const workspace = this.app.workspace;
    let leaf = workspace.getLeavesOfType(RESEARCH_VIEW_TYPE)[0] ?? null;
    if (!leaf) {
      // The right sidebar may give no leaf (the API allows it): a question asked from the palette
      // was then dropped without a word.
      leaf = workspace.getRightLeaf(false) ?? workspace.getLeaf("tab");
      await leaf.setViewState({ type: RESEARCH_VIEW_TYPE, active: true });
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
      runResearch: async (request, deps) => {
        const result = await runResearch(request, deps);
        // The run's one line in the query log (its own searches are not logged one by one).
        const record = deps.dial ? this.researchLogs.get(deps.dial) : undefined;
        if (record) await record(request.question, result);
        return result;
      },
      prepareRun: (onWait) => this.prepareRun(onWait),
      promote: (row, result) => this.promoter.promoteRow(row, result),
      dial: this.dialHost,
    };
  }

  private async prepareRun(onWait?: (text: string) => void): Promise<PreparedRun> {
    const prepared = await this.prepareModel();
    if (!prepared.ok) return prepared;
    // A run during the first build would search a half-built index.
    await this.indexReady(onWait);
    const research = this.searchDial.dial.researchRun();
    this.researchLogs.set(research.dial, research.record);
    const pages = await this.pages;
    return {
      ok: true,
      deps: {
        index: this.index,
        store: this.store,
        http: pages.http,
        ...(pages.fetchGuard ? { fetchGuard: pages.fetchGuard } : {}),
        secrets: this.secrets,
        // Every key in secret storage, read for this run: none reaches its trace, note or progress.
        knownSecrets: await keysHeld(this.secrets, this.settings),
        clock: this.clock,
        settings: this.settings,
        model: prepared.model,
        modelLevers: this.settings.model.checkVaultEvidence,
        searchSession: this.searchSession,
        readPage: this.readPage,
        pageCache: this.pageCache,
        dial: research.dial,
        ...(this.replayed ? { replayedFrom: this.replayed.runs() } : {}),
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
    if (!options.rebuild) return this.keeper.applyExclusions();
    await this.keeper.replaceIndex();
    await this.rebuildIndex();
  }

  async rebuildIndex(): Promise<void> {
    if (this.keeper.building) {
      new Notice("The index is already being built.");
      return;
    }
    // On the monotonic reading: a wall clock set back during the build read "in -3599.2 s".
    const elapsed = stopwatch(this.clock);
    const built = await this.keeper.rebuild();
    if (built && !this.unloaded) {
      const notes = this.index.status().notes;
      new Notice(`Index rebuilt: ${notes.toLocaleString()} notes in ${(elapsed() / 1000).toFixed(1)} s.`);
    }
  }

  openSearch(): void {
    new VaultSearchModal(this.app, this.dialHost).open();
  }

  /** data.json as it is on disk, or why it could not be read. */
  private async readStoredSettings(): Promise<{ raw: unknown; unreadable: string | null }> {
    try {
      return { raw: await this.loadData(), unreadable: null };
    } catch (error) {
      return { raw: undefined, unreadable: `The settings file could not be read (${errorMessage(error)}).` };
    }
  }

  private async loadPluginSettings(): Promise<void> {
    // Of an earlier load of this instance (disabled, enabled again): this one's reading decides.
    this.settingsFileUnkept = false;
    const { raw, unreadable } = await this.readStoredSettings();
    if (this.unloaded) return;
    // A newer version's settings (`unknownKept`) are carried along and written back: nothing was
    // replaced, so they are no problem to warn of at every start, and no reason for a copy.
    const { settings, problems } = loadSettings(raw);
    const keysTaken = takeOutKeysOutOfPlace(settings);
    reportKeysOutOfPlace(keysTaken);
    this.settings = settings;
    if (unreadable !== null || problems.length > 0) {
      // Not saved now; but the next change of a setting writes the settings in use over the file,
      // so a copy of it as it is keeps the user's values to be fixed. A SearXNG password in it, or
      // a key typed into it, leaves it first, though, so neither the file nor its copy holds it.
      const moved = this.movedSearxngPassword();
      if (moved || storedWithoutKeysOutOfPlace(raw) !== raw) await this.writeSecretsOutOfFile(raw, moved);
      this.reportSettingsProblems([...(unreadable !== null ? [unreadable] : []), ...problems], await this.keepUnusableSettings({ unread: unreadable !== null }));
      return;
    }
    // Saved once when the file is of an older version or spells a value otherwise (`./AI Traces`),
    // so it says what is in use; never when it already does.
    if (raw === null || raw === undefined) return;
    if (this.movedSearxngPassword()) {
      await this.saveSettings();
      return;
    }
    if (isOlderSettingsVersion(raw) || storedSpellsOtherwise(raw, settings)) await this.saveSettings();
    // A key typed into it leaves it at once, and only the key (a newer version's file gets no
    // defaults pinned in): left until the user changed a setting, it stayed in the file, its sync
    // and its backups, and the notice came back at every start.
    else if (keysTaken.length > 0) await this.writeSecretsOutOfFile(raw, false);
  }

  /** An earlier version's SearXNG address held its password: it now goes to secret storage (see searxng-password.ts). */
  private movedSearxngPassword(): boolean {
    try {
      if (!moveSearxngPassword(this.settings, this.app.secretStorage)) return false;
    } catch (error) {
      console.warn("Vault Research: the SearXNG password could not be moved into secret storage", errorMessage(error));
      return false;
    }
    new Notice("Vault Research: the SearXNG password was moved out of the settings file into Obsidian's secret storage.");
    return true;
  }

  /**
   * data.json as read, less the SearXNG password just moved into secret storage (`searxngMoved`) and
   * any key typed into it by hand: the values loading could not use stay in it as the user wrote them
   * (storedWithSearxngAddress, storedWithoutKeysOutOfPlace).
   */
  private async writeSecretsOutOfFile(stored: unknown, searxngMoved = true): Promise<void> {
    const withoutKeys = storedWithoutKeysOutOfPlace(stored);
    const what = searxngMoved ? "the SearXNG password" : "the key typed into it";
    try {
      await this.saveData(searxngMoved ? storedWithSearxngAddress(withoutKeys, this.settings.external.searxng) : withoutKeys);
    } catch (error) {
      console.warn(`Vault Research: the settings file could not be written without ${what}.`, errorMessage(error));
      new Notice(`Vault Research: the settings file could not be written (${errorMessage(error)}), so it still holds ${what} until the settings are saved.`, 10_000);
    }
  }

  private reportSettingsProblems(problems: string[], copy: string | null, headline = "some settings could not be used, so defaults apply."): void {
    console.warn("Vault Research: settings problems", problems);
    const kept = copy ? `\nThe file as it was is kept as ${copy}.` : this.settingsFileUnkept ? "\nNothing is saved over the file until it can be read." : "";
    new Notice(`Vault Research: ${headline}\n${problems.join("\n")}${kept}`, 15_000);
  }

  /**
   * A copy of data.json as it is, beside it (see keepUnusableSettingsFile); null when there is none to
   * keep, or it could not be kept — then, for a file that could not be `unread`, saves leave it alone
   * until a copy of it is kept (`settingsFileUnkept`).
   */
  private async keepUnusableSettings(options: { unread: boolean }): Promise<string | null> {
    try {
      const copy = await keepUnusableSettingsFile(this.app.vault.adapter, this.pluginDir);
      this.settingsFileUnkept = false;
      return copy;
    } catch (error) {
      console.warn("Vault Research: could not keep a copy of the settings file.", error);
      if (options.unread) this.settingsFileUnkept = true;
      return null;
    }
  }

  /**
   * Before a save writes over a data.json that could not be read: a copy of it, now it can be, and
   * where it is said once. Throws while it still cannot be read, so the save writes nothing.
   */
  private async keepUnreadSettingsFile(): Promise<void> {
    if (!this.settingsFileUnkept) return;
    let copy: string | null;
    try {
      copy = await keepUnusableSettingsFile(this.app.vault.adapter, this.pluginDir);
    } catch (error) {
      throw new Error(`the settings file could not be read at start, and no copy of it can be kept yet (${errorMessage(error)}), so it was not written over`, { cause: error });
    }
    this.settingsFileUnkept = false;
    if (copy !== null) new Notice(`Vault Research: the settings file could be read again; it is kept as ${copy} before the settings in use are saved over it.`, 15_000);
  }

  /** Settles when the index is built; meanwhile says every half second how far the build is. */
  private async indexReady(onWait?: (text: string) => void): Promise<void> {
    const total = () => this.keeper.indexingTotal();
    if (!onWait || total() === null) return this.keeper.ready();
    const say = () => onWait(waitingForIndexText(this.keeper.status()?.notes ?? 0, total()));
    say();
    const timer = window.setInterval(say, 500);
    try {
      await this.keeper.ready();
    } finally {
      window.clearInterval(timer);
    }
  }

  private showIndexDetails(): void {
    const status = this.keeper.status();
    const embedding = this.searchDial?.embedding.progress() ?? null;
    new IndexProblemsModal(
      this.app,
      status,
      indexIssues(status, this.keeper.issues()),
      (path) => {
        void openAtSection(this.app, path, undefined);
      },
      embedding ? embeddingProgressWords(embedding) : null,
    ).open();
  }
}

/**
 * data.json from before versioning, or of an earlier version: saved once under this one. A newer
 * version's file is not: this version would write its own defaults into every field at every start,
 * and the newer version, back again, would take them for the user's choices.
 */
function isOlderSettingsVersion(raw: unknown): boolean {
  const version = (raw as { version?: unknown }).version;
  return typeof version !== "number" || version < SETTINGS_VERSION;
}

/**
 * Keys typed into data.json by hand under names that are no setting (taken out of the settings in
 * use, so no save writes them back): where they are, never what they hold, and where keys belong.
 */
function reportKeysOutOfPlace(paths: string[]): void {
  if (paths.length === 0) return;
  const where = paths.join(", ");
  console.warn(`Vault Research: the settings file holds what looks like an API key or password under ${where}; it is not used, and not written back.`);
  new Notice(
    `Vault Research: the settings file holds what looks like an API key or password under ${where}, which is no setting. Keys are read only from Obsidian's secret storage: choose or add yours at its field in Settings → Vault Research. It is not used, and no save of the plugin's writes it back.`,
    15_000,
  );
}

/** A stable id for this vault, so each vault gets its own cache. `appId` is not in the typings. */
function vaultId(app: Plugin["app"]): string {
  const appId = (app as { appId?: unknown }).appId;
  return typeof appId === "string" && appId !== "" ? appId : app.vault.getName();
}

