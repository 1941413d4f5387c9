// The chat-model contract: everything the research runner needs from a model, and nothing more.
// Adapters (OpenAI-compatible, Anthropic) speak HTTP through the Http port; when no model is
// configured the runner writes an extractive evidence brief instead (src/core/extractive-brief).
import { removeControlChars } from "../text/control-chars";
import { cutText } from "../text/cut-text";
import { oneLine } from "../text/one-line";

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

/**
 * What a failure was, where its kind leaves two fixes open (closed; set where the failure is
 * classified). A 404 and a 503 are both `unavailable`, a 400 and a 500 both `http`, yet one is
 * fixed in settings and the other by asking again:
 * - `model_not_found`: the server has no model of that name (settings);
 * - `wrong_address`: the address answers, but not as a chat API — no such route, a base URL without /v1 (settings);
 * - `busy`: overloaded, or still loading the model (ask again in a moment);
 * - `request_refused`: the request as sent — too long for the model's context, a parameter it does
 *   not take (asked again, it is refused again);
 * - `server_error`: the server failed on its side (ask again);
 * - `quota_exhausted`: the account has no credit left (a 429 that no wait ends).
 */
export type ModelErrorReason = "model_not_found" | "wrong_address" | "busy" | "request_refused" | "server_error" | "quota_exhausted";

export interface ModelErrorDetails {
  status?: number;
  retryAfterMs?: number;
  reason?: ModelErrorReason;
  /** The request's parameter a 400 named as one the model does not take (OpenAI's `param`: `max_tokens`, `temperature`). */
  rejectedParameter?: string;
}

/** Why a model call failed, in words a user can act on. Never contains an API key. */
export class ModelError extends Error {
  constructor(
    readonly kind: ModelErrorKind,
    message: string,
    readonly details: ModelErrorDetails = {},
  ) {
    super(message);
    this.name = "ModelError";
  }
}

/** The most telling word for a model's failure: its reason when it has one, else its kind (what a trace records). */
export type ModelFailureKind = ModelErrorKind | ModelErrorReason;

export function modelFailureKind(error: ModelError): ModelFailureKind {
  return error.details.reason ?? error.kind;
}

export const DEFAULT_MAX_TOKENS = 1024;

/**
 * Characters a token may average before an answer is taken for one that ignored its length limit.
 * English averages about four; a generous ceiling, for code, tables and runs of spaces.
 */
const MAX_CHARS_PER_TOKEN = 16;

/**
 * The answer within its length limit. A server that ignores `max_tokens` (a hostile one, a broken
 * one looping) could send megabytes, which the panel, the trace note and a repair request would
 * all carry: it is cut at the limit and marked as cut, as a model that stopped there is.
 */
export function withinLengthLimit(response: ChatResponse, maxTokens: number): ChatResponse {
  const max = Math.max(1, maxTokens) * MAX_CHARS_PER_TOKEN;
  if (response.text.length <= max) return response;
  return { ...response, text: cutText(response.text, max), truncated: true };
}

/** The longest model name a server may report before the configured one is used instead (llama.cpp reports the model file's whole path). */
const MAX_REPORTED_NAME = 200;

/**
 * The model's name as the server reported it, when it is one: a short line. Shown as "Written by …",
 * in the judge's reason and the JSON, a hostile server's megabytes or lines of instructions are not
 * a name, and the name the user configured stands.
 */
export function reportedModelName(reported: unknown, configured: string): string {
  if (typeof reported !== "string") return configured;
  const name = reported.trim();
  const oneShortLine = name !== "" && name.length <= MAX_REPORTED_NAME && oneLine(name) === name && removeControlChars(name) === name;
  return oneShortLine ? name : configured;
}

/**
 * A reply that is a call to a tool and holds no text. No tool is ever offered, yet a server (or a
 * model trained to reach for one) may answer so: "sent an empty answer" hid why. The tool is named
 * only when its name has the shape APIs give one (letters, figures, `_`, `-`, 64 at most), whole:
 * cut, a name could end in a key's first characters inside the sentence, where no scrubber looks.
 */
export function toolCallReply(serverName: string, tool: unknown): ModelError {
  const named = typeof tool === "string" && /^[A-Za-z0-9_-]{1,64}$/.test(tool) ? ` (${tool})` : "";
  return new ModelError("parse", `${serverName} answered with a call to a tool${named} instead of text; no tool was offered.`);
}

export const DEFAULT_TEMPERATURE = 0.2;
export const DEFAULT_MODEL_TIMEOUT_MS = 120_000;
