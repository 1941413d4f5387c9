// Keeps the dial's vectors current in the plugin, as IndexKeeper keeps the index: once the index is
// built, and only when the settings name a backend the user agreed to (consentedTo), it loads the
// stored vectors and runs the embedding job in the background at the configured requests per
// second; note changes start another run for what changed; pause, resume and cancel come from the
// command palette. Until vectors exist (and whenever the backend is off) the dial searches at level 1.
import type { Embedder } from "../index/embeddings/embedder";
import { EmbeddingJob, type EmbeddingProgress } from "../index/embeddings/embedding-job";
import type { VectorCache } from "../index/embeddings/vector-cache";
import { loadStoredVectors, ROOT_PART } from "../index/embeddings/vector-parts";
import { vectorResetWords, type VectorReset } from "../index/embeddings/vector-reset";
import type { VectorStore } from "../index/embeddings/vector-store";
import type { EmbedConfig } from "../llm/embeddings/embed-spec";
import { monotonicReading, type Clock, type NoteFileInfo, type NoteStore } from "../ports";
import type { Settings } from "../settings";
import { errorMessage } from "../text/error-message";
import { embeddingChoice } from "./embedding-choice";

type ChosenConfig = Exclude<EmbedConfig, { kind: "none" }>;

export interface EmbeddingKeeperDeps {
  notes: NoteStore;
  cache: VectorCache;
  clock: Clock;
  settings: () => Settings;
  /**
   * A client for the backend (its key read from secret storage now). `purpose` "job" is capped at
   * the settings' requests per second; "query" is the dial's own, so a search never queues behind a batch.
   */
  createEmbedder: (config: ChosenConfig, purpose: "job" | "query") => Promise<Embedder | null>;
  /** The index's notes once its build is over: what the vectors follow (trace notes and excluded folders left out). */
  indexFiles: () => Promise<NoteFileInfo[]>;
  /** What the dial searches with now; nulls keep it at level 1. */
  onVectors: (vectors: VectorStore | null, embedder: Embedder | null) => void;
  /** The job's progress (the status bar); null when no backend is in use. */
  onProgress: (progress: EmbeddingProgress | null) => void;
  /** Something the user should read now (a Notice): vectors thrown away, and why; vectors that could not be saved. */
  notify: (message: string) => void;
  /**
   * Whether a note may be embedded now: the index would hold it (its folder is not excluded). Asked
   * as each note is read, so a folder excluded while a run is under way is not sent. Default: all.
   */
  mayEmbed?: (path: string) => boolean;
  yieldToUi?: () => Promise<void>;
}

/** The backend in use: what was agreed to, with everything that makes a new client necessary. */
interface ActiveBackend {
  key: string;
  jobEmbedder: Embedder;
  queryEmbedder: Embedder;
  store: VectorStore;
}

export class EmbeddingKeeper {
  private active: ActiveBackend | null = null;
  private job: EmbeddingJob | null = null;
  private running: Promise<void> | null = null;
  /** Notes changed while a run was under way: run again when it ends. */
  private again = false;
  /** The user cancelled: no run starts by itself until they resume (or the backend changes). */
  private cancelledByUser = false;
  /**
   * The server asked for no requests until then (a Retry-After longer than the job waits, on the
   * clock's monotonic reading): no run starts by itself before it. Each note edited started one,
   * whose first request the server had asked not to get.
   */
  private quietUntil: number | null = null;
  private last: EmbeddingProgress | null = null;
  private settingsApplied: Promise<void> = Promise.resolve();
  private disposed = false;
  /** The last save of the vectors failed: the user was told once, and is not told again until one works. */
  private savesFailing = false;
  /** The vectors' cache as the job sees it: each save's outcome is noted on its way. */
  private readonly cache: VectorCache;
  /** The notes as the job reads them: a note that may not be embedded (now excluded) is not read. */
  private readonly notes: NoteStore;

