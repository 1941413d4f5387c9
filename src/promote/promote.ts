// Promotion: the user's deliberate act of turning one outside-vault result into a source note.
// It never happens as a side effect of research. Steps: look for a note that already has the
// page as its source (then say so and stop) → fetch and extract the page, or fall back to the
// provider's excerpt → write a new note (never over an existing file) → index it → record the
// promotion in the trace note. From then on the page is vault evidence like any other note.
import type { VaultIndex } from "../index/vault-index";
import { parseNote } from "../index/markdown";
import type { Clock, Http, NoteStore } from "../ports";
import type { Settings } from "../settings";
import { canonicalizeUrl } from "../websearch/canonical-url";
import type { OutsideVaultRow } from "../evidence/research-pack";
import type { FetchGuardOptions } from "./fetch-guard";
import { fetchAndReadPage, type FetchPageOptions, type ReadPage } from "./page-extract";
import { promotedNote } from "./promoted-note";
import type { ResearchTrace } from "../evidence/trace-types";
import type { ExtractStatus } from "../notes/extract-status";
import { createNoteAtFreeName } from "../notes/create-note";
import { renderSourceNote, sourceNoteFileName } from "../notes/source-note";
import { parseTraceNote, recordPromotion } from "../notes/trace-note-read";
import { errorMessage } from "../text/error-message";
import { secretScrubber } from "../text/secret-scrub";

/**
 * Rewrites a file the plugin itself wrote, in one step: Obsidian's `Vault.process` in the plugin,
 * read-then-write in the CLI. NoteStore deliberately cannot replace files; the trace note is the
 * one existing file promotion changes, so the caller hands over this narrower power explicitly.
 */
export type TraceNoteUpdater = (path: string, update: (markdown: string) => string) => Promise<void>;

export interface PromoteDeps {
  store: NoteStore;
  http: Http;
  clock: Clock;
  settings: Settings;
  /** When given: duplicates are looked up in it and the new note is indexed at once. */
  index?: Pick<VaultIndex, "notesWithSourceUrl" | "updateFile">;
  /** Defuddle over the platform's DOM (see page-extract.ts). */
  readPage: ReadPage;
  /** Without it the note is still written, and the result says the trace note was not updated. */
  updateTraceNote?: TraceNoteUpdater;
  /** Timeout and size cap of the page fetch (defaults: 20 s, 5 MB). */
  page?: Omit<FetchPageOptions, "signal" | "guard">;
  /**
   * Secrets the caller knows (the CLI: every key in its environment). A page that happens to hold
   * one — a hostile page can echo what it guesses or was sent — never gets it into the note.
   */
  knownSecrets?: readonly string[];
  /** How the fetch guard looks names up (the CLI: DNS); its rules apply with or without it. */
  fetchGuard?: FetchGuardOptions;
  signal?: AbortSignal;
}

export interface PromoteRowInput extends PromoteDeps {
  row: OutsideVaultRow;
  trace: ResearchTrace;
  /** Vault path of the trace note the row comes from; null when the run wrote none. */
  tracePath: string | null;
}

export type PromotionErrorKind =
  | "trace_not_found"
  | "trace_unreadable"
  | "unknown_source_key"
  | "not_a_web_page"
  | "fetch_refused"
  | "write_failed"
  | "cancelled";

export interface PromotionError {
  kind: PromotionErrorKind;
  message: string;
}

export type PromotionResult =
  | {
      status: "created";
      notePath: string;
      /** What the note holds of the page (`extractStatusText` spells it as the note does). */
      extractStatus: ExtractStatus;
      message: string;
      /** False when the trace note could not record the promotion (the note exists regardless). */
      traceUpdated: boolean;
      warnings: string[];
    }
  | { status: "already_in_vault"; notePath: string; extractStatus: null; message: string }
  | { status: "failed"; error: PromotionError; message: string };

export async function promoteOutsideRow(input: PromoteRowInput): Promise<PromotionResult> {
  const canonical = canonicalizeUrl(input.row.url);
  if (canonical === null) return failed("not_a_web_page", `${input.row.url} is not an http(s) address; there is no page to save.`);
  return onePromotionAtATime(input.store, canonical, () => promoteWebPage(input, canonical));
}

