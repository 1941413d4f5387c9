// Page reading: most outside results arrive as a sentence or two, and the answer is usually
// further down the page. For the top N outside rows whose provider sent no page text of its own
// (N from the request or settings, 0–5, default 3; 0 turns it off), the run reads the page
// (page-fetch.ts: the one fetch guard, a per-page time limit, at most four at a time), cuts it
// into passages and keeps the best that fit the row's share of the outside-text budget
// (page-passages.ts), as `external_text` sections marked `fetched` with their offsets. Rows that
// duplicate a vault note were folded into it before this stage and are never fetched. It is still
// one run, still ephemeral: nothing is written to the vault; the page cache is memory.
import { DeadlineMissed, withDeadline } from "../../deadline";
import type { ContentSection, OutsideVaultRow } from "../../evidence/research-pack";
import type { ReadPage } from "../../promote/page-extract";
import { canonicalizeUrl } from "../../websearch/canonical-url";
import { PageCache } from "../page-cache";
import { workTimeLeft } from "../run-limits";
import type { RunState } from "../run-state";
import { RunStopped, StageTimedOut } from "../stage-runner";
import { PAGE_READ_LIMITS, readPageText, type PageFetchDeps, type PageSkipReason, type PageText } from "./page-fetch";
import { fuseBySimilarity, rankPagePassages, selectPassages, type ScoredPassage } from "./page-passages";
import { passageMeaning, type PassageMeaning } from "./passage-meaning";
import { PAGE_SUMMARY_CHARS, summarisePage } from "./page-summary";
import { DEFAULT_MAX_ROW_CHARS } from "./synthesis-prompt";

/** What became of one page the run chose to read: the run's result and `--json` carry these. */
export interface PageRead {
  source_key: string;
  url: string;
  /** `read`: fetched now; `cached`: from the page cache; `skipped`: no text, see `reason`. */
  status: "read" | "cached" | "skipped";
  reason?: PageSkipReason;
  /** The reason in words. */
  message?: string;
  kind?: "html" | "text";
  bytes?: number;
  /** Passages the page was cut into, and kept. */
  passages_found: number;
  passages_kept: number;
  /** Characters of passage text kept, and the page's share of the outside-text budget. */
  chars: number;
  budget_chars: number;
  /** A model summary was added beside the passages. */
  summarised?: boolean;
  ms: number;
}

/** Provider answers whose results already are passages of their pages (Brave LLM Context). */
const ANSWERS_WITH_PAGE_TEXT: ReadonlySet<string> = new Set(["brave llm/context"]);

export function answerCarriesPageText(provider: string, endpoint: string): boolean {
  return ANSWERS_WITH_PAGE_TEXT.has(`${provider} ${endpoint}`);
}

/** Text room kept in a row's prompt block for its label, fence and metadata lines. */
const PROMPT_ROW_OVERHEAD = 500;
/** At most this much passage text per page, whatever the budget allows. */
const MAX_PASSAGE_CHARS = 2400;
/** The token budget is counted at four characters a token, as for provider text. */
const CHARS_PER_TOKEN = 4;
/**
 * Of the stage's limit, the time kept back at its end: the embedding of passages and the model's
 * summaries give up before the stage's limit would throw every page's passages and reads away.
 */
const STAGE_END_MARGIN_MS = 2000;

type ReadingPlan = { kind: "off"; why: string } | { kind: "read"; rows: OutsideVaultRow[]; readPage: ReadPage };

/** How many pages this run reads: the request's number, else the settings', within 0–5. */
export function pagesWanted(run: Pick<RunState, "request" | "deps">): number {
  const wanted = run.request.readPages ?? run.deps.settings.external.readPages;
  return Math.max(0, Math.min(PAGE_READ_LIMITS.maxPages, Math.floor(wanted)));
}

