// Fetching one web page and turning it into markdown, for promotion and for page reading alike.
// The fetch goes through the fetch guard (fetch-guard.ts) and the Http port (requestUrl in the
// plugin, fetch or replay in the CLI) with a timeout and a size cap; the text is decoded by the
// charset the page declares (page-charset.ts); Defuddle finds the main content. When any step
// cannot give readable text, the outcome says exactly why, so the note can fall back to the
// provider's excerpt and record that honestly.
import type { PageProblem } from "../notes/extract-status";
import { HttpFailure, type Http, type HttpResponse } from "../ports";
import { errorMessage } from "../text/error-message";
import { countWords } from "../text/word-count";
import { guardedGet, type FetchAnswered, type FetchGuardOptions, type FetchRefusal } from "./fetch-guard";
import { bodyStart, decodeBody, type DecodedPage } from "./page-charset";

/** What an extractor (Defuddle) made of a page. Every field is untrusted page text. */
export interface PageReading {
  title: string;
  author: string;
  /** As the page states it (ISO date, date-time or free text); "" when unknown. */
  published: string;
  description: string;
  site: string;
  language: string;
  /** Main content as markdown, before sanitising. */
  markdown: string;
  wordCount: number;
}

/**
 * Reads the main content of an HTML page. Injected because it needs a DOM, which core does not
 * have: `createDefuddleReader` over the browser's DOMParser in Obsidian, `nodePageReader`
 * (linkedom) in the CLI and tests.
 */
export type ReadPage = (html: string, url: string) => Promise<PageReading>;

/**
 * Defuddle's options, shared by every platform. `useAsync: false` keeps it from calling
 * third-party APIs (transcripts, oEmbed…) when a page has little text: promotion fetches the one
 * page the user chose and nothing else.
 */
export const DEFUDDLE_OPTIONS = { markdown: true, useAsync: false, removeImages: false } as const;

export type PageOutcome =
  | { kind: "extracted"; reading: PageReading; charset: string; warnings: string[] }
  | { kind: "pdf" }
  /** No text of the page's own; the note says why (`fallback_snippet:<problem>` or `link_only:<problem>`). */
  | { kind: "unusable"; problem: PageProblem; message: string }
  /** The fetch guard would not fetch the address (or a redirect's): nothing was asked of it. */
  | { kind: "refused"; refusal: FetchRefusal; message: string }
  | { kind: "cancelled" };

/** What a fetch brought back, before any extraction: page reading and promotion share it. */
export type FetchedPage =
  | { kind: "html"; decoded: DecodedPage; url: string; bytes: number }
  /** Plain text or markdown, read as it is. */
  | { kind: "text"; decoded: DecodedPage; mediaType: TextMediaType; url: string; bytes: number }
  | Exclude<PageOutcome, { kind: "extracted" }>;

/** Media types whose text is read as it is, without an HTML extractor. */
export const TEXT_MEDIA_TYPES = ["text/plain", "text/markdown", "text/x-markdown"] as const;
export type TextMediaType = (typeof TEXT_MEDIA_TYPES)[number];

export interface FetchPageOptions {
  /** Default 20 s. */
  timeoutMs?: number;
  /** Default 5 MB: a page bigger than this is not an article worth keeping whole. */
  maxBytes?: number;
  signal?: AbortSignal;
  /** How the fetch guard looks names up, and (tests only) origins it lets through. */
  guard?: FetchGuardOptions;
}

export const DEFAULT_PAGE_LIMITS = { timeoutMs: 20_000, maxBytes: 5 * 1024 * 1024 } as const;

const ACCEPT = "text/html,application/xhtml+xml;q=0.9,application/pdf;q=0.8,*/*;q=0.5";

/** A page has text of its own with this many words, or with one paragraph of `MIN_PARAGRAPH_WORDS`. */
const MIN_WORDS = 25;
/** A short article is still a page: one real paragraph is enough; an app shell's "Loading…" is not. */
const MIN_PARAGRAPH_WORDS = 8;