  constructor(private readonly deps: EmbeddingKeeperDeps) {
    this.cache = {
      read: (name) => deps.cache.read(name),
      names: () => deps.cache.names(),
      remove: (names) => deps.cache.remove(names),
      clear: () => deps.cache.clear(),
      // Without it, the save dated another session's leftovers only by when it first found them.
      writtenAt: (name) => (deps.cache.writtenAt ? deps.cache.writtenAt(name) : Promise.resolve(null)),
      write: async (name, bytes) => {
        try {
          await deps.cache.write(name, bytes);
        } catch (error) {
          this.saveFailed(error);
          throw error;
        }
        // The root is written last: a save is done only then.
        if (name === ROOT_PART) this.savesFailing = false;
      },
    };
    this.notes = {
      list: () => deps.notes.list(),
      exists: (path) => deps.notes.exists(path),
      create: (path, content) => deps.notes.create(path, content),
      read: async (path) => {
        if (deps.mayEmbed && !deps.mayEmbed(path)) throw new Error("its folder is excluded from the index");
        return deps.notes.read(path);
      },
      ...(deps.notes.stat ? { stat: (path: string) => deps.notes.stat!(path) } : {}),
    };
  }

  /** Follows the settings: starts, switches or stops the backend. Calls run one after another. */
  applySettings(): Promise<void> {
    this.settingsApplied = this.settingsApplied.then(() => this.applyNow()).catch((error: unknown) => {
      this.deps.notify(`Vault Research: embedding could not start: ${errorMessage(error)}`);
    });
    return this.settingsApplied;
  }

  /** The index changed (a build ended, notes were edited): embed what is new. */
  notesChanged(): void {
    if (!this.active || this.cancelledByUser || this.disposed || this.askedToWait()) return;
    if (this.running) this.again = true;
    else this.startRun();
  }

  pause(): boolean {
    if (this.job?.progress().state !== "running") return false;
    this.job.pause();
    return true;
  }

  /** Goes on after a pause, or starts a new run after a cancel or a failure. */
  resume(): boolean {
    if (!this.active || this.disposed) return false;
    if (this.job?.progress().state === "paused") {
      this.job.resume();
      return true;
    }
    if (this.running) return false;
    this.cancelledByUser = false;
    // The user's own word goes before the server's.
    this.quietUntil = null;
    this.startRun();
    return true;
  }

  /** Stops the run; what was embedded is kept and saved. */
  cancel(): boolean {
    if (!this.running || !this.job) return false;
    this.cancelledByUser = true;
    this.again = false;
    this.job.cancel();
    return true;
  }

  /** The last run's progress, null when no backend is in use. */
  progress(): EmbeddingProgress | null {
    return this.active ? this.last : null;
  }

