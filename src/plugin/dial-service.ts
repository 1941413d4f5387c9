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
import type { ResearchDial, ResearchResult } from "../research/types";
import { researchLogEntry } from "../research/research-log-entry";
import type { Settings } from "../settings";
import type { SecretScrubber } from "../text/secret-scrub";

export interface DialServiceDeps {
  /** The index now (read each time: it is replaced when word analysis changes). */
  index: () => VaultIndex;
  notes: NoteStore;
  clock: Clock;
  settings: () => Settings;
  saveSettings: () => Promise<void>;
  log: QueryLog;
  /** The scrubber of every key secret storage holds, asked at each search (VaultSearchOptions.scrubber). */
  scrubber?: () => Promise<SecretScrubber>;
  /** The embedding job's progress in words, null when none ran. */
  embeddingStatus: () => string | null;
  /** Said once per new problem: the query log could not be written (the searches themselves went on). */
  notify?: (message: string) => void;
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
  private toldLogProblem: string | null = null;

  constructor(private readonly deps: DialServiceDeps) {}

  /** The VaultSearch a surface searches through; `logged: false` for a research run's own searches. */
  forSurface(surface: string, logged = true): VaultSearch {
    const index = this.deps.index();
    if (index !== this.searchesOf) {
      this.searches.clear();
      this.searchesOf = index;
    }
    const key = logged ? surface : `${surface} (not logged)`;
    let search = this.searches.get(key);
    if (!search) {
      const { notes, clock, scrubber } = this.deps;
      search = new VaultSearch({ index, notes, clock, log: logged ? this.deps.log : null, surface, ...(scrubber ? { scrubber } : {}), ...this.lanes });
      this.searches.set(key, search);
    }
    return search;
  }

  /**
   * The dial for one research run at the panel's level, and the run's one line in the query log:
   * the question, the level asked and run, and the notes the pack cites as vault evidence (the
   * run's own searches are not logged one by one, as in the CLI).
   */
  researchRun(): { dial: ResearchDial; record: (question: string, result: ResearchResult) => Promise<void> } {
    const level = this.level("research-panel");
    const search = this.forSurface("research-panel", false);
    // Taken as the run begins: a log cleared while it runs (a run takes minutes) does not get its line after.
    const began = this.deps.log.mark();
    let ranLevel: DialLevel = 1;
    const dial: ResearchDial = {
      level,
      embedder: this.lanes.embedder,
      search: {
        search: async (request) => {
          const answer = await search.search(request);
          ranLevel = answer.ranLevel;
          return answer;
        },
      },
    };
    const record = async (question: string, result: ResearchResult): Promise<void> => {
      const entry = researchLogEntry(question, { level, ranLevel }, result, "research-panel");
      if (!entry) return;
      await this.deps.log.recordSearch(entry, began);
      this.tellLogProblem();
    };
    return { dial, record };
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

  async search(request: DialRequest & { surface: string }): Promise<DialResponse> {
    const { surface, ...dialRequest } = request;
    const response = await this.forSurface(surface).search(dialRequest);
    this.tellLogProblem();
    return response;
  }

  readiness(): ReturnType<VaultSearch["readiness"]> {
    return this.forSurface("search-modal").readiness();
  }

  async compare(query: string, options: { filters?: DialFilters; limit?: number; signal?: AbortSignal } = {}): Promise<LevelComparison> {
    // Its four searches go to the log as any search does: a log that cannot be written is said here too.
    const comparison = await compareLevels(this.forSurface("comparison-view"), { query, ...options }).finally(() => this.tellLogProblem());
    return comparison;
  }

  async recordClick(response: Pick<DialResponse, "logId" | "results">, key: string): Promise<void> {
    // Every surface's search writes to the one log, so any of them records the click.
    await this.forSurface("search-modal").recordClick(response, key);
    this.tellLogProblem();
  }

  private tellLogProblem(): void {
    const problem = this.deps.log.problem;
    // Written since: the same failure later (the disk full again) is a new episode, and is said.
    if (problem === null) this.toldLogProblem = null;
    if (problem === null || problem === this.toldLogProblem) return;
    this.toldLogProblem = problem;
    this.deps.notify?.(`Vault Research: ${problem}. Search still works.`);
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