/** Promotion's read of a page: fetched through the guard, HTML through the extractor, anything else a reason. */
export async function fetchAndReadPage(url: string, http: Http, readPage: ReadPage, options: FetchPageOptions = {}): Promise<PageOutcome> {
  const fetched = await fetchPage(url, http, options);
  if (fetched.kind !== "html" && fetched.kind !== "text") return fetched;
  const away = redirectedAway(url, fetched.url);
  if (away !== null) return unusable({ kind: "no_readable_text" }, away);
  if (fetched.kind === "text") return unusable({ kind: "not_html" }, notHtmlMessage(fetched.mediaType));
  return readPageHtml(fetched.decoded, fetched.url, readPage);
}

/** A path part that names a sign-in step: `/login`, `/users/sign_in`, Google's `/ServiceLogin`. */
const SIGN_IN_PART = /^(log-?in|log-?on|sign-?in|sign_in|auth|authenticate|authorize|oauth2?|sso|sessions?|servicelogin)$/i;
/** A host that exists to sign people in: `login.example.com`, `accounts.google.com`. */
const SIGN_IN_HOST = /^(login|signin|accounts?|auth|sso|id)\./i;

/**
 * Why the page the address now leads to is not the one the run found, or null. An old result's page
 * is often gone and its address sends every visitor to the site's front page, or behind a sign-in
 * or paywall to a login page: that page has words enough, and kept as the article it would name
 * the note "Sign in" and hold the login form's text. Only sign-in steps and the front page count;
 * a page that moved (another path, `https`, `www.`, a slash) is still the page. Page reading in a
 * run asks it too: a login form's words are no passage of the page a result named.
 */
export function redirectedAway(asked: string, reached: string): string | null {
  let from: URL;
  let to: URL;
  try {
    from = new URL(asked);
    to = new URL(reached);
  } catch {
    return null;
  }
  const parts = (u: URL) => u.pathname.split("/").filter((part) => part !== "");
  const before = parts(from);
  const after = parts(to);
  if (before.join("/") === after.join("/") && from.hostname === to.hostname) return null;
  const shown = `${to.origin}${to.pathname}`;
  const newHost = to.hostname !== from.hostname && to.hostname !== `www.${from.hostname}` && from.hostname !== `www.${to.hostname}`;
  const newParts = after.filter((part) => !before.includes(part));
  if (newParts.some((part) => SIGN_IN_PART.test(part)) || (newHost && SIGN_IN_HOST.test(to.hostname))) {
    return `The address now leads to a sign-in page (${shown}), not to the page itself.`;
  }
  if (after.length === 0 && before.length > 0) return `The address now leads to the site's front page (${shown}); the page itself seems to be gone.`;
  return null;
}

/** One guarded GET, its status, size and kind checked, its text decoded by the charset it declares. */
export async function fetchPage(url: string, http: Http, options: FetchPageOptions = {}): Promise<FetchedPage> {
  const maxBytes = options.maxBytes ?? DEFAULT_PAGE_LIMITS.maxBytes;
  const got = await getPage(url, http, { ...options, maxBytes });
  if (got.kind !== "answered") return got;
  const { response } = got;

  if (response.status < 200 || response.status >= 300) {
    return unusable({ kind: "http_error", status: response.status }, `The page answered ${response.status}${statusText(response.status)}.`);
  }
  const declaredLength = Number(response.headers["content-length"]);
  const size = Math.max(Number.isFinite(declaredLength) ? declaredLength : 0, response.bytes?.byteLength ?? utf8Length(response.text));
  if (size > maxBytes) return unusable({ kind: "too_large" }, `The page is ${formatBytes(size)}, more than the ${formatBytes(maxBytes)} promotion reads.`);

  const type = contentKind(response, got.url);
  if (type === "pdf") return { kind: "pdf" };
  if (type === "html") return { kind: "html", decoded: decodeBody(response), url: got.url, bytes: size };
  const textType = TEXT_MEDIA_TYPES.find((t) => t === type);
  if (textType) return { kind: "text", decoded: decodeBody(response), mediaType: textType, url: got.url, bytes: size };
  return unusable({ kind: "not_html" }, notHtmlMessage(type));
}

