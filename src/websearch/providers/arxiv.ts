// arXiv (`GET https://export.arxiv.org/api/query`, an Atom feed): papers whose metadata matches
// every content word of the question, by relevance, with authors, primary category, journal
// reference and first publication date. The abstract is the text. Keyless; arXiv asks for one call
// every three seconds (source-limits.ts). Errors come back as a feed with one entry titled "Error".
import { PROVIDER_NAMES } from "../../provider-names";
import { asSentence } from "../../text/sentence-ends";
import type { HttpResponse } from "../../ports";
import { distinctByCanonicalUrl, displayDomain } from "../canonical-url";
import { freshnessWindow } from "../freshness-window";
import { keywordQuery } from "../keyword-query";
import { cutText, maxTitleChars, toPublishedDate } from "../plain-text";
import { bodyExcerpt, failWith, quoted, sendProviderRequest, type ProviderCall } from "../provider-http";
import { resolveSearchRequest, type ResolvedSearchRequest } from "../request-limits";
import type { Provider, ProviderContext, ProviderError, ProviderResponse, ProviderResult, SearchRequest, SourceSignal } from "../types";
import { parseAtomFeed, type AtomEntry, type AtomFeed } from "./atom-feed";
import { isSuccess, sourceCall, statusError, warnUnsupported } from "./source-call";

const label = PROVIDER_NAMES.arxiv.choice;
export const arxivApiUrl = "https://export.arxiv.org/api/query";

/** More words than this AND-ed together rarely match any paper. */
const maxTerms = 5;

export function createArxivProvider(): Provider {
  return {
    name: "arxiv",
    label,
    capabilities: { search: true, contents: false, freshness: true, domainFilters: false, highlights: false, fullText: true },
    search: searchArxiv,
  };
}