/** Reads the chosen pages and adds their best passages to the rows; never ends the run. */
export async function readPagesStage(run: RunState): Promise<void> {
  const plan = planReading(run);
  if (plan.kind === "off") {
    run.stages.progress("read_pages", "skipped", plan.why);
    run.recorder.event("read_pages", { skipped: plan.why });
    return;
  }
  let reads: PageRead[] = [];
  try {
    run.pageReads = await run.stages.run({
      name: "read_pages",
      start: `Reading ${plan.rows.length} outside page${plan.rows.length === 1 ? "" : "s"}`,
      limitMs: PAGE_READ_LIMITS.stageMs,
      work: async (signal) => {
        reads = await readChosenPages(run, plan.rows, plan.readPage, signal);
        // Handed back within the cancel's grace, the reads are what the stage had: it ends stopped, not done.
        if (signal.aborted) run.stages.checkStop();
        return reads;
      },
      done: describeReads,
      outcome: (reads) => (reads.some((r) => r.status === "skipped") ? "partial" : "done"),
    });
  } catch (error) {
    // Stopped: the pages read before the stop stay with the run, as their passages stay with their rows.
    if (error instanceof RunStopped && error.kind === "cancelled") run.pageReads = reads;
    // The snippets are still there: a stage that ran out of time costs the passages, not the run.
    if (!(error instanceof StageTimedOut)) throw error;
    run.recorder.error("read_pages", "timeout", error.message);
  }
}

function planReading(run: RunState): ReadingPlan {
  const wanted = pagesWanted(run);
  if (wanted === 0) return { kind: "off", why: "Page reading is off" };
  const readPage = run.deps.readPage;
  if (!readPage) return { kind: "off", why: "Pages are not read here (no page reader)" };
  const rows = run.outsideRows.filter((row) => !carriesPageText(run, row)).slice(0, wanted);
  if (rows.length === 0) return { kind: "off", why: "Every outside row came with page text from its provider" };
  return { kind: "read", rows, readPage };
}

function carriesPageText(run: RunState, row: OutsideVaultRow): boolean {
  if (row.content_sections.some((s) => s.role === "external_text")) return true;
  return run.external.withPageText.has(canonicalizeUrl(row.url) ?? row.url);
}

async function readChosenPages(run: RunState, rows: OutsideVaultRow[], readPage: ReadPage, signal: AbortSignal): Promise<PageRead[]> {
  const { deps } = run;
  const fetchDeps: PageFetchDeps = { http: deps.http, clock: deps.clock, readPage, cache: deps.pageCache ?? new PageCache(deps.clock), signal, ...(deps.fetchGuard ? { guard: deps.fetchGuard } : {}) };
  const budgetOf = passageBudget(run, rows.length);
  const timeLeft = workTimeLeft(run.recorder, PAGE_READ_LIMITS.stageMs - STAGE_END_MARGIN_MS);
  return mapWithLimit(rows, PAGE_READ_LIMITS.concurrency, (row, i) => readRowPage(run, row, { fetchDeps, budgetChars: budgetOf(row), position: `${i + 1} of ${rows.length}`, timeLeft }));
}

/** Each page's share of what the outside-text budget has left, and of its row's room in the prompt. */
function passageBudget(run: RunState, pages: number): (row: OutsideVaultRow) => number {
  const { external } = run.deps.settings;
  const used = run.outsideRows.reduce((n, row) => n + textChars(row), 0);
  const share = Math.floor(Math.max(0, external.tokenBudget * CHARS_PER_TOKEN - used) / Math.max(1, pages));
  const summary = external.summarizePages && run.deps.model ? PAGE_SUMMARY_CHARS : 0;
  return (row) => Math.max(0, Math.min(MAX_PASSAGE_CHARS, share, DEFAULT_MAX_ROW_CHARS - PROMPT_ROW_OVERHEAD - summary - textChars(row)));
}

function textChars(row: OutsideVaultRow): number {
  return row.content_sections.reduce((n, s) => n + s.text.length, 0);
}

interface RowReading {
  fetchDeps: PageFetchDeps;
  budgetChars: number;
  /** "1 of 3", for progress. */
  position: string;
  /** The time left (ms) to the slow work on a read page: its meaning, its summary. */
  timeLeft: () => number;
}

