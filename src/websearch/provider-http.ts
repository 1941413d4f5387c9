// What every provider does around one HTTP call: wait its turn, race the deadline, refuse huge
// bodies, and turn every failure into a ProviderError whose text never contains the key (in any
// form: `hideKey`, text/secret-scrub.ts, the one scrubber).
import * as z from "zod";
import { HttpFailure, stopwatch, type HttpResponse } from "../ports";
import type { SecretName } from "../ports";
import { DeadlineMissed, pacedUnlessAborted, withDeadline } from "../deadline";
import { hideKey } from "../text/secret-scrub";
import { cutText } from "../text/cut-text";
import { htmlToLine } from "./plain-text";
import { ProviderError, type ProviderContext, type ProviderErrorExtra, type ProviderErrorKind, type ProviderName } from "./types";
import { maxRetryAfterMs, retryAfterHeaderMs } from "../text/retry-after";
import { aside as asideOf, saidWithCode } from "../text/asides";

/** Bodies above this are refused before parsing: no search answer we ask for comes near it. */
export const maxResponseBytes = 2_000_000;

/**
 * Who is asking, for services whose policy wants a descriptive User-Agent with a way to reach the
 * client's authors (Wikimedia's, GitHub's). Kept in step with package.json by a test.
 */
export const userAgent = "VaultResearch/0.1.0 (Obsidian plugin and CLI; https://obsidian.md/plugins?id=vault-research)";

export interface ProviderCall {
  provider: ProviderName;
  /** "Brave", "Exa": used in messages. */
  label: string;
  method: "GET" | "POST";
  url: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  /** The key sent with this call, so it can be scrubbed from anything we report. */
  secret: string;
  /** Calls sharing a quota share a rate limit (Brave's two endpoints use one key). */
  quota: string;
  /** This source's body cap, below the shared `maxResponseBytes` (`source-limits.ts`). */
  maxBytes?: number;
}

/**
 * The longest message a provider failure carries. Error bodies echo what the server chose to put in
 * them (a `detail`, a `message`, an id); a hostile one sent a megabyte of it into the panel and the trace.
 */
export const maxMessageChars = 600;

/** The longest piece of a server's own text quoted in a message or warning (its `detail`, a page title). */
export const maxQuotedChars = 160;

/** A server's own words, as one line of plain text cut to `max`: for quoting in messages and warnings. */
export function quoted(text: string, max = maxQuotedChars): string {
  return cutText(htmlToLine(text), max);
}

/**
 * A server's words as an aside in a sentence of ours, " (…)", or "" when it said none: quoted first
 * (its HTML and entities as plain text), then as every aside is (`../text/asides.ts`: one line, cut
 * short, no full stop of its own before the bracket).
 */
export function aside(words: string | undefined): string {
  return asideOf(quoted(words ?? ""));
}

/** A server's words with its error code after them as an aside (`../text/asides.ts`). */
export { saidWithCode };

export function failWith(
  call: Pick<ProviderCall, "provider" | "secret">,
  kind: ProviderErrorKind,
  message: string,
  extra: ProviderErrorExtra = {},
): ProviderError {
  // Cut before scrubbing: the scrubber also hides a key's first characters left at a cut.
  return new ProviderError(call.provider, kind, hideKey(cutText(message, maxMessageChars), call.secret), extra);
}

/**
 * Looks the key up only now, when the provider is really about to be called. The message is the
 * panel's as much as the CLI's, so it names no environment variable: the CLI adds its own hint
 * (cli/provider-choice.ts), from the one table of variable names (cli/env-secrets.ts).
 */
export async function requireKey(
  context: ProviderContext,
  name: SecretName,
  provider: ProviderName,
  label: string,
): Promise<string> {
  const key = (await context.secrets.get(name))?.trim();
  if (!key) {
    throw new ProviderError(
      provider,
      "auth",
      `No ${label} API key is set. Add one in Vault Research settings.`,
    );
  }
  return key;
}

/** A key that only raises a limit (GitHub's token): looked up now, and absent is fine. */
export async function optionalKey(context: ProviderContext, name: SecretName): Promise<string> {
  return (await context.secrets.get(name))?.trim() ?? "";
}

/**
 * A time in words: "1.5 s", "42 s", and past two minutes in minutes or hours, rounded up so a
 * retry at the time said is not early. A day's Retry-After read "try again in 86400 s".
 */
