// One JSON request to a model server, with everything that can go wrong turned into a ModelError:
// the deadline (`src/deadline.ts`, raced because Obsidian's requestUrl cannot be aborted),
// cancellation, transport failures, HTTP statuses and bodies that are not JSON. Shared by both
// adapters.
import { DeadlineMissed, withDeadline } from "../deadline";
import { HttpFailure, systemClock, type Clock, type Http, type HttpResponse } from "../ports";
import { isCredential, secretScrubber } from "../text/secret-scrub";
import { ModelError, type ModelErrorReason } from "./chat-model";
import { retryAfterHeaderMs } from "../text/retry-after";

export interface JsonPost {
  http: Http;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Runs the deadline's timer (default: the system clock). */
  clock?: Clock;
  /** Server name for messages ("Anthropic", "the model server at http://localhost:11434"). */
  serverName: string;
  /** Strings that must never appear in an error message (the API key). */
  secrets: string[];
  /** Whether the request carries an API key (default: it does); a 401 or 403 to one without is worded so. */
  keySent?: boolean;
  /** Pulls a human message out of an error body; each API words it differently. */
  errorMessageOf: (body: unknown) => string | undefined;
  /**
   * The error's type or code as the API names it (Anthropic's `overloaded_error`, OpenAI's
   * `insufficient_quota`): it tells apart what one status covers.
   */
  errorTypesOf?: (body: unknown) => string[];
  /** The parameter a refused request named as one the model does not take (OpenAI's `param`). */
  rejectedParameterOf?: (body: unknown) => string | undefined;
}

const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;
/** Characters of what a server said that a message quotes. */
const MAX_SAID = 200;

/** Posts JSON and returns the parsed JSON body of a 2xx response. */
export async function postJson(post: JsonPost): Promise<unknown> {
  const response = await send(post);
  if (response.status < 200 || response.status >= 300) throw statusError(post, response);
  try {
    return JSON.parse(response.text);
  } catch {
    throw new ModelError("parse", `${capitalise(post.serverName)} answered with something that is not JSON: ${excerpt(scrub(response.text, post.secrets))}`);
  }
}

async function send(post: JsonPost): Promise<HttpResponse> {
  if (post.signal?.aborted) throw new ModelError("cancelled", "The model call was cancelled.");
  const request = post.http.request({
    method: "POST",
    url: post.url,
    headers: { "content-type": "application/json", ...post.headers },
    body: JSON.stringify(post.body),
    timeoutMs: post.timeoutMs,
    maxBytes: MAX_RESPONSE_BYTES,
    signal: post.signal,
  });
  try {
    return await withDeadline(request, { clock: post.clock ?? systemClock, ms: post.timeoutMs, signal: post.signal });
  } catch (error) {
    throw transportError(post, error);
  }
}