/**
 * Promotions of one page into one vault, in flight: a second (a double click, the panel and the
 * command at once) waits for the first and then finds its note, rather than write a second one.
 * Keyed by the store, which is the vault, so nothing outlives it.
 */
const promotionsInFlight = new WeakMap<NoteStore, Map<string, Promise<unknown>>>();

async function onePromotionAtATime<T>(store: NoteStore, canonical: string, promote: () => Promise<T>): Promise<T> {
  let pages = promotionsInFlight.get(store);
  if (!pages) promotionsInFlight.set(store, (pages = new Map<string, Promise<unknown>>()));
  const mine = (pages.get(canonical) ?? Promise.resolve()).then(promote, promote);
  const done = mine.then(
    () => undefined,
    () => undefined,
  );
  pages.set(canonical, done);
  try {
    return await mine;
  } finally {
    if (pages.get(canonical) === done) pages.delete(canonical);
  }
}

async function promoteWebPage(input: PromoteRowInput, canonical: string): Promise<PromotionResult> {
  const { row, trace, tracePath, store, clock, settings } = input;
  const existing = await notesWithSource(canonical, store, input.index);
  if (existing.length > 0) {
    return {
      status: "already_in_vault",
      notePath: existing[0],
      extractStatus: null,
      message: `Already in the vault: ${existing[0]} has this page as its source, so no new note was written.`,
    };
  }

  const outcome = await fetchAndReadPage(row.url, input.http, input.readPage, {
    ...input.page,
    ...(input.fetchGuard ? { guard: input.fetchGuard } : {}),
    ...(input.signal ? { signal: input.signal } : {}),
  });
  if (outcome.kind === "cancelled" || input.signal?.aborted) return failed("cancelled", "Promotion was cancelled; nothing was written.");
  if (outcome.kind === "refused") return failed("fetch_refused", `${outcome.message} Nothing was saved.`);

  const retrievedAt = clock.now();
  const scrub = secretScrubber(input.knownSecrets ?? []);
  // Scrubbed before it is named or rendered: the title becomes the file name, and the path is
  // written into the trace note and the index.
  const { note, summary } = scrub.value(promotedNote({ row, trace, tracePath, outcome, retrievedAt }));
  const content = scrub.text(renderSourceNote(note));

  let notePath: string;
  try {
    notePath = await createNoteAtFreeName(store, settings.notes.sourcesFolder, sourceNoteFileName(note.title, row.domain || "Untitled source"), content);
  } catch (error) {
    return failed("write_failed", `The note could not be written: ${errorMessage(error)}`);
  }

  const warnings = outcome.kind === "extracted" ? [...outcome.warnings] : [];
  if (input.index) {
    try {
      await input.index.updateFile(store, notePath);
    } catch (error) {
      warnings.push(`The index did not pick the note up yet (${errorMessage(error)}); it will at the next sync.`);
    }
  }

  const traceUpdated = await recordInTrace(input, notePath, new Date(retrievedAt).toISOString(), warnings);
  return {
    status: "created",
    notePath,
    extractStatus: note.extractStatus,
    message: `Saved ${notePath}: ${summary}`,
    traceUpdated,
    warnings,
  };
}

export interface PromoteFromTraceInput extends PromoteDeps {
  tracePath: string;
  sourceKey: string;
}

/** What the CLI and the plugin command call: reads the trace note, finds the row, promotes it. */
export async function promoteFromTraceNote(input: PromoteFromTraceInput): Promise<PromotionResult> {
  const rows = await outsideRowsOfTraceNote(input.store, input.tracePath);
  if ("error" in rows) return { status: "failed", error: rows.error, message: rows.error.message };
  const found = rows.rows.find((r) => r.row.source_key === input.sourceKey);
  if (!found) {
    const keys = rows.rows.map((r) => r.row.source_key);
    const known = keys.length === 0 ? "it has no outside-vault rows" : `its outside-vault rows are ${keys.slice(0, 10).join(", ")}${keys.length > 10 ? ", …" : ""}`;
    return failed("unknown_source_key", `${input.sourceKey} is not a result of ${input.tracePath}; ${known}.`);
  }
  return promoteOutsideRow({ ...input, row: found.row, trace: rows.trace });
}

