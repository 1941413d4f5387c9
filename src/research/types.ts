// The public contract of one research run: what callers pass in, get back and can stream. Its trace is
// typed in evidence/trace-types.ts (read by notes and promotion without the runner), re-exported here.
import type { DialLevel, DialNotice } from "../index/dial/dial-types";
import type { Embedder } from "../index/embeddings/embedder";
import type { VaultSearch } from "../index/dial/vault-search";
import type { VaultIndex } from "../index/vault-index";
import type { VaultLinks } from "../index/links/vault-links";
import type { ChatModel } from "../llm/chat-model";
import type { Clock, Http, NoteStore, Secrets } from "../ports";
import type { ExternalMode, Freshness, ProviderName, Settings } from "../settings";
import type { SearchSession } from "../websearch/search-providers";
import type { Citation, ResearchPack, StopReason } from "../evidence/research-pack";
import type { ResearchAnswer, ResearchTrace, StageName } from "../evidence/trace-types";
import type { FetchGuardOptions } from "../promote/fetch-guard";
import type { ReadPage } from "../promote/page-extract";
import type { PageCache } from "./page-cache";
import type { PageRead } from "./stages/read-pages";
import type { CitationCheck } from "./stages/verify-citations";

export { stageNames } from "../evidence/trace-types";
export type { ResearchAnswer, ResearchTrace, StageName, TraceEvent } from "../evidence/trace-types";

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
  /** Outside pages to read (0–5; default: settings.external.readPages; 0: none). */
  readPages?: number;
  /** Stop after retrieval and merging: no synthesis. */
  retrievalOnly?: boolean;
  /** Write a trace note into the vault (default: settings.notes.writeTraceNotes); never once `signal` aborted: Stop writes nothing more. */
  writeTrace?: boolean;
}

/** A notice of the dial as the run's pack and trace say it. */
export type SaidDialNotice = { kind: string; message: string };
export type ResearchDial = {
  search: Pick<VaultSearch, "search">;
  level: DialLevel;
  embedder?: Embedder | null;
  /**
   * The dial's notices in the caller's words, as its own surface says them (the CLI's `shownNotices`: vectors
   * that could not be read are said so, where the dial, finding none, says to embed first); without it, the dial's.
   */
  sayNotices?: (notices: readonly DialNotice[]) => SaidDialNotice[];
};

export interface ResearchDeps {
  index: VaultIndex;
  store: NoteStore;
  http: Http;
  secrets: Secrets;
  /** Every secret the caller holds (CLI `envSecretValues`, plugin `keysHeld`): kept out of all the run writes, a typed-in one too. */
  knownSecrets: readonly string[];
  /** Reads the time for the trace and runs every stage's deadline. */
  clock: Clock;
  settings: Settings;
  /** null: no model configured; the extractive evidence brief is written instead. */
  model: ChatModel | null;
  /** Issue 10's model levers: `model` also checks the verdict and rewrites the question for local search (default off). */
  modelLevers?: boolean;
  /** The vault's link graph: with it, the related expansion looks along the best notes' links and tags (default: none, off). */
  links?: VaultLinks;
  /** The search dial (no query log: the caller logs the run): at level 2+ its notes join the vault rows, and its embedder weighs read pages' passages by meaning. */
  dial?: ResearchDial | null;
  /** Keeps the web cache and rate governor across runs of one session. */
  searchSession?: SearchSession;
  /** Reads a page's main content (Defuddle over the platform's DOM); without it no page is read. */
  readPage?: ReadPage;
  /** How the fetch guard looks names up (the CLI: DNS); its rules apply with or without it. */
  fetchGuard?: FetchGuardOptions;
  /** Keeps pages read across runs of one session (30 minutes, LRU); without it, one run's worth. */
  pageCache?: PageCache;
  signal?: AbortSignal;
  onProgress?: (event: ProgressEvent) => void;
  /**
   * Where the web's answers come from when they are recorded sample responses (`--replay DIR`),
   * not a live search: the trace and its note say so wherever they show those answers.
   */
  replayedFrom?: string;
}

/**
 * What the panel's live timeline shows. `partial`: the stage finished but part of its work failed (one
 * of two providers answered); `failed` also ends a stage that gave up without throwing, why in `detail`;
 * `stopped`: the user cancelled the run during the stage, which is no failure (its trace event says
 * `stopped: "cancelled"`).
 */
export interface ProgressEvent {
  stage: StageName;
  status: "started" | "done" | "partial" | "skipped" | "failed" | "stopped";
  /** Human sentence: "Searching the web with Brave", "12 notes matched". */
  detail: string;
  /** ms since the run started. */
  at: number;
  provider?: ProviderName;
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
  /** The outside pages the run chose to read and what became of each (absent when it read none). */
  page_reads?: PageRead[];
}