  /** Settles when no run is under way (tests, and a backend switch, wait on it). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  dispose(): void {
    this.disposed = true;
    this.again = false;
    this.job?.cancel();
  }

  private async applyNow(): Promise<void> {
    if (this.disposed) return;
    const settings = this.deps.settings();
    const choice = embeddingChoice(settings.search.embedding);
    const wanted = choice.kind === "chosen" && choice.consented ? choice.config : null;
    const key = wanted ? backendKey(wanted, settings) : null;
    if (key === (this.active?.key ?? null)) return;
    // No longer active before the run is waited for: a run still waiting for the index's notes
    // must not go on to embed them with a backend the user just turned off or changed.
    this.active = null;
    this.last = null;
    await this.stopRun();
    this.deps.onVectors(null, null);
    this.deps.onProgress(null);
    if (!wanted || !key) return;
    const [jobEmbedder, queryEmbedder] = await Promise.all([this.deps.createEmbedder(wanted, "job"), this.deps.createEmbedder(wanted, "query")]);
    if (!jobEmbedder || !queryEmbedder || this.disposed) return;
    const loaded = await loadStoredVectors(this.deps.cache, jobEmbedder.name);
    if (this.disposed) return;
    if (loaded.reset) this.tell(loaded.reset);
    this.active = { key, jobEmbedder, queryEmbedder, store: loaded.store };
    this.cancelledByUser = false;
    this.quietUntil = null;
    this.deps.onVectors(loaded.store, queryEmbedder);
    this.startRun();
  }

  private async stopRun(): Promise<void> {
    this.again = false;
    this.job?.cancel();
    await this.idle();
  }

  private startRun(): void {
    const active = this.active;
    if (!active) return;
    this.running = this.runUntilCurrent(active).finally(() => {
      this.running = null;
      this.job = null;
    });
  }

  /** Runs the job, and again while notes changed during the run. */
  private async runUntilCurrent(active: ActiveBackend): Promise<void> {
    do {
      const files = await this.deps.indexFiles();
      // Cleared once the list is taken, not before the wait for it: the build's end, while this run
      // waited for it, said the notes changed, and a second run said "Embedded 0 notes" over this one's words.
      // A change told before the list was taken is in it.
      this.again = false;
      if (this.active !== active || this.disposed) return;
      const outcome = await this.runJob(active, files);
      if (outcome.state !== "done") return this.noteAskedWait(outcome);
    } while (this.again && this.active === active && !this.disposed);
  }

  /** A run the server stopped with a wait longer than the job's: remembered, so edits do not start another meanwhile. */
  private noteAskedWait(outcome: EmbeddingProgress): void {
    const asked = outcome.error?.kind === "rate_limited" ? outcome.error.retryAfterMs : undefined;
    if (asked !== undefined && asked > 0) this.quietUntil = monotonicReading(this.deps.clock) + asked;
  }

  private askedToWait(): boolean {
    if (this.quietUntil === null) return false;
    if (monotonicReading(this.deps.clock) < this.quietUntil) return true;
    this.quietUntil = null;
    return false;
  }

  private async runJob(active: ActiveBackend, files: NoteFileInfo[]): Promise<EmbeddingProgress> {
    const job = new EmbeddingJob({ store: active.store, embedder: active.jobEmbedder, notes: this.notes, cache: this.cache, clock: this.deps.clock, yieldToUi: this.deps.yieldToUi });
    this.job = job;
    let told = 0;
    const stopListening = job.onProgress((progress) => {
      // A dimension change is found mid-run (the first batch of another model behind the same name).
      for (; told < progress.resets.length; told++) this.tell(progress.resets[told]);
      this.last = progress;
      if (this.active === active) this.deps.onProgress(progress);
    });
    const final = await job.run(files);
    stopListening();
    // The vectors filled in place; telling the dial again clears its rerank cache and its readiness follows.
    if (this.active === active) this.deps.onVectors(active.store, active.queryEmbedder);
    return final;
  }

  private tell(reset: VectorReset): void {
    this.deps.notify(`Vault Research: ${vectorResetWords(reset)}`);
  }

  /** Said once a failure episode (the job tries again at each save; the status line says so meanwhile). */
  private saveFailed(error: unknown): void {
    if (this.savesFailing || this.disposed) return;
    this.savesFailing = true;
    this.deps.notify(
      `Vault Research: the embedding vectors could not be saved on this device (${saveFailureWords(error)}). They are kept while Obsidian is open and saving is tried again; until it works, a restart embeds those notes again.`,
    );
  }
}

/** Everything whose change needs new clients: the agreed backend and address, the model, the key's id, the rate. */
function backendKey(config: ChosenConfig, settings: Settings): string {
  const embedding = settings.search.embedding;
  return JSON.stringify([config.kind, config.baseUrl, config.model, embedding.secretId, embedding.requestsPerSecond]);
}

/** Why IndexedDB refused the vectors, in plain words (its own message otherwise). */
function saveFailureWords(error: unknown): string {
  if ((error as { name?: unknown } | null)?.name === "QuotaExceededError") return "there is no room left for them";
  return errorMessage(error, "no reason given");
}