export interface TraceOutsideRow {
  row: OutsideVaultRow;
  /** The note it was saved as, when it was promoted before. */
  promotedTo?: string;
}

/** The outside rows of a trace note, for the "Promote a result from this trace" picker. */
export async function outsideRowsOfTraceNote(
  store: NoteStore,
  tracePath: string,
): Promise<{ trace: ResearchTrace; rows: TraceOutsideRow[] } | { error: PromotionError }> {
  let markdown: string;
  try {
    if (!(await store.exists(tracePath))) return { error: { kind: "trace_not_found", message: `There is no trace note at ${tracePath}.` } };
    markdown = await store.read(tracePath);
  } catch (error) {
    return { error: { kind: "trace_not_found", message: `The trace note ${tracePath} could not be read: ${errorMessage(error)}` } };
  }
  const parsed = parseTraceNote(markdown);
  if ("error" in parsed) return { error: { kind: "trace_unreadable", message: `${tracePath}: ${parsed.error.message}` } };
  const promoted = new Map((parsed.trace.promotions ?? []).map((p) => [p.source_key, p.note_path]));
  return {
    trace: parsed.trace,
    rows: parsed.trace.pack.external_evidence.map((row) => {
      const to = promoted.get(row.source_key);
      return to === undefined ? { row } : { row, promotedTo: to };
    }),
  };
}

/**
 * Notes whose `source`/`url` property is this canonical URL. The index knows them at once; without
 * one (a bare store), every note's properties are read.
 */
export async function notesWithSource(canonicalUrl: string, store: NoteStore, index?: Pick<VaultIndex, "notesWithSourceUrl">): Promise<string[]> {
  if (index) return index.notesWithSourceUrl(canonicalUrl);
  const found: string[] = [];
  for (const file of await store.list()) {
    let text: string;
    try {
      text = await store.read(file.path);
    } catch {
      continue;
    }
    if (!/^---/.test(text)) continue;
    if (parseNote(file.path, text).sourceUrls.some((u) => canonicalizeUrl(u) === canonicalUrl)) found.push(file.path);
  }
  return found;
}

// ── writing ─────────────────────────────────────────────────────────────────────────────────

async function recordInTrace(input: PromoteRowInput, notePath: string, at: string, warnings: string[]): Promise<boolean> {
  if (input.tracePath === null) return false;
  const tracePath = input.tracePath;
  const traceFolder = input.settings.notes.traceFolder;
  if (!isInFolder(tracePath, traceFolder)) {
    // Only trace notes the plugin wrote are ever rewritten: a note elsewhere is the user's own.
    warnings.push(`The trace note ${tracePath} was not updated: it is not in the trace folder (${traceFolder}), so it is not one this plugin wrote.`);
    return false;
  }
  if (!input.updateTraceNote) {
    warnings.push(`The trace note ${input.tracePath} was not updated (nothing here can rewrite it).`);
    return false;
  }
  const problem: { message?: string } = {};
  try {
    await input.updateTraceNote(tracePath, (markdown) => {
      const updated = recordPromotion(markdown, { source_key: input.row.source_key, note_path: notePath, at });
      if ("error" in updated) {
        problem.message = updated.error.message;
        return markdown;
      }
      return updated.markdown;
    });
  } catch (error) {
    problem.message = errorMessage(error);
  }
  if (problem.message !== undefined) {
    warnings.push(`The trace note ${input.tracePath} does not record the promotion: ${problem.message}`);
    return false;
  }
  return true;
}

/** Whether a vault path lies inside `folder` (both read as note paths are: `\\` as `/`, empty and `.` parts dropped). */
function isInFolder(path: string, folder: string): boolean {
  const parts = (p: string) => p.replace(/\\/g, "/").split("/").map((part) => part.trim()).filter((part) => part !== "" && part !== ".");
  const file = parts(path);
  const dir = parts(folder);
  if (file.includes("..") || dir.includes("..")) return false;
  return file.length > dir.length && dir.every((part, i) => part === file[i]);
}

function failed(kind: PromotionErrorKind, message: string): PromotionResult {
  return { status: "failed", error: { kind, message }, message };
}
