// What the embedding lane needs of an embedding client. index/ may not import llm/, so the lane
// states the shape it uses and llm/embeddings' clients fill it structurally (a test pins that they
// do). The failure is kept whole for the user; the job reads its kind only to wait out a rate limit.

export type EmbedRole = "document" | "query";

/** The same closed union as llm/embeddings' EmbeddingErrorKind (test/index/embeddings/embedder.test.ts pins that they agree). */
export type EmbedderFailureKind =
  | "auth"
  | "rate_limited"
  | "model_missing"
  | "dimension_mismatch"
  | "http"
  | "parse"
  | "network"
  | "timeout"
  | "cancelled";

/** The client's error as it worded it. */
export interface EmbedderFailure {
  readonly kind: EmbedderFailureKind;
  readonly message: string;
  /** A rate-limited server said when to come back. */
  readonly retryAfterMs?: number;
}

export type EmbedderAnswer = { ok: true; vectors: Float32Array[]; dimensions: number } | { ok: false; error: EmbedderFailure };

export interface Embedder {
  /** The model's identity (`ollama:nomic-embed-text`): vectors made by another are thrown away. */
  readonly name: string;
  /** Unit-length vectors, one per text, in order. Resolves, never rejects. */
  embed(texts: string[], role: EmbedRole, signal?: AbortSignal): Promise<EmbedderAnswer>;
}
