// The chat-model contract: everything the research runner needs from a model, and nothing more.
// Adapters (OpenAI-compatible, Anthropic) speak HTTP through the Http port; when no model is
// configured the runner writes an extractive evidence brief instead (src/core/extractive-brief).

export interface ChatMessage {
  role: "user" | "assistant";
  content: string;
}

export interface ChatRequest {
  system: string;
  messages: ChatMessage[];
  /** Upper bound on the answer's length (default 1024). */
  maxTokens?: number;
  /** Default 0.2: research answers should stay close to the evidence. */
  temperature?: number;
  signal?: AbortSignal;
}

export interface ChatUsage {
  inputTokens?: number;
  outputTokens?: number;
}

export interface ChatResponse {
  text: string;
  /** The model that answered, as the server reported it (falls back to the configured name). */
  model: string;
  usage?: ChatUsage;
  /** The model stopped because it hit `maxTokens`. */
  truncated?: boolean;
  /**
   * The model, or its provider's filter, stopped the answer as one it would not give (Anthropic's
   * `refusal`, OpenAI's `content_filter`): what text there is, is not an answer.
   */
  refused?: boolean;
}

export interface ChatModel {
  /** For display and traces, e.g. `openai:llama3.1:8b` or `anthropic:claude-sonnet-4-5`. */
  readonly name: string;
  /** Resolves with the answer or rejects with a ModelError — never with anything else. */
  complete(req: ChatRequest): Promise<ChatResponse>;
}

export type ModelErrorKind = "auth" | "rate_limited" | "timeout" | "http" | "parse" | "network" | "unavailable" | "cancelled";

/** Why a model call failed, in words a user can act on. Never contains an API key. */
export class ModelError extends Error {
  constructor(
    readonly kind: ModelErrorKind,
    message: string,
    readonly details: { status?: number; retryAfterMs?: number } = {},
  ) {
    super(message);
    this.name = "ModelError";
  }
}

export const DEFAULT_MAX_TOKENS = 1024;
export const DEFAULT_TEMPERATURE = 0.2;
export const DEFAULT_MODEL_TIMEOUT_MS = 120_000;