function seconds(ms: number): string {
  if (ms >= 7_200_000) return `${Math.ceil(ms / 3_600_000)} h`;
  if (ms >= 120_000) return `${Math.ceil(ms / 60_000)} min`;
  return ms >= 10_000 ? `${Math.round(ms / 1000)} s` : `${(ms / 1000).toFixed(1).replace(/\.0$/, "")} s`;
}

/** Sends one call with the run's deadline; a 4xx/5xx is returned, everything else throws. */
export async function sendProviderRequest(call: ProviderCall, context: ProviderContext): Promise<HttpResponse> {
  const { clock, governor, log } = context;
  // A run already cancelled claims no turn: it would hold back the next run's calls for nothing.
  if (context.signal?.aborted) throw cancelled(call);
  if (governor) {
    // Read before the turn is claimed: a claimed turn moves the quota's next one past the pause.
    const pausedByProvider = governor.pausedByProvider(call.quota);
    const turn = governor.reserve(call.quota, call.timeoutMs);
    if (!turn.ok) throw failWith(call, "rate_limited", turnRefused(call.label, turn.retryAfterMs, pausedByProvider), { retryAfterMs: turn.retryAfterMs });
    if (turn.waitMs > 0) {
      const why = pausedByProvider ? "provider_asked" : "pacing";
      log?.({ type: "rate_wait", provider: call.provider, ms: turn.waitMs, why });
      const waited = stopwatch(clock);
      // The source's own signal (ask-source.ts): a stop, or the source given up on, clears the timer at once.
      const turnCame = await pacedUnlessAborted(clock, turn.waitMs, context.signal);
      // Said either way: the words "Waiting…" stand until something replaces them.
      log?.({ type: "rate_wait_over", provider: call.provider, ms: waited(), why, ended: turnCame ? "turn_came" : "cancelled" });
      if (!turnCame) {
        governor.giveBack(call.quota, turn);
        throw cancelled(call);
      }
    }
  }
  // The run may have been cancelled while this call waited its turn: then nothing is sent (an
  // adapter that cannot abort, or one that does not look at the signal, would send it anyway).
  if (context.signal?.aborted) throw cancelled(call);

  log?.({ type: "request", provider: call.provider, method: call.method, url: hideKey(call.url, call.secret) });
  // The call's time on the monotonic reading (see dispatcher.ts); a Retry-After date below is read against the wall clock.
  const elapsed = stopwatch(clock);
  let response: HttpResponse;
  try {
    response = await withDeadline(
      context.http.request({
        method: call.method,
        url: call.url,
        headers: call.headers,
        ...(call.body !== undefined ? { body: call.body } : {}),
        timeoutMs: call.timeoutMs,
        maxBytes: call.maxBytes ?? maxResponseBytes,
        ...(context.signal ? { signal: context.signal } : {}),
      }),
      {
        clock,
        ms: call.timeoutMs,
        ...(context.signal ? { signal: context.signal } : {}),
        onLate: () => log?.({ type: "late_answer_discarded", provider: call.provider, url: hideKey(call.url, call.secret) }),
      },
    );
  } catch (error) {
    throw failureToProviderError(call, error);
  }

  const cap = call.maxBytes ?? maxResponseBytes;
  const bytes = utf8Length(response.text, cap);
  log?.({ type: "response", provider: call.provider, url: hideKey(call.url, call.secret), status: response.status, ms: elapsed(), bytes });
  if (bytes > cap) {
    throw failWith(call, "parse", `${call.label}'s answer was ${Math.round(bytes / 1000)} kB, over the ${describeBytes(cap)} limit; it was not read.`, { status: response.status });
  }
  if (response.status === 429 && governor) {
    governor.backOff(call.quota, retryAfterMs(response.headers, clock.now()) ?? 1000);
  }
  // A proxy or error page may echo the key back; scrub it before anything reads the body.
  return { ...response, text: hideKey(response.text, call.secret) };
}

function cancelled(call: ProviderCall): ProviderError {
  return failWith(call, "network", `The ${call.label} search was cancelled.`, { cancelled: true });
}

/** Who holds the quota, in words: the provider asked for the pause, or this session's own calls fill it. */
function turnRefused(label: string, waitMs: number, pausedByProvider: boolean): string {
  const when = `allowed in ${seconds(waitMs)}, later than this search may wait.`;
  return pausedByProvider
    ? `${label} asked us to slow down; the next call is ${when}`
    : `${label}'s calls are spaced to the rate it allows, and this session's earlier calls come first; the next one is ${when}`;
}

