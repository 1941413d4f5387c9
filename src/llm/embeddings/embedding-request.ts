// What both embedding clients share: one request through llm/send.ts's postJson (deadline,
// cancellation, status mapping, key scrubbing), its ModelError turned into an EmbeddingError, and
// the batch loop that paces requests, checks every vector and scales it to unit length.
import { systemClock, type Clock, type Http } from "../../ports";
import { ModelError } from "../chat-model";
import { postJson, scrub, serverSaid } from "../send";
import {
  DEFAULT_EMBEDDING_REQUESTS_PER_SECOND,
  DEFAULT_EMBEDDING_TIMEOUT_MS,
  embeddingError,
  type EmbedResult,
  type EmbeddingClientOptions,
  type EmbeddingError,
} from "./embedding-model";
import { rateCap, type RateCap } from "./rate-cap";
import { originOf } from "../../text/urls";

export interface EmbeddingServer {
  http: Http;
  clock: Clock;
  /** Per request. */
  timeoutMs: number;
  rate: RateCap;
  /** For messages: "Ollama at http://localhost:11434". */
  serverName: string;
  /** Strings that must never appear in a message (the API key). */
  secrets: string[];
  /** Whether requests carry a key: a 401 to one without says none is set. */
  keySent: boolean;
}

/**
 * The server a client's options point at: the base URL without a trailing slash, and the timeout,
 * rate cap and key to scrub that every request to it shares. `name` words it for messages.
 */
export function embeddingServer(options: EmbeddingClientOptions, defaultBaseUrl: string, name: (origin: string) => string): { baseUrl: string; server: EmbeddingServer } {
  const baseUrl = (options.baseUrl ?? defaultBaseUrl).replace(/\/+$/, "");
  const apiKey = options.apiKey ?? undefined;
  const clock = options.clock ?? systemClock;
  return {
    baseUrl,
    server: {
      http: options.http,
      clock,
      timeoutMs: options.timeoutMs ?? DEFAULT_EMBEDDING_TIMEOUT_MS,
      rate: rateCap(options.requestsPerSecond ?? DEFAULT_EMBEDDING_REQUESTS_PER_SECOND, clock),
      serverName: name(originOf(baseUrl)),
      secrets: apiKey ? [apiKey] : [],
      keySent: Boolean(apiKey),
    },
  };
}

export type BatchAnswer = { ok: true; vectors: unknown[] } | { ok: false; error: EmbeddingError };

/**
 * Words servers use when the model is not there (Ollama: "model … not found, try pulling it first"):
 * what `/model.*(not found|does not exist|not exist)|no such model|…/i` finds. "model" and what
 * follows it on its line are looked for apart: as one pattern, each "model" of a long error
 * message read its line to the end again.
 */
const MODEL_WORDS = /no such model|not support(ed)? embed|does not support embed|pull/i;
const MISSING_AFTER_MODEL = /not found|does not exist|not exist/i;

function saysModelMissing(message: string): boolean {
  if (MODEL_WORDS.test(message)) return true;
  // The first "model" of a line has the most of the line after it.
  for (const line of message.split(/[\n\r\u2028\u2029]/)) {
    const at = line.search(/model/i);
    if (at >= 0 && MISSING_AFTER_MODEL.test(line.slice(at + 5))) return true;
  }
  return false;
}

/** POSTs one batch's JSON and hands back the parsed body, or the failure as a value. */
export async function postEmbeddingJson(
  server: EmbeddingServer,
  request: {
    url: string;
    headers: Record<string, string>;
    body: unknown;
    signal?: AbortSignal;
    errorMessageOf: (body: unknown) => string | undefined;
    /**
     * Wait for the rate cap (default). A search's query is not paced: the cap is for the long
     * embedding job, and a person typing should not queue behind its batches.
     */
    paced?: boolean;
  },
): Promise<{ ok: true; body: unknown } | { ok: false; error: EmbeddingError }> {
  if (request.signal?.aborted) return { ok: false, error: embeddingError("cancelled", "The embedding call was cancelled.") };
  // A stop during the rate wait ends it at once, its turn given back (rate-cap.ts).
  const turnCame = request.paced === false || (await server.rate.wait(request.signal));
  if (!turnCame || request.signal?.aborted) return { ok: false, error: embeddingError("cancelled", "The embedding call was cancelled.") };
  try {
    const body = await postJson({ ...request, http: server.http, clock: server.clock, timeoutMs: server.timeoutMs, serverName: server.serverName, secrets: server.secrets, keySent: server.keySent });
    return { ok: true, body };
  } catch (error) {
    return { ok: false, error: fromModelError(error, server.secrets) };
  }
}

