// The search dial's services for one plugin session, built and kept in step with the settings in
// one place so main.ts stays lifecycle only: the query log and the
// vectors in IndexedDB, the embedding keeper, and the dial the UI searches through, with the chat
// model from the answer settings as level 4's reranker.
import type { Embedder } from "../index/embeddings/embedder";
import type { EmbeddingProgress } from "../index/embeddings/embedding-job";
import { embeddingProgressWords } from "../index/embeddings/progress-words";
import type { VectorCache } from "../index/embeddings/vector-cache";
import type { RerankModel } from "../index/dial/rerank";
import { QueryLog } from "../index/query-log/query-log";
import type { QueryLogFile } from "../index/query-log/query-log-file";
import type { VaultIndex } from "../index/vault-index";
import { createEmbeddingModel, embedSecretNameFor, type EmbedConfig } from "../llm/embeddings/embed-spec";
import type { Clock, Http, NoteFileInfo, NoteStore } from "../ports";
import type { Settings } from "../settings";
import { errorMessage } from "../text/error-message";
import { secretScrubber } from "../text/secret-scrub";
import { DialService } from "./dial-service";
import { EmbeddingKeeper } from "./embedding-keeper";
import { yieldToUi } from "./yield-to-ui";

export interface SearchDialDeps {
  /** Where the query log's lines go: this device's IndexedDB (indexeddb-query-log-file.ts). */
  queryLogFile: QueryLogFile;
  vectorCache: VectorCache;
  notes: NoteStore;
  http: Http;
  clock: Clock;
  settings: () => Settings;
  saveSettings: () => Promise<void>;
  /** A secret by its id in the settings. */
  secret: (id: string) => Promise<string | null>;
  /** Every key secret storage holds now (`keysHeld`): no search sends one on, and the query log never writes one. */
  keysHeld: () => Promise<readonly string[]>;
  index: () => VaultIndex;
  /** Settles when the index's running build is over. */
  indexReady: () => Promise<void>;
  /** The chat model the answer settings name (level 4 reranks with it), or null. */
  chatModel: () => Promise<RerankModel | null>;
  notify: (message: string) => void;
  onEmbeddingProgress: (progress: EmbeddingProgress | null) => void;
  /** Default: the MessageChannel yield. */
  yieldToUi?: () => Promise<void>;
}

export class SearchDialServices {
  readonly queryLog: QueryLog;
  readonly logFile: QueryLogFile;
  readonly dial: DialService;
  readonly embedding: EmbeddingKeeper;
  /** The answer settings the reranker was made from, so saving a dial position does not remake it. */
  private rerankFrom: string | null = null;

  constructor(private readonly deps: SearchDialDeps) {
    this.logFile = deps.queryLogFile;
    // Read at each search and each write: a key stored since start-up is kept out too.
    const scrubber = async () => secretScrubber(await deps.keysHeld());
    this.queryLog = new QueryLog({ file: this.logFile, clock: deps.clock, enabled: deps.settings().search.queryLog, scrubber });
    this.dial = new DialService({
      index: deps.index,
      notes: deps.notes,
      clock: deps.clock,
      settings: deps.settings,
      saveSettings: deps.saveSettings,
      log: this.queryLog,
      scrubber,
      notify: deps.notify,
      embeddingStatus: () => {
        const progress = this.embedding.progress();
        return progress ? embeddingProgressWords(progress) : null;
      },
    });
    this.embedding = new EmbeddingKeeper({
      notes: deps.notes,
      cache: deps.vectorCache,
      clock: deps.clock,
      settings: deps.settings,
      createEmbedder: (config, purpose) => this.createEmbedder(config, purpose),
      indexFiles: () => this.indexFiles(),
      // A folder excluded while a run is under way: its notes are not sent.
      mayEmbed: (path) => deps.index().isIndexable(path),
      onVectors: (vectors, embedder) => this.dial.configure({ vectors, embedder }),
      onProgress: (progress) => {
        deps.onEmbeddingProgress(progress);
        this.dial.changed();
      },
      notify: deps.notify,
      // Between batches: reading and parsing a batch's notes is work on the UI thread.
      yieldToUi: deps.yieldToUi ?? yieldToUi,
    });
  }

  /** Once the workspace is ready: the backend the settings agree to starts embedding. */
  async start(): Promise<void> {
    await Promise.all([this.embedding.applySettings(), this.refreshReranker()]);
  }

  /** After every settings save: the log switch, the backend, the reranker. */
  async settingsChanged(): Promise<void> {
    this.queryLog.enabled = this.deps.settings().search.queryLog;
    await Promise.all([this.embedding.applySettings(), this.refreshReranker()]);
    this.dial.changed();
  }

  /** The "Clear the search query log" command; the sentence to show. */
  async clearQueryLog(): Promise<string> {
    try {
      await this.queryLog.clear();
      return "The search query log is cleared.";
    } catch (error) {
      return `The search query log could not be cleared: ${errorMessage(error)}`;
    }
  }

  dispose(): void {
    this.embedding.dispose();
  }

  private async refreshReranker(): Promise<void> {
    const from = JSON.stringify(this.deps.settings().model);
    if (from === this.rerankFrom) return;
    this.rerankFrom = from;
    const model = await this.deps.chatModel();
    // The settings changed again while it was made: the newer call configures theirs. Set last, this
    // one would rerank, sending the snippets, with a model the user had since replaced or turned off.
    if (this.rerankFrom !== from) return;
    this.dial.configure({ rerankModel: model });
  }

  private async createEmbedder(config: Exclude<EmbedConfig, { kind: "none" }>, purpose: "job" | "query"): Promise<Embedder | null> {
    const embedding = this.deps.settings().search.embedding;
    const apiKey = embedSecretNameFor(config) ? await this.deps.secret(embedding.secretId) : null;
    return createEmbeddingModel(config, {
      http: this.deps.http,
      apiKey,
      clock: this.deps.clock,
      // The job keeps to the user's cap; a search's one query is not queued behind its batches.
      ...(purpose === "job" ? { requestsPerSecond: embedding.requestsPerSecond } : {}),
    });
  }

  private async indexFiles(): Promise<NoteFileInfo[]> {
    await this.deps.indexReady();
    const index = this.deps.index();
    return index.paths().flatMap((path) => {
      const note = index.note(path);
      return note ? [{ path, mtime: note.mtime, size: note.size }] : [];
    });
  }
}
