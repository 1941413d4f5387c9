// Fetching one web page and turning it into markdown, for promotion and for page reading alike.
// The fetch goes through the fetch guard (fetch-guard.ts) and the Http port (requestUrl in the
// plugin, fetch or replay in the CLI) with a timeout and a size cap; the text is decoded by the
// charset the page declares (page-charset.ts); Defuddle finds the main content. When any step
// cannot give readable text, the outcome says exactly why, so the note can fall back to the
// provider's excerpt and record that honestly.
import type { PageProblem, RedirectTarget } from "../notes/extract-status";
import { HttpFailure, type Http, type HttpResponse } from "../ports";
import { errorMessage } from "../text/error-message";
import { countWords } from "../text/word-count";
import { guardedGet, type FetchAnswered, type FetchGuardOptions, type FetchRefusal } from "./fetch-guard";
import { bodyStart, decodeBody, type DecodedPage } from "./page-charset";
import { checkMarkupDepth } from "./page-depth";

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
  if (away !== null) return unusable({ kind: "redirected", to: away.to }, away.message);
  if (fetched.kind === "text") return unusable({ kind: "not_html" }, notHtmlMessage(fetched.mediaType));
  const outcome = await readPageHtml(fetched.decoded, fetched.url, readPage);
  const moved = movedToAnotherSite(url, fetched.url);
  return outcome.kind === "extracted" && moved !== null ? { ...outcome, warnings: [...outcome.warnings, moved] } : outcome;
}

/** A path part that names a sign-in step: `/login`, `/users/sign_in`, Google's `/ServiceLogin`. */
const SIGN_IN_PART = /^(log-?in|log-?on|sign-?in|sign_in|auth|authenticate|authorize|oauth2?|sso|sessions?|servicelogin)$/i;
/** A host that exists to sign people in: `login.example.com`, `accounts.google.com`. */
const SIGN_IN_HOST = /^(login|signin|accounts?|auth|sso|id)\./i;
/** A path part that names a "not found" page: `/404`, `/404.html`, `/page-not-found`. */
const NOT_FOUND_PART = /^(404|410|error-?404|not-?found|not_found|page-?not-?found|page_not_found)(\.(html?|php|aspx?))?$/i;
/** A path that is still the front page: `/index.html`, `/home`, `/default.aspx`. */
const FRONT_PAGE_PART = /^(index|default|home)(\.(html?|php|aspx?|jsp))?$/i;

/** Where an address led instead of its page, and that in words. */
export interface RedirectedAway {
  to: RedirectTarget;
  message: string;
}

/**
 * Why the page the address now leads to is not the one the run found, or null. An old result's page
 * is often gone and its address sends every visitor to the site's front page or a "not found"
 * page, or behind a sign-in or paywall to a login page: that page has words enough, and kept as the
 * article it would name the note "Sign in" and hold the login form's text. Only these count; a
 * page that moved (another path, `https`, `www.`, a slash, another site) is still the page. Page
 * reading in a run asks it too: a login form's words are no passage of the page a result named.
 */
export function redirectedAway(asked: string, reached: string): RedirectedAway | null {
  const from = parsedUrl(asked);
  const to = parsedUrl(reached);
  if (from === null || to === null) return null;
  const parts = (u: URL) => u.pathname.split("/").filter((part) => part !== "");
  const before = parts(from);
  const after = parts(to);
  if (before.join("/") === after.join("/") && from.hostname === to.hostname) return null;
  const shown = `${to.origin}${to.pathname}`;
  const newHost = !sameSite(from, to);
  const newParts = after.filter((part) => !before.includes(part));
  if (newParts.some((part) => SIGN_IN_PART.test(part)) || (newHost && SIGN_IN_HOST.test(to.hostname))) {
    return { to: "sign_in_page", message: `The address now leads to a sign-in page (${shown}), not to the page itself.` };
  }
  if (newParts.some((part) => NOT_FOUND_PART.test(part))) {
    return { to: "not_found_page", message: `The address now leads to a "not found" page (${shown}); the page itself seems to be gone.` };
  }
  const isFrontPage = (path: string[]) => path.length === 0 || (path.length === 1 && FRONT_PAGE_PART.test(path[0]));
  if (isFrontPage(after) && !isFrontPage(before)) {
    return { to: "front_page", message: `The address now leads to the site's front page (${shown}); the page itself seems to be gone.` };
  }
  return null;
}

/**
 * A warning when the text came from another site than the address named (a DOI's publisher, a
 * domain that moved): still the page, but the note or the trace should say whose text it is.
 */
