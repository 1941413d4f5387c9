// One outside page read for the run: from the page cache, else fetched the way promotion fetches
// (promote/page-extract.ts: the one fetch guard, a size cap before anything is parsed, the
// declared charset) and extracted by the same Defuddle reader — so a page read here and promoted
// later gives the same text. Plain text and markdown are read as they are; a PDF or any other
// kind is skipped with its reason. All of it runs under a per-page time limit.
import { DeadlineMissed, withDeadline } from "../../deadline";
import type { PageProblem } from "../../notes/extract-status";
import type { FetchGuardOptions, FetchRefusal } from "../../promote/fetch-guard";
import { fetchPage, movedToAnotherSite, readPageHtml, redirectedAway, type FetchedPage, type ReadPage } from "../../promote/page-extract";
import type { Clock, Http } from "../../ports";
import { canonicalizeUrl } from "../../websearch/canonical-url";
import type { ExtractedPage, PageCache } from "../page-cache";

/** Bounds of page reading, whatever the settings say. */
export const PAGE_READ_LIMITS = {
  /** Pages per run (settings and `--read-pages` give 0–5). */
  maxPages: 5,
  /** Pages fetched at the same time. */
  concurrency: 4,
  /** One page: its fetch, its redirects and its extraction. */
  pageMs: 10_000,
  /** The stage as a whole (pages run concurrently, so this is a guard against a hang). */
  stageMs: 30_000,
  /** A body larger than this is not read at all (checked before parsing). */
  maxBytes: 2 * 1024 * 1024,
  /** Extracted text kept of one page for passages. */
  maxTextChars: 400_000,
} as const;

/** Why a page chosen for reading gave no text. */
export type PageSkipReason =
  | { kind: "refused"; refusal: FetchRefusal }
  | { kind: "unusable"; problem: PageProblem }
  | { kind: "pdf" }
  | { kind: "time_limit"; ms: number }
  | { kind: "cancelled" };

export type PageText =
  | { kind: "read"; page: ExtractedPage; cached: boolean }
  /** `at`: whether the fetch or the extraction gave up; `bytes` when a body had arrived. */
  | { kind: "skipped"; reason: PageSkipReason; message: string; at: "fetch" | "extract"; bytes?: number };

export interface PageFetchDeps {
  http: Http;
  clock: Pick<Clock, "sleep">;
  readPage: ReadPage;
  guard?: FetchGuardOptions;
  cache: PageCache;
  signal?: AbortSignal;
}

export async function readPageText(url: string, deps: PageFetchDeps): Promise<PageText> {
  const key = canonicalizeUrl(url) ?? url;
  const cached = deps.cache.get(key);
  if (cached) return { kind: "read", page: cached, cached: true };
  // Stopped already (the fetch below would be sent before the wait for it notices): nothing leaves.
  if (deps.signal?.aborted) return skipped({ kind: "cancelled" }, "The run was cancelled before the page was read.", "fetch");
  // The page's own signal: the time limit stops its transfer too, not only the wait for it.
  const controller = new AbortController();
  const cancel = (): void => controller.abort();
  deps.signal?.addEventListener("abort", cancel, { once: true });
  try {
    const read = await withDeadline(fetchAndExtract(url, deps, controller.signal), { clock: deps.clock, ms: PAGE_READ_LIMITS.pageMs, ...(deps.signal ? { signal: deps.signal } : {}) });
    if (read.kind === "read") deps.cache.set(key, read.page);
    return read;
  } catch (error) {
    controller.abort();
    if (!(error instanceof DeadlineMissed)) throw error;
    return error.kind === "timeout"
      ? skipped({ kind: "time_limit", ms: PAGE_READ_LIMITS.pageMs }, `The page was not read within ${PAGE_READ_LIMITS.pageMs / 1000} s.`, "fetch")
      : skipped({ kind: "cancelled" }, "The run was cancelled before the page was read.", "fetch");
  } finally {
    deps.signal?.removeEventListener("abort", cancel);
  }
}

async function fetchAndExtract(url: string, deps: PageFetchDeps, signal: AbortSignal): Promise<PageText> {
  const fetched = await fetchPage(url, deps.http, { timeoutMs: PAGE_READ_LIMITS.pageMs, maxBytes: PAGE_READ_LIMITS.maxBytes, signal, ...(deps.guard ? { guard: deps.guard } : {}) });
  if (fetched.kind !== "html" && fetched.kind !== "text") return skippedFetch(fetched);
  // Sent on to a sign-in, "not found" or front page: not the page the result named.
  const away = redirectedAway(url, fetched.url);
  if (away !== null) return { ...skipped({ kind: "unusable", problem: { kind: "redirected", to: away.to } }, away.message, "extract"), bytes: fetched.bytes };
  const moved = movedToAnotherSite(url, fetched.url);
  const warnings = (own: string[]) => (moved === null ? own : [...own, moved]);
  if (fetched.kind === "text") {
    const { decoded } = fetched;
    return read({ url: fetched.url, kind: "text", title: "", author: "", published: "", text: decoded.html, bytes: fetched.bytes, charset: decoded.charset, warnings: warnings(decoded.warnings) });
  }
  const outcome = await readPageHtml(fetched.decoded, fetched.url, deps.readPage);
  if (outcome.kind === "unusable") return { ...skipped({ kind: "unusable", problem: outcome.problem }, outcome.message, "extract"), bytes: fetched.bytes };
  if (outcome.kind !== "extracted") return skipped({ kind: "cancelled" }, "The page could not be read.", "extract");
  const { reading } = outcome;
  return read({ url: fetched.url, kind: "html", title: reading.title, author: reading.author, published: reading.published, text: reading.markdown, bytes: fetched.bytes, charset: outcome.charset, warnings: warnings(outcome.warnings) });
}

function read(page: ExtractedPage): PageText {
  return { kind: "read", page: { ...page, text: page.text.slice(0, PAGE_READ_LIMITS.maxTextChars) }, cached: false };
}

function skippedFetch(fetched: Exclude<FetchedPage, { kind: "html" | "text" }>): PageText {
  switch (fetched.kind) {
    case "pdf":
      return skipped({ kind: "pdf" }, "The page is a PDF; page reading does not extract PDFs.", "fetch");
    case "refused":
      return skipped({ kind: "refused", refusal: fetched.refusal }, fetched.message, "fetch");
    case "cancelled":
      return skipped({ kind: "cancelled" }, "The run was cancelled before the page was read.", "fetch");
    case "unusable":
      return skipped({ kind: "unusable", problem: fetched.problem }, unusableMessage(fetched.problem, fetched.message), "fetch");
  }
}

/** Promotion's words, where they speak of promotion, said for page reading. */
function unusableMessage(problem: PageProblem, message: string): string {
  if (problem.kind === "too_large") return `The page is larger than the ${PAGE_READ_LIMITS.maxBytes / (1024 * 1024)} MB page reading takes; it was not parsed.`;
  // The replay's own message names its folder and the URL, both already known where this is shown.
  if (problem.kind === "replay_miss") return "The replay recordings hold no copy of this page.";
  return message;
}

function skipped(reason: PageSkipReason, message: string, at: "fetch" | "extract"): Extract<PageText, { kind: "skipped" }> {
  return { kind: "skipped", reason, message, at };
}