function notHtmlMessage(type: string): string {
  return `The page is ${type}, not HTML; only the provider's excerpt was kept.`;
}

/** The GET through the fetch guard; a failure of the request (not an error status) is already an outcome. */
async function getPage(url: string, http: Http, options: FetchPageOptions & { maxBytes: number }): Promise<FetchAnswered | FetchedPage> {
  try {
    const got = await guardedGet(
      { url, accept: ACCEPT, timeoutMs: options.timeoutMs ?? DEFAULT_PAGE_LIMITS.timeoutMs, maxBytes: options.maxBytes, ...(options.signal ? { signal: options.signal } : {}) },
      http,
      options.guard,
    );
    return got.kind === "refused" ? { kind: "refused", refusal: got.refusal, message: got.message } : got;
  } catch (error) {
    if (!(error instanceof HttpFailure)) return unusable({ kind: "network" }, errorMessage(error));
    const kind = error.kind;
    return kind === "aborted" ? { kind: "cancelled" } : unusable({ kind }, error.message);
  }
}

/** Defuddle over the decoded page; without a paragraph of its own it is an app shell or an error page. */
export async function readPageHtml(decoded: DecodedPage, url: string, readPage: ReadPage): Promise<PageOutcome> {
  let reading: PageReading;
  try {
    reading = await readPage(decoded.html, url);
  } catch (error) {
    return unusable({ kind: "extract_failed" }, `The page could not be read (${errorMessage(error)}).`);
  }
  if (!hasTextOfItsOwn(reading)) {
    return unusable(
      { kind: "no_readable_text" },
      `The page has almost no text of its own (${reading.wordCount} words); it may need JavaScript to show its content.`,
    );
  }
  return { kind: "extracted", reading, charset: decoded.charset, warnings: decoded.warnings };
}

function hasTextOfItsOwn(reading: PageReading): boolean {
  if (reading.markdown.trim() === "") return false;
  if (reading.wordCount >= MIN_WORDS) return true;
  return reading.markdown.split(/\n\s*\n/).some((paragraph) => countWords(paragraph) >= MIN_PARAGRAPH_WORDS);
}

function unusable(problem: PageProblem, message: string): Exclude<PageOutcome, { kind: "extracted" }> {
  return { kind: "unusable", problem, message };
}

// ── content type ─────────────────────────────────────────────────────────────────────────────────

/** "html", "pdf", or the media type that is neither. */
function contentKind(response: HttpResponse, url: string): string {
  const type = (response.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase();
  const head = bodyStart(response, 512);
  if (type === "application/pdf" || head.startsWith("%PDF-")) return "pdf";
  if (type === "text/html" || type === "application/xhtml+xml") return "html";
  if (type === "" || type === "application/octet-stream") {
    if (/^\s*(<!doctype html|<html|<head|<body)/i.test(head)) return "html";
    if (/\.pdf$/i.test(safePath(url))) return "pdf";
  }
  return type || "of unknown type";
}

function utf8Length(text: string): number {
  return new TextEncoder().encode(text).byteLength;
}

function safePath(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return "";
  }
}

const STATUS_TEXT: Record<number, string> = {
  401: "Unauthorized",
  402: "Payment Required",
  403: "Forbidden",
  404: "Not Found",
  410: "Gone",
  429: "Too Many Requests",
  451: "Unavailable For Legal Reasons",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
};

function statusText(status: number): string {
  const text = STATUS_TEXT[status];
  return text ? ` ${text}` : "";
}

function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${(n / (1024 * 1024)).toFixed(1)} MB`;
  if (n >= 1024) return `${Math.round(n / 1024)} KB`;
  return `${n} bytes`;
}