async function readRowPage(run: RunState, row: OutsideVaultRow, reading: RowReading): Promise<PageRead> {
  const started = run.recorder.elapsed();
  run.stages.progress("read_pages", "started", `Reading ${row.domain} (${reading.position})`);
  const text = await readPageText(row.url, reading.fetchDeps);
  const ms = run.recorder.elapsed() - started;
  if (text.kind === "skipped") return skippedPage(run, row, text, reading.budgetChars, ms);
  recordRead(run, row, text, ms);
  const ranked = rankPagePassages(text.page.text, run.plan, { stemming: run.deps.settings.index.stemming });
  const meaning = await meaningInTime(run, ranked, reading);
  const chosen = { kept: selectPassages(meaning.kind === "ok" ? fuseBySimilarity(ranked, meaning.similarity) : ranked, reading.budgetChars), found: ranked.length };
  attachPassages(row, chosen.kept);
  const summarised = chosen.kept.length > 0 && (await addSummary(run, row, chosen.kept, reading));
  const chars = chosen.kept.reduce((n, p) => n + p.text.length, 0);
  run.recorder.event("passages_selected", {
    key: row.source_key,
    found: chosen.found,
    kept: chosen.kept.length,
    chars,
    budget_chars: reading.budgetChars,
    offsets: chosen.kept.map((p) => [p.start, p.end]),
    ...meaningData(meaning),
    ...(summarised ? { summary: true } : {}),
  });
  const detail = `${row.domain}: ${chosen.kept.length} passage${chosen.kept.length === 1 ? "" : "s"}${text.cached ? " (cached)" : ""}`;
  run.stages.progress("read_pages", "started", `Read ${detail}`);
  const read: PageRead = { source_key: row.source_key, url: row.url, status: text.cached ? "cached" : "read", kind: text.page.kind, bytes: text.page.bytes, passages_found: chosen.found, passages_kept: chosen.kept.length, chars, budget_chars: reading.budgetChars, ms };
  return summarised ? { ...read, summarised } : read;
}

// A page event's facts in the order a reader needs them, as the trace note's timeline cuts its cell
// at 240 characters: what became of the page, and why in words, before the page's address, its key
// and the reason as data (with `reason` first, the words were cut off behind its `{"kind":"unusable",…}`).
function recordRead(run: RunState, row: OutsideVaultRow, text: Extract<PageText, { kind: "read" }>, ms: number): void {
  const { page } = text;
  run.recorder.event("page_fetch", { outcome: text.cached ? "cached" : "fetched", bytes: page.bytes, url: row.url, ...(page.url !== row.url ? { final_url: page.url } : {}), key: row.source_key, ms });
  run.recorder.event("page_extract", { outcome: "extracted", kind: page.kind, chars: page.text.length, charset: page.charset, ...(page.warnings.length ? { warnings: page.warnings } : {}), key: row.source_key });
}

function skippedPage(run: RunState, row: OutsideVaultRow, text: Extract<PageText, { kind: "skipped" }>, budgetChars: number, ms: number): PageRead {
  if (text.at === "extract") {
    run.recorder.event("page_fetch", { outcome: "fetched", ...(text.bytes !== undefined ? { bytes: text.bytes } : {}), url: row.url, key: row.source_key, ms });
    run.recorder.event("page_extract", { outcome: "skipped", message: text.message, key: row.source_key, reason: text.reason });
  } else {
    run.recorder.event("page_fetch", { outcome: "skipped", message: text.message, url: row.url, key: row.source_key, reason: text.reason, ms });
  }
  // A page the user's Stop cut off is stopped, as a web source cut off is: not a page that could not be read.
  run.stages.progress("read_pages", text.reason.kind === "cancelled" ? "stopped" : "skipped", `Did not read ${row.domain}: ${text.message}`);
  const read: PageRead = { source_key: row.source_key, url: row.url, status: "skipped", reason: text.reason, message: text.message, passages_found: 0, passages_kept: 0, chars: 0, budget_chars: budgetChars, ms };
  return text.bytes !== undefined ? { ...read, bytes: text.bytes } : read;
}

