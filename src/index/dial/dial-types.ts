// The dial's contract: `search({ query, level, filters }) → { results, … }` — plain data in and
// out, no UI state, so the panel, the search modal, the CLI and an MCP tool can all call it.
import type { SearchResult } from "../types";
import type { DialFilters } from "./dial-filters";

/**
 * How hard a search tries; each level does everything the one below does, and more:
 * 1 lexical (the index alone: offline, no model) · 2 hybrid (+ the note's vector, fused by RRF) ·
 * 3 multi-field (+ the best single title, outline or section vector) · 4 rerank (+ the chat model
 * reorders level 3's top results).
 */
export type DialLevel = 1 | 2 | 3 | 4;

export const DIAL_LEVELS: readonly DialLevel[] = [1, 2, 3, 4];

export const DIAL_LEVEL_NAMES: Record<DialLevel, string> = { 1: "Lexical", 2: "Hybrid", 3: "Multi-field", 4: "Rerank" };

export interface DialRequest {
  query: string;
  level: DialLevel;
  filters?: DialFilters;
  /** Results wanted (default 10). */
  limit?: number;
  /**
   * Level 1 found nothing: the closest notes by spelling instead (every word a prefix from 3
   * letters, typos from 4). Only the lexical lane reads it; no model, no network.
   */
  loose?: boolean;
  signal?: AbortSignal;
}

export type LaneName = "lexical" | "note_vector" | "section_vector";

/** How one lane saw a result: its rank there, what that added to the fused score, the lane's own score. */
export interface LaneMatch {
  lane: LaneName;
  rank: number;
  /** 1 / (60 + rank); 0 at level 1, where nothing is fused. */
  contribution: number;
  /** BM25 score (lexical) or cosine similarity (vector lanes). */
  score: number;
}

/** The part of the note that matched: the best lexical section, or the closest section vector. */
export interface DialSection {
  from: "lexical" | "section_vector";
  /** Which unit matched: a section, the note's title, or its outline of headings. */
  unit: "section" | "title" | "headings";
  headingPath: string[];
  line: number;
  start: number;
  end: number;
  snippet: string;
}

export interface DialExplanation {
  lanes: LaneMatch[];
  /** Set when the model reordered the result: its rank before (level 3's) and after. */
  rerank?: { before: number; after: number; model: string };
}

export interface DialResult {
  /** The note's vault path: what the query log records and click-throughs name. */
  key: string;
  path: string;
  title: string;
  tags: string[];
  /** Level 1: the lexical score; levels 2–4: the fused RRF score. */
  score: number;
  section: DialSection | null;
  /** Level 1's own result for the note, when the lexical lane found it (its explanation, sections). */
  lexical: SearchResult | null;
  explanation: DialExplanation;
}

/** Why a search ran at a lower level than asked, or what it could not do. */
export type DialNotice =
  | { kind: "level_unavailable"; wanted: DialLevel; ran: DialLevel; reason: "no_embedder" | "no_vectors" | "no_chat_model"; message: string }
  | { kind: "embedding_failed"; wanted: DialLevel; ran: 1; errorKind: string; message: string }
  | {
      kind: "vectors_partial";
      embedded: number;
      notes: number;
      /**
       * Of the notes without current vectors: those still to embed (added or edited since), those the
       * embedding server refused when last tried, and those that could not be read. Only the first
       * catch up as embedding goes on; the message says which are which.
       */
      waiting?: number;
      refused?: number;
      unreadable?: number;
      message: string;
    }
  | { kind: "rerank_failed"; reason: "timeout" | "invalid_json" | "model_error" | "cancelled"; message: string }
  | { kind: "rerank_partial"; named: number; candidates: number; message: string }
  | { kind: "rerank_cached"; message: string }
  | { kind: "query_cut"; message: string };

export interface DialResponse {
  query: string;
  /** The level asked for. */
  level: DialLevel;
  /** The level that actually ran (lower when vectors or a model were missing or failed). */
  ranLevel: DialLevel;
  results: DialResult[];
  notices: DialNotice[];
  latencyMs: number;
  /** The query log's id for this search (for click-throughs), null when logging is off. */
  logId: string | null;
}
