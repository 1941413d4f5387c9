// A DialHost for tests: scripted answers (or the real engine, `engineDialHost`), with what the UI
// asked of it recorded — searches, click-throughs, saved levels and the scores toggle.
import { compareLevels, type LevelComparison } from "../../../src/index/dial/level-comparison";
import { DIAL_LEVELS, type DialLevel, type DialNotice, type DialRequest, type DialResponse, type DialResult } from "../../../src/index/dial/dial-types";
import type { VaultSearch } from "../../../src/index/dial/vault-search";
import type { DialHost, DialHostRequest, DialLevelReadiness, DialSurface } from "../../../src/ui/dial-host";

export function dialResult(over: Partial<DialResult> = {}): DialResult {
  const path = over.path ?? "Notes/Kites.md";
  return {
    key: path,
    path,
    title: "Kites",
    tags: [],
    score: 1,
    section: null,
    lexical: null,
    explanation: { lanes: [{ lane: "lexical", rank: 1, contribution: 0, score: 1 }] },
    ...over,
  };
}

export function dialResponse(over: Partial<DialResponse> = {}): DialResponse {
  return { query: "q", level: 1, ranLevel: 1, results: [], notices: [], latencyMs: 12, logId: "log-1", ...over };
}

const UNAVAILABLE: Record<"no_embedder" | "no_vectors" | "no_chat_model", string> = {
  no_embedder: "No embedding model is set, so this search used words only (level 1).",
  no_vectors: "The vault has no vectors from this embedding model yet, so this search used words only (level 1). Embed the vault first.",
  no_chat_model: "No chat model is set, so level 3's order stands (no reranking).",
};

export function unavailableNotice(wanted: DialLevel, reason: keyof typeof UNAVAILABLE): DialNotice {
  return { kind: "level_unavailable", wanted, ran: reason === "no_chat_model" ? 3 : 1, reason, message: UNAVAILABLE[reason] };
}

/** Readiness as a host reports it: `upTo` and below ready, the rest not, for `reason`. */
export function readinessUpTo(upTo: DialLevel, reason: keyof typeof UNAVAILABLE = "no_embedder"): DialLevelReadiness[] {
  return DIAL_LEVELS.map((level) => (level <= upTo ? { level, ready: true, notice: null } : { level, ready: false, notice: unavailableNotice(level, level === 4 && upTo === 3 ? "no_chat_model" : reason) }));
}

export class FakeDialHost implements DialHost {
  readonly requests: DialHostRequest[] = [];
  readonly clicks: { logId: string | null; key: string; rank: number }[] = [];
  readonly savedLevels: [DialSurface, DialLevel][] = [];
  readonly savedScores: boolean[] = [];
  levels: Record<DialSurface, DialLevel> = { "search-modal": 1, "research-panel": 1 };
  scores = false;
  ready: DialLevelReadiness[] = readinessUpTo(4);
  status: string | null = null;
  private readonly listeners = new Set<() => void>();

  constructor(public answer: (request: DialHostRequest) => DialResponse | Promise<DialResponse> = (r) => dialResponse({ query: r.query, level: r.level, ranLevel: r.level })) {}

  async search(request: DialHostRequest): Promise<DialResponse> {
    this.requests.push(request);
    return this.answer(request);
  }

  readiness(): DialLevelReadiness[] {
    return this.ready;
  }

  compare(query: string, options: { signal?: AbortSignal } = {}): Promise<LevelComparison> {
    return compareLevels({ search: (request: DialRequest) => this.search({ ...request, surface: "search-modal" }) }, { query, ...options });
  }

  async recordClick(response: Pick<DialResponse, "logId" | "results">, key: string): Promise<void> {
    this.clicks.push({ logId: response.logId, key, rank: response.results.findIndex((r) => r.key === key) + 1 });
  }

  level(surface: DialSurface): DialLevel {
    return this.levels[surface];
  }

  async saveLevel(surface: DialSurface, level: DialLevel): Promise<void> {
    this.levels[surface] = level;
    this.savedLevels.push([surface, level]);
  }

  showScores(): boolean {
    return this.scores;
  }

  async saveShowScores(show: boolean): Promise<void> {
    this.scores = show;
    this.savedScores.push(show);
  }

  embeddingStatus(): string | null {
    return this.status;
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Tells the UI that readiness changed, as the plugin does when an embedding job finishes. */
  changed(): void {
    for (const listener of this.listeners) listener();
  }

  listenerCount(): number {
    return this.listeners.size;
  }
}

/** A DialHost over the real engine, levels remembered in memory (what the plugin does with settings). */
export function engineDialHost(search: VaultSearch): FakeDialHost {
  const host = new FakeDialHost((request) => search.search(request));
  host.ready = search.readiness();
  const recorded = host.recordClick.bind(host);
  host.recordClick = async (response, key) => {
    await recorded(response, key);
    await search.recordClick(response, key);
  };
  return host;
}