function utf8Length(text: string, cap: number): number {
  // Cheap upper-bound check first: most bodies are far below the cap.
  if (text.length * 3 <= cap) return text.length;
  return new TextEncoder().encode(text).length;
}

function describeBytes(bytes: number): string {
  return bytes >= 1_000_000 ? `${bytes / 1_000_000} MB` : `${Math.round(bytes / 1000)} kB`;
}

function failureToProviderError(call: ProviderCall, error: unknown): ProviderError {
  if (error instanceof ProviderError) return error;
  if (error instanceof DeadlineMissed) {
    return error.kind === "timeout"
      ? failWith(call, "timeout", `${call.label} did not answer within ${seconds(call.timeoutMs)}.`)
      : cancelled(call);
  }
  if (error instanceof HttpFailure) {
    switch (error.kind) {
      case "timeout":
        return failWith(call, "timeout", `${call.label} did not answer within ${seconds(call.timeoutMs)}.`);
      case "too_large":
        return failWith(call, "parse", `${call.label}'s answer was over the ${describeBytes(call.maxBytes ?? maxResponseBytes)} limit; it was not read.`);
      case "aborted":
        return cancelled(call);
      case "replay_miss":
        // Nothing was tried on the network: "could not be reached" said otherwise.
        return failWith(call, "network", error.message, { reason: "no_recording" });
      case "network":
        return failWith(call, "network", `Could not reach ${call.label}: ${error.message}`);
      case "redirect":
        // Reached, every time: "Could not reach SearXNG:" and "SearXNG could not be reached" said otherwise.
        return failWith(call, "http", `${call.label} answered, but ${error.message}`, { reason: "redirects_only" });
      default:
        // A kind added to HttpFailure fails to compile here until it is worded above.
        error.kind satisfies never;
    }
  }
  const message = error instanceof Error ? error.message : String(error);
  return failWith(call, "network", `Could not reach ${call.label}: ${message}`);
}

/**
 * How long a 429 asks us to wait: `retry-after` (seconds or an HTTP date), else
 * `x-ratelimit-reset` for the window that is used up — seconds from now (Brave) or, when the
 * number can only be a moment in time, epoch seconds (GitHub).
 */
export function retryAfterMs(headers: Record<string, string>, now: number): number | undefined {
  const wait = askedWaitMs(headers, now);
  return wait === undefined ? undefined : Math.min(wait, maxRetryAfterMs);
}

function askedWaitMs(headers: Record<string, string>, now: number): number | undefined {
  const retryAfter = retryAfterHeaderMs(headers["retry-after"], now);
  if (retryAfter !== undefined) return retryAfter;
  const resets = headers["x-ratelimit-reset"]?.split(",").map((v) => Number(v.trim()));
  if (resets && resets.length > 0 && resets.every((v) => Number.isFinite(v) && v >= 0)) {
    const remaining = headers["x-ratelimit-remaining"]?.split(",").map((v) => Number(v.trim())) ?? [];
    const exhausted = resets.filter((_, i) => remaining[i] === 0);
    const reset = exhausted.length > 0 ? Math.max(...exhausted) : resets[0];
    return reset > epochSecondsFloor ? Math.max(0, Math.round(reset * 1000 - now)) : Math.round(reset * 1000);
  }
  return undefined;
}

/** No window lasts ten years: a reset larger than this is a Unix time, not a wait. */
const epochSecondsFloor = 315_360_000;

/** An HTML (or XML) page where JSON was asked for: a login wall, an error page, an instance with JSON off. */
export function looksLikeHtml(response: HttpResponse): boolean {
  return /text\/html/i.test(response.headers["content-type"] ?? "") || /^\s*<(!doctype|html|head|body|\?xml)/i.test(response.text);
}

/**
 * The raw text of a page's first <title>…</title>, or undefined when it has none. Searched by index:
 * one lazy pattern rescanned to the end for every `<title` that is never closed.
 */
function pageTitle(html: string): string | undefined {
  const open = /<title/i.exec(html);
  if (!open) return undefined;
  const start = html.indexOf(">", open.index) + 1;
  if (start === 0) return undefined;
  const close = /<\/title>/gi;
  close.lastIndex = start;
  const end = close.exec(html)?.index;
  return end === undefined ? undefined : html.slice(start, end);
}

