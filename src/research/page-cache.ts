// Pages a run read, kept in memory for a while so that a follow-up question does not fetch them
// again: 30 minutes, at most 40 pages, the least recently used dropped first. Keyed by the page's
// canonical URL; only pages that gave text are kept (a failure is tried again next time). The
// plugin keeps one cache for the session, beside the web search cache; the CLI one per process.
import type { Clock } from "../ports";

/** What a page gave: its extracted text (markdown for HTML, as sent for plain text) and properties. */
export interface ExtractedPage {
  /** Where the text finally came from, after redirects. */
  url: string;
  kind: "html" | "text";
  title: string;
  author: string;
  published: string;
  /** The text passages are cut from; their offsets point into it. */
  text: string;
  /** Size of the body as received. */
  bytes: number;
  charset: string;
  /** What was odd about the page (a charset that could not be decoded…). */
  warnings: string[];
}

export interface PageCacheOptions {
  /** Default 30 minutes. */
  ttlMs?: number;
  /** Default 40 pages. */
  maxPages?: number;
}

export const PAGE_CACHE_DEFAULTS = { ttlMs: 30 * 60_000, maxPages: 40 } as const;

export class PageCache {
  private readonly pages = new Map<string, { page: ExtractedPage; at: number }>();
  private readonly ttlMs: number;
  private readonly maxPages: number;
  /** Lookups answered from the cache, and not, since it was made. */
  hits = 0;
  misses = 0;

  constructor(
    private readonly clock: Pick<Clock, "now">,
    options: PageCacheOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? PAGE_CACHE_DEFAULTS.ttlMs;
    this.maxPages = Math.max(1, options.maxPages ?? PAGE_CACHE_DEFAULTS.maxPages);
  }

  get(canonicalUrl: string): ExtractedPage | null {
    const entry = this.pages.get(canonicalUrl);
    const age = entry ? this.clock.now() - entry.at : Number.NaN;
    // A page kept "in the future" (the clock was set back) has an unknown age: read it again, or it
    // would stay fresh for as long as the clock went back, on top of its 30 minutes.
    if (entry && age >= 0 && age <= this.ttlMs) {
      // Re-inserted, so the Map's order stays least recently used first.
      this.pages.delete(canonicalUrl);
      this.pages.set(canonicalUrl, entry);
      this.hits++;
      return entry.page;
    }
    if (entry) this.pages.delete(canonicalUrl);
    this.misses++;
    return null;
  }

  set(canonicalUrl: string, page: ExtractedPage): void {
    this.pages.delete(canonicalUrl);
    this.pages.set(canonicalUrl, { page, at: this.clock.now() });
    while (this.pages.size > this.maxPages) this.pages.delete(this.pages.keys().next().value!);
  }

  get size(): number {
    return this.pages.size;
  }
}
