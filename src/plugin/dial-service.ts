// The dial as the plugin serves it to the UI (src/ui/dial-host.ts's DialHost, filled structurally
// because plugin/ never imports ui/): one VaultSearch per surface, so the query log says which
// surface asked, all sharing the same vectors, embedding model, chat model and log; remade when
// the index is replaced (a stemming change), so a search never reads an index that is gone.
import type { Embedder } from "../index/embeddings/embedder";
import type { VectorStore } from "../index/embeddings/vector-store";
import type { DialFilters } from "../index/dial/dial-filters";
import type { DialLevel, DialRequest, DialResponse } from "../index/dial/dial-types";
import { compareLevels, type LevelComparison } from "../index/dial/level-comparison";
import type { RerankModel } from "../index/dial/rerank";
import { VaultSearch } from "../index/dial/vault-search";
import type { QueryLog } from "../index/query-log/query-log";
import type { VaultIndex } from "../index/vault-index";
import type { Clock, NoteStore } from "../ports";
import type { Settings } from "../settings";

export interface DialServiceDeps {
  /** The index now (read each time: it is replaced when word analysis changes). */
  index: () => VaultIndex;
  notes: NoteStore;
  clock: Clock;
  settings: () => Settings;
  saveSettings: () => Promise<void>;
  log: QueryLog;
  /** The embedding job's progress in words, null when none ran. */
  embeddingStatus: () => string | null;
}

type Lanes = { vectors: VectorStore | null; embedder: Embedder | null; rerankModel: RerankModel | null };

/** The surfaces whose dial position is remembered, and the setting that holds each. */
const LEVEL_SETTING = { "search-modal": "searchLevel", "research-panel": "researchLevel" } as const;
type RememberedSurface = keyof typeof LEVEL_SETTING;

export class DialService {
  private readonly searches = new Map<string, VaultSearch>();
  private searchesOf: VaultIndex | null = null;
  private readonly lanes: Lanes = { vectors: null, embedder: null, rerankModel: null };
  private readonly listeners = new Set<() => void>();

  constructor(private readonly deps: DialServiceDeps) {}

  /** The VaultSearch a surface searches through (the research run takes the panel's). */
  forSurface(surface: string): VaultSearch {
    const index = this.deps.index();
    if (index !== this.searchesOf) {
      this.searches.clear();
      this.searchesOf = index;
    }
    let search = this.searches.get(surface);
    if (!search) {
      search = new VaultSearch({ index, notes: this.deps.notes, clock: this.deps.clock, log: this.deps.log, surface, ...this.lanes });
      this.searches.set(surface, search);
    }
    return search;
  }

  /** New vectors, embedding model or chat model: every surface's search follows, and the UI hears of it. */
  configure(change: Partial<Lanes>): void {
    Object.assign(this.lanes, change);
    for (const search of this.searches.values()) search.configure(change);
    this.changed();
  }

  /** Readiness or the embedding status may read differently now. */
  changed(): void {
    for (const listener of [...this.listeners]) listener();
  }

  search(request: DialRequest & { surface: string }): Promise<DialResponse> {
    const { surface, ...dialRequest } = request;
    return this.forSurface(surface).search(dialRequest);
  }

  readiness(): ReturnType<VaultSearch["readiness"]> {
    return this.forSurface("search-modal").readiness();
  }

  compare(query: string, options: { filters?: DialFilters; limit?: number; signal?: AbortSignal } = {}): Promise<LevelComparison> {
    return compareLevels(this.forSurface("comparison-view"), { query, ...options });
  }

  recordClick(response: Pick<DialResponse, "logId" | "results">, key: string): Promise<void> {
    // Every surface's search writes to the one log, so any of them records the click.
    return this.forSurface("search-modal").recordClick(response, key);
  }

  level(surface: RememberedSurface): DialLevel {
    return this.deps.settings().search[LEVEL_SETTING[surface]];
  }

  async saveLevel(surface: RememberedSurface, level: DialLevel): Promise<void> {
    if (this.level(surface) === level) return;
    this.deps.settings().search[LEVEL_SETTING[surface]] = level;
    await this.deps.saveSettings();
  }

  showScores(): boolean {
    return this.deps.settings().search.showScores;
  }

  async saveShowScores(show: boolean): Promise<void> {
    if (this.showScores() === show) return;
    this.deps.settings().search.showScores = show;
    await this.deps.saveSettings();
  }

  embeddingStatus(): string | null {
    return this.deps.embeddingStatus();
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
