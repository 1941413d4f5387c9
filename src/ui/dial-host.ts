// What the plugin gives the UI for the search dial: one object, so the search modal, the research
// panel and the comparison view never import plugin/ (the plugin fills it in src/main.ts). Plain
// data in and out, as the dial's own contract (index/dial/dial-types.ts).
import type { DialFilters } from "../index/dial/dial-filters";
import type { DialLevel, DialNotice, DialRequest, DialResponse } from "../index/dial/dial-types";
import type { LevelComparison } from "../index/dial/level-comparison";

/** Where a dial sits; each remembers its own position, and the query log names it. */
export type DialSurface = "search-modal" | "research-panel";

/** A search from one surface: the dial's request plus who asked (recorded in the query log). */
export interface DialHostRequest extends DialRequest {
  surface: DialSurface;
}

/** Whether a level can run now; when it cannot, the notice says why (the dial greys it out). */
export interface DialLevelReadiness {
  level: DialLevel;
  ready: boolean;
  notice: DialNotice | null;
}

export interface DialHost {
  /** Runs one search at the asked level (or the highest that can run, with notices saying why). */
  search(request: DialHostRequest): Promise<DialResponse>;
  /** Levels 1–4 in order; level 1 is always ready. */
  readiness(): DialLevelReadiness[];
  /** One query at all four levels, side by side (the comparison view). */
  compare(query: string, options?: { filters?: DialFilters; limit?: number; signal?: AbortSignal }): Promise<LevelComparison>;
  /** The user opened `key` from `response`: a click-through in the query log (nothing when logging is off). */
  recordClick(response: Pick<DialResponse, "logId" | "results">, key: string): Promise<void>;
  /** The surface's remembered dial position (from settings). */
  level(surface: DialSurface): DialLevel;
  /** Remembers the surface's position (saved to settings). */
  saveLevel(surface: DialSurface, level: DialLevel): Promise<void>;
  /** Whether results show their scores (per lane, and the rerank's move). */
  showScores(): boolean;
  saveShowScores(show: boolean): Promise<void>;
  /** The embedding job's progress in words while it runs or after it stopped; null when none ran. */
  embeddingStatus(): string | null;
  /** Called when readiness or the embedding status changes; returns the unsubscribe. */
  onChange(listener: () => void): () => void;
}
