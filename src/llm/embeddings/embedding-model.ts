// The embedding-model contract: texts in, one unit-length vector per text out, or an error as a
// value. Clients (Ollama's /api/embed, OpenAI-compatible /v1/embeddings) speak HTTP through the
// Http port and never throw. The index's embedding lane asks for this shape through its own port
// (src/index/embeddings/embedder.ts) because index/ may not import llm/; a test pins that the two
// agree.
import type { Clock, Http } from "../../ports";

/** Documents and queries are embedded differently by some models (nomic-embed-text's prefixes). */
export type EmbeddingRole = "document" | "query";

export type EmbeddingErrorKind =
  | "auth"
  | "rate_limited"
  | "model_missing"
  | "dimension_mismatch"
  | "http"
  | "parse"
  | "network"
  | "timeout"
  | "cancelled";

/** Why an embedding call failed, in words a user can act on. Never contains an API key. */
export interface EmbeddingError {
  readonly kind: EmbeddingErrorKind;
  readonly message: string;
  readonly status?: number;
  /** From a 429's Retry-After, when the server sent one. */
  readonly retryAfterMs?: number;
}

export type EmbedResult =
  | { ok: true; vectors: Float32Array[]; dimensions: number }
  | { ok: false; error: EmbeddingError };

export interface EmbeddingModel {
  /** For display and for the vector store's identity, e.g. `ollama:nomic-embed-text`. */
  readonly name: string;
  /**
   * One vector per text, in order, each scaled to unit length (so cosine is a dot product). Long
   * lists are sent in batches, paced by the client's rate cap. Resolves, never rejects.
   */
  embed(texts: string[], role: EmbeddingRole, signal?: AbortSignal): Promise<EmbedResult>;
}

/** Texts per request unless told otherwise: small enough for a laptop's Ollama, big enough to amortise a request. */
export const DEFAULT_EMBEDDING_BATCH = 32;
/** Per request: a batch of 32 sections on a CPU-only Ollama can take tens of seconds. */
export const DEFAULT_EMBEDDING_TIMEOUT_MS = 60_000;
/** Requests started per second at most (local servers are queued, hosted ones rate limit). */
export const DEFAULT_EMBEDDING_REQUESTS_PER_SECOND = 4;

export function embeddingError(kind: EmbeddingErrorKind, message: string, details: { status?: number; retryAfterMs?: number } = {}): EmbeddingError {
  return { kind, message, ...details };
}

/** What both clients are built from. */
export interface EmbeddingClientOptions {
  http: Http;
  model: string;
  /** Ollama: the server root (`http://localhost:11434`); OpenAI-compatible: up to the version path. */
  baseUrl?: string;
  /** Sent as `Authorization: Bearer …` when present (hosted servers); never in a message. */
  apiKey?: string | null;
  /** Per request (default 60 s). */
  timeoutMs?: number;
  /** Texts per request (default 32). */
  batchSize?: number;
  /** Requests started per second at most (default 4; 0 for no cap). */
  requestsPerSecond?: number;
  /** Vectors must have this many dimensions (the stored ones'); a different answer is `dimension_mismatch`. */
  expectedDimensions?: number;
  clock?: Clock;
}