function fromModelError(error: unknown, secrets: string[]): EmbeddingError {
  if (!(error instanceof ModelError)) return embeddingError("network", scrub(error instanceof Error ? error.message : String(error), secrets));
  const { status, retryAfterMs } = error.details;
  const details = { ...(status !== undefined ? { status } : {}), ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
  switch (error.kind) {
    case "auth":
    case "rate_limited":
    case "timeout":
    case "parse":
    case "network":
    case "cancelled":
      return embeddingError(error.kind, error.message, details);
    case "unavailable":
    case "http":
      if (status !== undefined && status >= 400 && status < 500 && saysModelMissing(error.message)) {
        return embeddingError("model_missing", error.message, details);
      }
      return embeddingError(status === undefined ? "network" : "http", error.message, details);
  }
}

/**
 * An error a server reported with a 200 (LM Studio for a route it does not serve, proxies): its
 * words, scrubbed of the key and cut short as an error status's are (send.ts).
 */
export function errorReportedWith200(serverName: string, said: string | undefined, secrets: string[]): EmbeddingError {
  return embeddingError("http", `${serverName} reported an error: ${serverSaid(scrub(said ?? "unknown error", secrets))}`);
}

/**
 * Texts per request, owned by one client and shared by its calls: a server that refuses a batch
 * as too large (413) is sent halves from then on, not the size it refused at every call.
 */
export interface BatchSize {
  texts: number;
}

/**
 * More dimensions than any embedding model gives (most give 384 to 4,096, the largest 12,288): kept, one server's 60,000
 * a text would be 60 KB a section of the vault, in memory and in the saved vectors.
 */
export const MAX_DIMENSIONS = 16_384;

/**
 * Embeds `texts` in batches of `batch.texts`, one request each, in order. Every answer must hold
 * one vector per text, of finite numbers, all of one length (`expectedDimensions` when given).
 */
export async function embedInBatches(
  texts: string[],
  options: { batch: BatchSize; serverName: string; expectedDimensions?: number; signal?: AbortSignal },
  sendBatch: (batch: string[]) => Promise<BatchAnswer>,
): Promise<EmbedResult> {
  const vectors: Float32Array[] = [];
  let dimensions = options.expectedDimensions;
  for (let start = 0; start < texts.length; ) {
    if (options.signal?.aborted) return { ok: false, error: embeddingError("cancelled", "The embedding call was cancelled.") };
    const batch = texts.slice(start, start + Math.max(1, options.batch.texts)).map((t) => (t.trim() === "" ? " " : t));
    const answer = await sendBatch(batch);
    if (!answer.ok && answer.error.status === 413 && batch.length > 1) {
      // A proxy's or the server's limit on a request's size: the same texts again, half as many at a time.
      options.batch.texts = Math.ceil(batch.length / 2);
      continue;
    }
    if (!answer.ok) return answer;
    start += batch.length;
    if (answer.vectors.length !== batch.length) {
      return { ok: false, error: embeddingError("parse", `${options.serverName} sent ${answer.vectors.length} vectors for ${batch.length} texts.`) };
    }
    for (const raw of answer.vectors) {
      if (Array.isArray(raw) && raw.length > MAX_DIMENSIONS) {
        return { ok: false, error: embeddingError("parse", `${options.serverName} sent a vector of ${raw.length} dimensions; no embedding model gives more than ${MAX_DIMENSIONS.toLocaleString("en-US")}.`) };
      }
      const vector = unitVector(raw);
      if (!vector) return { ok: false, error: embeddingError("parse", `${options.serverName} sent a vector that is not a list of numbers.`) };
      dimensions ??= vector.length;
      if (vector.length !== dimensions) {
        return {
          ok: false,
          error: embeddingError("dimension_mismatch", `${options.serverName} sent a vector of ${vector.length} dimensions where ${dimensions} were expected.`),
        };
      }
      vectors.push(vector);
    }
  }
  return { ok: true, vectors, dimensions: dimensions ?? 0 };
}

/**
 * The vector scaled to length 1 (a zero vector stays zero), or null when it is not numbers. Divided
 * by its largest component first, in doubles: a number past float32's range (1e39) cast first was
 * Infinity, and one whose square passes a double's (1e200) made the norm Infinity; either way the
 * vector came out NaN, and every similarity with it.
 */
function unitVector(raw: unknown): Float32Array | null {
  if (!Array.isArray(raw) || raw.length === 0) return null;
  let max = 0;
  for (const x of raw as unknown[]) {
    if (typeof x !== "number" || !Number.isFinite(x)) return null;
    max = Math.max(max, Math.abs(x));
  }
  const out = new Float32Array(raw.length);
  if (max === 0) return out;
  const scaled = (raw as number[]).map((x) => x / max);
  const norm = Math.sqrt(scaled.reduce((sum, x) => sum + x * x, 0));
  for (let i = 0; i < out.length; i++) out[i] = scaled[i] / norm;
  return out;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
