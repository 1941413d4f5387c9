// The trace of one research run, as a type: what the research runner records, what a trace note
// keeps in its JSON block and what promotion reads back. It lives here, beside the pack it
// carries, so that notes/ and promote/ can read traces without importing the runner.
import type { ExternalMode, Freshness, ProviderName } from "../settings";
import type { ResearchPack, StopReason } from "./research-pack";

/** The stages of a run, in the order they run. */
export const stageNames = [
  "plan",
  "local_retrieval",
  "judge",
  "external_policy",
  "external_retrieval",
  "normalize",
  "read_pages",
  "merge",
  "prepare_synthesis",
  "synthesize",
  "verify",
  "trace",
] as const;
export type StageName = (typeof stageNames)[number];

/** Events a trace records about the web, besides one event per stage. */
export const externalTraceEventTypes = [
  "external_search_skipped",
  "external_sources_routed",
  "external_query_built",
  "external_provider_request",
  "external_provider_response",
  "external_result_deduped",
  "external_evidence_selected",
  "external_merge_completed",
] as const;

/** Events a trace records for each outside page the run read (or tried to). */
export const pageTraceEventTypes = ["page_fetch", "page_extract", "passages_selected"] as const;

export const traceEventTypes = [...stageNames, ...externalTraceEventTypes, ...pageTraceEventTypes] as const;
export type TraceEventType = (typeof traceEventTypes)[number];

/** One entry of the trace timeline. `type` is a stage name, an external_* or a page event. */
export interface TraceEvent {
  type: string;
  /** ms since the run started. */
  at: number;
  /** Short, bounded facts about the event (never a key, never a raw payload). */
  data?: Record<string, unknown>;
}

/**
 * How a stage ended, in its own event's data (`type` a stage name, beside `ms`, how long it ran):
 * finished (`detail`), threw (`failed: true`: its error, or its time or the run's ran out), or
 * stopped by the user (`stopped: "cancelled"`; traces before this field said `failed: true` for it).
 */
export type StageEnding = { detail?: string } | { failed: true } | { stopped: "cancelled" };

export interface ResearchAnswer {
  /** Markdown with bracketed key citations. */
  text: string;
  /** "model" when a chat model wrote it; "extractive" for the evidence brief. */
  kind: "model" | "extractive";
  /** false when verification failed after the repair attempt: shown as unverified, never as normal. */
  verified: boolean;
  model?: string;
}

/** Everything a run did, bounded, as kept in the trace note's JSON block. */
export interface ResearchTrace {
  schema: "research_trace.v1";
  run_id: string;
  started_at: string;
  question: string;
  mode: ExternalMode;
  providers: ProviderName[];
  freshness: Freshness;
  /** Queries actually sent to providers (empty when none left the device). */
  queries_sent: string[];
  stop_reason: StopReason;
  timings_ms: Partial<Record<StageName | "total", number>>;
  events: TraceEvent[];
  errors: { stage: StageName; kind: string; message: string; provider?: string }[];
  /** The pack, bounded: section texts and outside text cut to a budget. */
  pack: ResearchPack;
  answer?: ResearchAnswer;
  /** Promotions recorded afterwards: outside rows the user saved as notes. */
  promotions?: { source_key: string; note_path: string; at: string }[];
  /** The web's answers were recorded sample responses replayed from this folder, not a live search. */
  replayed_from?: string;
}

/**
 * What was cut from a trace, in words ("vault section texts cut to 600 characters"). Kept in the
 * trace's JSON beside the contract fields, so a reader knows the copy is not the whole story.
 */
export interface TraceTruncation {
  truncated?: string[];
}
