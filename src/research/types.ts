// The public contract of one research run: what callers (panel, command palette, CLI, evals) pass
// in, what they get back, the progress events they can stream, and the trace it leaves.
import type { VaultIndex } from "../index/vault-index";
import type { ChatModel } from "../llm/chat-model";
import type { Clock, Http, NoteStore, Secrets } from "../ports";
import type { ExternalMode, Freshness, ProviderName, Settings } from "../settings";
import type { SearchSession } from "../websearch/search-providers";
import type { Citation, ResearchPack, StopReason } from "../evidence/research-pack";
import type { CitationCheck } from "./stages/verify-citations";

export interface ResearchRequest {
  question: string;
  /** Earlier questions of the same chat, oldest first. They may shape retrieval; they are never evidence. */
  history?: string[];
  /** Whether this run may look outside the vault. Default: `never`. */
  mode?: ExternalMode;
  /** Providers to ask when it does (default: settings.external.providers). */
  providers?: ProviderName[];
  freshness?: Freshness;
  /** URLs wanted from outside the vault: 5 by default, 10 at most. */
  count?: number;
  /** Stop after retrieval and merging: no synthesis. */
  retrievalOnly?: boolean;
  /** Write a trace note into the vault (default: settings.notes.writeTraceNotes). */
  writeTrace?: boolean;
}

export interface ResearchDeps {
  index: VaultIndex;
  store: NoteStore;
  http: Http;
  secrets: Secrets;
  clock: Clock;
  settings: Settings;
  /** null: no model configured; the extractive evidence brief is written instead. */
  model: ChatModel | null;
  /** Keeps the web cache and rate governor across runs of one session. */
  searchSession?: SearchSession;
  signal?: AbortSignal;
  onProgress?: (event: ProgressEvent) => void;
}

export const stageNames = [
  "plan",
  "local_retrieval",
  "judge",
  "external_policy",
  "external_retrieval",
  "normalize",
  "merge",
  "prepare_synthesis",
  "synthesize",
  "verify",
  "trace",
] as const;
export type StageName = (typeof stageNames)[number];

/** What the panel's live timeline shows. */
export interface ProgressEvent {
  stage: StageName;
  status: "started" | "done" | "skipped" | "failed";
  /** Human sentence: "Searching the web with Brave", "12 notes matched". */
  detail: string;
  /** ms since the run started. */
  at: number;
  provider?: ProviderName;
}

export interface ResearchAnswer {
  /** Markdown with bracketed key citations. */
  text: string;
  /** "model" when a chat model wrote it; "extractive" for the evidence brief. */
  kind: "model" | "extractive";
  /** false when verification failed after the repair attempt: shown as unverified, never as normal. */
  verified: boolean;
  model?: string;
}

export interface ResearchResult {
  pack: ResearchPack;
  answer?: ResearchAnswer;
  citations?: Citation[];
  verification?: Pick<CitationCheck, "passed" | "errors" | "warnings">;
  stop_reason: StopReason;
  /** Vault-relative path of the trace note, when one was written. */
  trace_path?: string;
  trace: ResearchTrace;
}

/** One entry of the trace timeline. `type` is a stage name or one of the external_* events. */
export interface TraceEvent {
  type: string;
  /** ms since the run started. */
  at: number;
  /** Short, bounded facts about the event (never a key, never a raw payload). */
  data?: Record<string, unknown>;
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
}