export function movedToAnotherSite(asked: string, reached: string): string | null {
  const from = parsedUrl(asked);
  const to = parsedUrl(reached);
  if (from === null || to === null || sameSite(from, to)) return null;
  return `The address led to another site (${to.origin}${to.pathname}); the text is that page's.`;
}

/** The same host, with or without `www.`. */
function sameSite(a: URL, b: URL): boolean {
  return a.hostname === b.hostname || a.hostname === `www.${b.hostname}` || b.hostname === `www.${a.hostname}`;
}

function parsedUrl(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
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
  const start = bodyStart(response, SNIFF_BYTES);
  const textType = TEXT_MEDIA_TYPES.find((t) => t === type);
  if (type !== "html" && !textType) return unusable({ kind: "not_html" }, notHtmlMessage(signatureKind(start) ?? type));
  const decoded = decodeBody(response);
  const binary = signatureKind(start) ?? (hasBinaryData(decoded.html) ? "binary data" : null);
  if (binary !== null) return unusable({ kind: "not_html" }, notHtmlMessage(binary));
  return textType ? { kind: "text", decoded, mediaType: textType, url: got.url, bytes: size } : { kind: "html", decoded, url: got.url, bytes: size };
}

/**
 * What happened, not what is kept: promotion says what its note keeps (the excerpt, or only the
 * link) and page reading what it uses. Saying "only the provider's excerpt was kept" here, a note
 * with no excerpt read "…only the provider's excerpt was kept. Only the link was kept."
 */
function notHtmlMessage(type: string): string {
  return `The page is ${type}, not HTML.`;
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
    if (kind === "aborted") return { kind: "cancelled" };
    // A `redirect` failure is a site that kept redirecting — past the guard's five hops, or requestUrl's
    // loop (mobile, which follows them itself): the site was reached, so it is no `network` problem
    // ("the page could not be reached"), and every platform says it alike.
    return unusable({ kind: kind === "redirect" ? "redirect_loop" : kind }, error.message);
  }
}

/** Defuddle over the decoded page; without a paragraph of its own it is an app shell or an error page. */
export async function readPageHtml(decoded: DecodedPage, url: string, readPage: ReadPage): Promise<PageOutcome> {
  let reading: PageReading;
  try {
    // Before any parser sees it: parsing markup nested a hundred thousand deep held the CLI for seconds.
    checkMarkupDepth(decoded.html);
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

/** Bytes of a body read to tell what it is (the MIME Sniffing standard reads as many). */
const SNIFF_BYTES = 512;

/** First bytes of formats a server may send under any content type, and what they are. */
const BINARY_SIGNATURES: ReadonlyArray<readonly [string, string]> = [
  ["\x89PNG\r\n\x1a\n", "an image (PNG)"],
  ["\xff\xd8\xff", "an image (JPEG)"],
  ["GIF87a", "an image (GIF)"],
  ["GIF89a", "an image (GIF)"],
  ["\x00\x00\x01\x00", "an icon"],
  ["PK\x03\x04", "a ZIP archive"],
  ["\x1f\x8b\x08", "a gzip archive"],
  ["\x1aE\xdf\xa3", "a video (WebM)"],
  ["OggS\x00", "audio or video (Ogg)"],
];

/** What the body's first bytes (`bodyStart`) say it is, when they are a known binary format; else null. */
function signatureKind(start: string): string | null {
  const named = BINARY_SIGNATURES.find(([signature]) => start.startsWith(signature));
  if (named) return named[1];
  return start.startsWith("RIFF") && start.slice(8, 12) === "WEBP" ? "an image (WebP)" : null;
}

/**
 * Whether a body sent as HTML or text is binary. An image or an archive served as text/html (a
 * misconfigured server, an address that now serves a file) was read as a page: Defuddle made
 * hundreds of "words" of its bytes and the note kept them as the page's text. A page never starts
 * with the control characters the MIME Sniffing standard calls binary data, in the encoding it was
 * rightly read in (UTF-16's zero bytes are gone once it is read as UTF-16), so the decoded start is looked at.
 */
function hasBinaryData(decoded: string): boolean {
  const head = decoded.slice(0, SNIFF_BYTES);
  for (let i = 0; i < head.length; i++) if (isBinaryDataByte(head.charCodeAt(i))) return true;
  return false;
}

/** The standard's binary data bytes: C0 controls but tab, line feed, form feed, carriage return and escape. */
function isBinaryDataByte(code: number): boolean {
  return code <= 0x08 || code === 0x0b || (code >= 0x0e && code <= 0x1a) || (code >= 0x1c && code <= 0x1f);
}

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