function transportError(post: JsonPost, error: unknown): ModelError {
  if (error instanceof ModelError) return error;
  if (error instanceof DeadlineMissed) {
    return error.kind === "timeout"
      ? new ModelError("timeout", `${capitalise(post.serverName)} did not answer within ${Math.round(post.timeoutMs / 1000)} s.`)
      : new ModelError("cancelled", "The model call was cancelled.");
  }
  if (error instanceof HttpFailure) {
    switch (error.kind) {
      case "timeout":
        return new ModelError("timeout", `${capitalise(post.serverName)} did not answer in time.`);
      case "aborted":
        return new ModelError("cancelled", "The model call was cancelled.");
      case "too_large":
        return new ModelError("parse", `${capitalise(post.serverName)} sent a response larger than ${MAX_RESPONSE_BYTES / 1024 / 1024} MB.`);
      case "network":
        return new ModelError("network", `Could not reach ${post.serverName}: ${scrub(error.message, post.secrets)}`);
      case "replay_miss":
        return new ModelError("unavailable", scrub(error.message, post.secrets));
      case "redirect":
        // Reached, every time: "Could not reach the model server at …:" said otherwise, and the panel "Could not reach the model's server."
        return new ModelError("http", `${capitalise(post.serverName)} answered, but ${scrub(error.message, post.secrets)}`);
      default:
        // A kind added to HttpFailure fails to compile here until it is worded above.
        error.kind satisfies never;
    }
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ModelError("network", `Could not reach ${post.serverName}: ${scrub(message, post.secrets)}`);
}

function statusError(post: JsonPost, response: HttpResponse): ModelError {
  let said: string | undefined;
  let types: string[] = [];
  let rejectedParameter: string | undefined;
  try {
    const body: unknown = JSON.parse(response.text);
    said = post.errorMessageOf(body);
    types = post.errorTypesOf?.(body) ?? [];
    rejectedParameter = post.rejectedParameterOf?.(body);
  } catch {
    said = undefined;
  }
  // Cut before scrubbing: the scrubber also takes out a key's start that the cut left at the end.
  const detail = scrub(said !== undefined ? serverSaid(said) : excerpt(response.text), post.secrets);
  const server = capitalise(post.serverName);
  const status = response.status;
  if (status === 401 || status === 403) {
    // Sent without a key (none set), "refused the API key" sends the user to check a key they never gave.
    const refused = post.keySent === false ? `asks for an API key (HTTP ${status}), and none is set` : `refused the API key (HTTP ${status})`;
    return new ModelError("auth", `${server} ${refused}: ${detail}`, { status });
  }
  if (status === 429) {
    // OpenAI's spent account answers 429 too, and no wait ends it.
    if (types.includes("insufficient_quota")) {
      return new ModelError("rate_limited", `${server} says the account has no quota left (HTTP 429): ${detail}`, { status, reason: "quota_exhausted" });
    }
    const retryAfterMs = retryAfterHeaderMs(response.headers["retry-after"], (post.clock ?? systemClock).now());
    return new ModelError("rate_limited", `${server} is rate limiting requests (HTTP 429): ${detail}`, { status, retryAfterMs });
  }
  const reason = reasonOfStatus(status, detail, types);
  switch (reason) {
    case "model_not_found":
      return new ModelError("unavailable", `${server} does not have that model (HTTP ${status}): ${detail}`, { status, reason });
    case "busy":
      return new ModelError("unavailable", `${server} is unavailable or overloaded (HTTP ${status}): ${detail}`, { status, reason });
    default:
      return new ModelError("http", `${server} answered HTTP ${status}: ${detail}`, { status, ...(reason ? { reason } : {}), ...(status === 400 && rejectedParameter ? { rejectedParameter } : {}) });
  }
}

/**
 * What an error status says beyond its kind. A 404 is a missing model when the server's words or
 * type name one (Ollama: `model 'llama9' not found`; OpenAI: `model_not_found`; Anthropic:
 * `not_found_error` on `model: …`), else a route the address does not serve.
 */
function reasonOfStatus(status: number, detail: string, types: string[]): ModelErrorReason | undefined {
  if (types.includes("overloaded_error") || status === 502 || status === 503 || status === 529) return "busy";
  if (status === 404) return /model/i.test(detail) || types.includes("model_not_found") ? "model_not_found" : "wrong_address";
  if (status === 405) return "wrong_address";
  if (status === 400 || status === 413 || status === 422) return "request_refused";
  if (status >= 500) return "server_error";
  return undefined;
}

/**
 * Runs an adapter's reading of a 2xx body with the key out of what it gives, error or answer: a
 * server may put an error, and the key it refused, inside a 200 answer, and the reader quotes what
 * the server said; and a server may echo the key it was sent in the answer or as the model's name,
 * which the settings tab's "Test connection" showed ("Connected to sk-… in 40 ms.").
 */
export function readScrubbed<T>(read: () => T, secrets: string[]): T {
  let answer: T;
  try {
    answer = read();
  } catch (error) {
    if (!(error instanceof ModelError)) throw error;
    const clean = scrub(error.message, secrets);
    throw clean === error.message ? error : new ModelError(error.kind, clean, error.details);
  }
  // A local server's placeholder (`ollama`) is no credential: taken out of an answer, it took the answer's own words.
  return secretScrubber(secrets.filter(isCredential)).value(answer);
}

/** Removes secrets, and anything shaped like a bearer token, from text bound for a message. */
export function scrub(text: string, secrets: string[]): string {
  const out = secretScrubber(secrets.filter((s) => s.length >= 4)).text(text);
  return out.replace(/\bsk-[A-Za-z0-9_-]{8,}/g, "sk-…[redacted]");
}

/**
 * The message an error body holds, as the server wrote it, cut to 200 characters: it may be
 * megabytes (a broken proxy, a hostile server), and it ends up in panels, traces and logs.
 */
export function serverSaid(message: string): string {
  return message.length > MAX_SAID ? `${message.slice(0, MAX_SAID)}…` : message;
}

function excerpt(text: string): string {
  // No tag ends past the last `>`: over the whole body, each `<` of a run with no `>` read to the end.
  const tagsEnd = text.lastIndexOf(">") + 1;
  const flat = (text.slice(0, tagsEnd).replace(/<[^>]*>/g, " ") + text.slice(tagsEnd)).replace(/\s+/g, " ").trim();
  if (flat === "") return "(empty body)";
  return flat.length > MAX_SAID ? `${flat.slice(0, MAX_SAID)}…` : flat;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