/** The kept passages join the row as page text; its explanation says the page was read. */
function attachPassages(row: OutsideVaultRow, kept: ScoredPassage[]): void {
  for (const p of kept) {
    const section: ContentSection = { role: "external_text", text: p.text, truncated: p.cut === true, fetched: true, start: p.start, end: p.end };
    row.content_sections.push(p.heading_path.length > 0 ? { ...section, heading_path: p.heading_path } : section);
  }
  const chars = kept.reduce((n, p) => n + p.text.length, 0);
  row.retrieval.signals.push({ name: "page_read", detail: `page read: ${kept.length} passage${kept.length === 1 ? "" : "s"} kept (${chars} characters)`, weight: 0 });
  const text = kept.map((p) => p.text.toLowerCase()).join(" ");
  const found = row.retrieval.missing_terms.filter((t) => text.includes(t.toLowerCase()));
  if (found.length === 0) return;
  row.retrieval.matched_terms = [...row.retrieval.matched_terms, ...found];
  row.retrieval.missing_terms = row.retrieval.missing_terms.filter((t) => !found.includes(t));
}

/**
 * The passages' meaning, when the dial has an embedding model, within the time page reading has
 * left: a slow embedding server costs the meaning, never the words' choice of passages.
 */
async function meaningInTime(run: RunState, ranked: readonly ScoredPassage[], reading: RowReading): Promise<PassageMeaning> {
  const ms = reading.timeLeft();
  const outOfTime: PassageMeaning = { kind: "failed", message: "The embedding model did not answer in time for page reading; the passages were chosen by their words." };
  if (ms <= 0) return outOfTime;
  const controller = new AbortController();
  const cancel = (): void => controller.abort();
  const { signal } = reading.fetchDeps;
  signal?.addEventListener("abort", cancel, { once: true });
  try {
    const meaning = await withDeadline(passageMeaning(run, ranked, controller.signal), { clock: run.deps.clock, ms });
    return meaning.kind === "failed" && run.deps.signal?.aborted ? { kind: "stopped" } : meaning;
  } catch (error) {
    if (!(error instanceof DeadlineMissed)) throw error;
    return outOfTime;
  } finally {
    // Given up on (or done): the embedding call stops too.
    controller.abort();
    signal?.removeEventListener("abort", cancel);
  }
}

/** How the passages' meaning went, as the page's `passages_selected` event says it. */
function meaningData(meaning: PassageMeaning): Record<string, unknown> {
  switch (meaning.kind) {
    case "off":
      return {};
    case "ok":
      return { by_meaning: true };
    case "failed":
      return { by_meaning: false, meaning_problem: meaning.message };
    case "stopped":
      return { by_meaning: false, meaning_stopped: "cancelled" };
  }
}

/** The optional model summary, when the settings ask for one and a model is configured, within the time page reading has left. */
async function addSummary(run: RunState, row: OutsideVaultRow, kept: ScoredPassage[], reading: RowReading): Promise<boolean> {
  const { model, settings, clock } = run.deps;
  if (!settings.external.summarizePages || !model) return false;
  const left = reading.timeLeft();
  if (left <= 0) {
    run.recorder.error("read_pages", "summary_failed", `No time was left in page reading to summarise ${row.domain}.`);
    return false;
  }
  const { signal } = reading.fetchDeps;
  const summary = await summarisePage(run.request.question, kept.map((p) => p.text), { model, clock, timeoutMs: Math.min(settings.model.timeoutMs, left), ...(signal ? { signal } : {}) });
  if (summary.kind === "failed") {
    // Cut short by the stage's end (a Stop, its limit): the stage says so, the model did not fail.
    if (!signal?.aborted) run.recorder.error("read_pages", "summary_failed", summary.message);
    return false;
  }
  row.content_sections.push(summary.section);
  return true;
}

function describeReads(reads: PageRead[]): string {
  const read = reads.filter((r) => r.status !== "skipped");
  const cached = reads.filter((r) => r.status === "cached").length;
  const passages = read.reduce((n, r) => n + r.passages_kept, 0);
  const skipped = reads.length - read.length;
  return `${read.length} page${read.length === 1 ? "" : "s"} read${cached ? ` (${cached} from the cache)` : ""}, ${passages} passage${passages === 1 ? "" : "s"} kept${skipped ? `; ${skipped} not read` : ""}`;
}

/** `fn` over `items`, at most `limit` at a time, results in the items' order. */
async function mapWithLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