/** A short, key-free excerpt of a body for error messages (an HTML page becomes its title). */
export function bodyExcerpt(response: HttpResponse, secret: string, max = 160): string {
  let text = response.text;
  if (looksLikeHtml(response)) {
    // A script never closed runs to the end, as in browsers: looking for its end again from every
    // later `<script` took minutes on a hostile page.
    text = pageTitle(text) ?? text.replace(/<(script|style)[\s\S]*?(?:<\/\1>|$)/gi, " ");
  }
  const line = hideKey(htmlToLine(text), secret);
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/**
 * Deeper than any search answer nests (a few levels); a hostile body of a million `[` took seconds
 * of JSON.parse, holding the thread where no deadline can fire.
 */
export const maxJsonDepth = 64;

/** Whether arrays and objects in `text` nest deeper than `max` (strings skipped, escapes honoured). */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** Parses a JSON body against its schema; failures say which field was wrong. */
export function readJson<T>(call: ProviderCall, response: HttpResponse, schema: z.ZodType<T>, what: string): T {
  // A byte-order mark is not JSON, but servers (and proxies in front of them) send one.
  const text = response.text.replace(/^\uFEFF/, "");
  if (text.trim() === "") {
    throw failWith(call, "parse", `${call.label} sent an empty ${what}.`, { status: response.status });
  }
  if (looksLikeHtml(response)) {
    throw failWith(call, "parse", `${call.label} sent a web page instead of JSON: “${bodyExcerpt(response, call.secret)}”.`, { status: response.status });
  }
  if (nestsDeeperThan(text, maxJsonDepth)) {
    throw failWith(call, "parse", `${call.label}'s ${what} nests deeper than ${maxJsonDepth} levels; it was not read.`, { status: response.status });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw failWith(call, "parse", `${call.label}'s ${what} is not valid JSON (${text.length} characters; it may have been cut off).`, { status: response.status });
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue.path.length > 0 ? issue.path.join(".") : "(top level)";
    const words = errorWords(raw);
    const said = words === undefined ? "" : `; it said “${quoted(words)}”`;
    throw failWith(call, "parse", `${call.label}'s ${what} has an unexpected shape at ${field}: ${issue.message}${said}.`, { status: response.status });
  }
  return parsed.data;
}

/**
 * An error's words in an answer of the wrong shape (`{ error }`, `{ message }`, `{ detail }`, or one of
 * those holding a `message`, `detail` or `error`): a service or a proxy in front of it that sends its
 * error with a 200 ("Unauthorized: missing or invalid API key") was said only to have sent an answer
 * with "an unexpected shape at results", and the user was not told what it said was wrong.
 */
function errorWords(raw: unknown): string | undefined {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return undefined;
  for (const key of ["error", "message", "detail"]) {
    let value = (raw as Record<string, unknown>)[key];
    if (typeof value === "object" && value !== null) {
      const inner = value as Record<string, unknown>;
      value = [inner.message, inner.detail, inner.error].find((v) => typeof v === "string");
    }
    if (typeof value === "string" && value.trim() !== "") return value;
  }
  return undefined;
}

/** Parses a body as JSON if it is JSON; error bodies are best-effort. */
export function tryJson(text: string): unknown {
  const body = text.replace(/^\uFEFF/, "");
  if (nestsDeeperThan(body, maxJsonDepth)) return undefined;
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

export function describeStatus(call: ProviderCall, response: HttpResponse, detail: string | undefined): string {
  const excerpt = detail ? hideKey(quoted(detail), call.secret) : bodyExcerpt(response, call.secret);
  return excerpt ? `${call.label} answered HTTP ${response.status}: ${excerpt}` : `${call.label} answered HTTP ${response.status}.`;
}

/** The kind for a status no provider-specific rule claimed. */
export function kindForStatus(status: number): ProviderErrorKind {
  if (status === 401 || status === 403) return "auth";
  if (status === 429) return "rate_limited";
  if (status === 404 || status === 405 || status === 501) return "unsupported";
  return "http";
}

/**
 * `detail`: what the server said of it, as an aside (`aside`) before the time to wait. A wait too
 * short to show (a Retry-After date already past, "0.0001") is "now": it read "try again in 0 s".
 */
export function rateLimitedMessage(label: string, waitMs: number | undefined, detail?: string): string {
  const when = waitMs === undefined ? "shortly" : waitMs < 50 ? "now" : `in ${seconds(waitMs)}`;
  return `${label} rate limit reached${aside(detail)}; try again ${when}.`;
}