/** `all:crdt AND all:"y-websocket"`, plus a submission-date range when freshness asks for one. */
export function arxivSearchQuery(query: string, request: Pick<ResolvedSearchRequest, "freshness">, now: number): string {
  const terms = keywordQuery(query, maxTerms)
    .split(" ")
    .map((t) => t.replace(/["():[\]]/g, ""))
    .filter((t) => t !== "")
    .map((t) => (/^[\p{L}\p{N}]+$/u.test(t) ? `all:${t}` : `all:"${t}"`));
  const window = freshnessWindow(request.freshness, now);
  if (window) terms.push(`submittedDate:[${arxivDate(window.startMs)} TO ${arxivDate(window.endMs ?? now)}]`);
  return terms.join(" AND ");
}

function arxivDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16).replace(/[-T:]/g, "");
}

async function searchArxiv(input: SearchRequest, context: ProviderContext): Promise<ProviderResponse> {
  const { request, warnings } = resolveSearchRequest(input, context.settings);
  warnUnsupported(request, label, warnings, { freshness: true });
  const searchQuery = arxivSearchQuery(request.query, request, context.clock.now());
  const params = new URLSearchParams({ search_query: searchQuery, start: "0", max_results: String(request.count), sortBy: "relevance", sortOrder: "descending" });
  const call = sourceCall("arxiv", `${arxivApiUrl}?${params.toString()}`, request, { headers: { Accept: "application/atom+xml" } });

  const response = await sendProviderRequest(call, context);
  const feed = parseAtomFeed(response.text);
  const failure = feed ? errorEntry(feed.entries) : undefined;
  if (failure) throw failWith(call, "http", asSentence(`${label} refused the query: ${quoted(failure)}`), { status: response.status, reason: "refused" });
  if (!isSuccess(response)) throw arxivError(call, response, context.clock.now());
  if (!feed) throw notAFeed(call, response);
  if (!feed.complete) cutOff(call, response, feed, warnings);
  return { provider: "arxiv", endpoint: "api/query", query: searchQuery, results: toResults(feed.entries, request, context.clock.now(), warnings), warnings };
}

/**
 * A feed that never ends was cut off on its way: the papers before the cut are kept and the cut is
 * said; cut before its first paper ended, it is a failure. Read as it came, it was a search that
 * found nothing, or fewer papers than it found, with not a word of it.
 */
function cutOff(call: ProviderCall, response: HttpResponse, feed: AtomFeed, warnings: string[]): void {
  const read = feed.entries.length;
  if (read === 0) throw failWith(call, "parse", `${label}'s feed was cut off before its first paper ended (${response.text.length} characters); it could not be read.`, { status: response.status });
  warnings.push(`${label}'s feed was cut off; only ${read === 1 ? "the paper before the cut was" : `the ${read} papers before the cut were`} read`);
}

/** What came instead of a feed, quoted; an empty body said as empty, not as the quotes “”. */
function notAFeed(call: ProviderCall, response: HttpResponse): ProviderError {
  const excerpt = bodyExcerpt(response, "");
  const message = excerpt === "" ? `${label} sent an empty answer where an Atom feed was expected.` : `${label} did not send an Atom feed: “${excerpt}”.`;
  return failWith(call, "parse", message, { status: response.status });
}

/** arXiv's error feed: one entry titled "Error" whose id points into `/api/errors`. */
function errorEntry(entries: AtomEntry[]): string | undefined {
  const entry = entries.find((e) => e.title === "Error" && /\/api\/errors/.test(e.id));
  return entry ? entry.summary || "no reason given" : undefined;
}

function arxivError(call: ProviderCall, response: HttpResponse, now: number): ProviderError {
  // Overloaded, arXiv answers 503 "Rate exceeded." in plain text: a rate limit by another status.
  if (response.status === 503 && /rate exceeded/i.test(response.text)) {
    return statusError(call, { ...response, status: 429 }, now);
  }
  return statusError(call, response, now);
}

/** The paper's page without its version (`/abs/2202.12139`), the address other sources link to. */
export function arxivAbsUrl(entry: AtomEntry): string {
  const page = entry.links.find((l) => l.rel === "alternate")?.href ?? entry.id;
  return withoutVersion(page.replace(/^http:\/\//, "https://"));
}

/**
 * `…/abs/<id>v2` → `…/abs/<id>`, as `replace(/(\/abs\/.+?)v\d+$/, "$1")` does. As that pattern,
 * each `/abs/` of an address read on to its end (a megabyte of them in a hostile feed: a minute).
 * The version is the `v` before the digits that end it; the last `/abs/` before it decides.
 */
function withoutVersion(page: string): string {
  const version = /v\d+$/.exec(page);
  if (!version || version.index < 6) return page;
  const abs = page.lastIndexOf("/abs/", version.index - 6);
  return abs >= 0 && !/[\n\r\u2028\u2029]/.test(page.slice(abs + 5, version.index)) ? page.slice(0, version.index) : page;
}

function signalsOf(entry: AtomEntry): SourceSignal[] {
  const signals: SourceSignal[] = [];
  if (entry.authors.length > 0) signals.push({ kind: "authors", value: entry.authors });
  const category = entry.arxiv.primary_category ?? entry.categories[0];
  if (category) signals.push({ kind: "category", value: category });
  if (entry.arxiv.journal_ref) signals.push({ kind: "journal", value: entry.arxiv.journal_ref });
  return signals;
}

function toResults(entries: AtomEntry[], request: ResolvedSearchRequest, now: number, warnings: string[]): ProviderResult[] {
  const results: ProviderResult[] = [];
  const papers = entries.filter((e) => e.id !== "" && e.title !== "");
  if (papers.length < entries.length) warnings.push(`${entries.length - papers.length} entries without an id or title skipped`);
  for (const { item: entry, url, canonicalUrl, rank } of distinctByCanonicalUrl(papers, arxivAbsUrl, request.count, warnings)) {
    // The abstract is the snippet: one passage, not the same sentences twice as snippet and text.
    const abstract = cutText(entry.summary, request.maxContentChars);
    const publishedAt = toPublishedDate(entry.published ?? entry.updated, now);
    results.push({
      url,
      canonicalUrl,
      // Already plain text (atom-feed.ts decoded it): only cut, never read as HTML again.
      title: cutText(entry.title, maxTitleChars).text,
      domain: displayDomain(url),
      ...(entry.summary ? { snippet: abstract.text } : {}),
      highlights: [],
      ...(entry.authors.length > 0 ? { author: entry.authors.slice(0, 3).join(", ") + (entry.authors.length > 3 ? " et al." : "") } : {}),
      ...(publishedAt ? { publishedAt } : {}),
      rank,
      signals: signalsOf(entry),
    });
  }
  return results;
}
