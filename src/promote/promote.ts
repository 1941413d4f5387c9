// Promotion: the user's deliberate act of turning one outside-vault result into a source note.
// It never happens as a side effect of research. Steps: look for a note that already has the
// page as its source (then say so and stop) → fetch and extract the page, or fall back to the
// provider's excerpt → write a new note (never over an existing file) → index it → record the
// promotion in the trace note. From then on the page is vault evidence like any other note.
import type { VaultIndex } from "../index/vault-index";
import { locateFrontmatter, readFrontmatter, readProperties } from "../index/frontmatter";
import type { Clock, Http, NoteFileInfo, NoteStore } from "../ports";
import { inTurnOf } from "../deadline";
import { vaultFolder, type Settings } from "../settings";
import { canonicalizeUrl, samePageKey } from "../websearch/canonical-url";
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
  /**
   * When given: duplicates are looked up in it (the notes it leaves out are read) and the new note
   * is indexed at once.
   */
  index?: Pick<VaultIndex, "notesWithSourceUrl" | "paths" | "note" | "updateFile">;
  /**
   * A note's properties as the app already holds them (Obsidian's metadata cache), or null when it
   * cannot vouch for them at the date and size the store lists (parsed before its last change, or
   * not yet): that note is read. Without it (the CLI) every note the index leaves out is read.
   */
  propertiesOf?: (file: NoteFileInfo) => Record<string, unknown> | null;
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
  /**
   * The folder of recordings `http` answers page fetches from (the CLI's `--replay`): the note says
   * its page text is a recorded sample, not the live site. Unset: the page was asked of its site.
   */
  pagesReplayedFrom?: string;
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
  | { status: "already_in_vault"; notePath: string; extractStatus: null; message: string; /** The trace records it (null: there is no trace note to say). */ traceUpdated: boolean | null }
  | { status: "failed"; error: PromotionError; message: string };

export async function promoteOutsideRow(input: PromoteRowInput): Promise<PromotionResult> {
  const canonical = canonicalizeUrl(input.row.url);
  if (canonical === null) return failed("not_a_web_page", `${input.row.url} is not an http(s) address; there is no page to save.`);
  // Keyed by the page, as duplicates are found: its `http` and `https` rows at once are one promotion.
  return onePromotionAtATime(input.store, samePageKey(canonical) ?? canonical, () => promoteWebPage(input, canonical));
}

/**
 * Promotions of one page into one vault, in flight: a second (a double click, the panel and the
 * command at once) waits for the first and then finds its note, rather than write a second one.
 * Keyed by the store, which is the vault, so nothing outlives it.
 */
const promotionsInFlight = new WeakMap<NoteStore, Map<string, Promise<void>>>();

function onePromotionAtATime<T>(store: NoteStore, page: string, promote: () => Promise<T>): Promise<T> {
  let pages = promotionsInFlight.get(store);
  if (!pages) promotionsInFlight.set(store, (pages = new Map<string, Promise<void>>()));
  return inTurnOf(pages, page, promote);
}

async function promoteWebPage(input: PromoteRowInput, canonical: string): Promise<PromotionResult> {
  const { row, trace, tracePath, store, clock, settings } = input;
  const existing = await notesWithSource(canonical, input);
  if (existing.length > 0) return alreadyInVault(input, existing);

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
  const { note, summary } = scrub.value(promotedNote({ row, trace, tracePath, outcome, retrievedAt, pagesReplayedFrom: input.pagesReplayedFrom }));
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

  const traceUpdated = (await recordInTrace(input, notePath, new Date(retrievedAt).toISOString(), warnings)) !== "not_recorded";
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
  const promoted = await promotionsStillThere(store, parsed.trace.promotions ?? []);
  return {
    trace: parsed.trace,
    rows: parsed.trace.pack.external_evidence.map((row) => {
      const to = promoted.get(row.source_key);
      return to === undefined ? { row } : { row, promotedTo: to };
    }),
  };
}

/**
 * The note each row was saved as, of those still at the path the trace recorded: a note deleted or
 * moved since was still offered as "Already saved as [[…]]" and labelled `· promoted`. Choosing such a
 * row promotes it anew, which finds a moved note by its source and records where it is now.
 */
async function promotionsStillThere(store: NoteStore, promotions: readonly { source_key: string; note_path: string }[]): Promise<Map<string, string>> {
  const there = new Map<string, string>();
  for (const { source_key, note_path } of promotions) {
    if (await store.exists(note_path).catch(() => false)) there.set(source_key, note_path);
  }
  return there;
}

/**
 * Notes that have this page as their `source`/`url`: under its canonical address, or as the same
 * page under another (`samePageKey`, the rule the run merges results and finds vault notes by:
 * `http`/`https`, `www.`, AMP copies), so a page clipped years ago as `http://www.…` is the one
 * the run found as `https://…`. The index answers for the notes it holds; the notes it leaves out
 * (an excluded folder: the sources folder itself may be one) are read, as every note is without
 * an index, and so are notes it does not hold yet (written or moved a moment ago) — each once, and
 * again only when it changed (`pagesOfNotes`), and not at all where the app's metadata already
 * holds its properties as of its last change (`propertiesOf`). A note the index lists that is no longer there
 * (trashed a moment ago) is not the page's note. Trace notes have no source and are never read.
 */
async function notesWithSource(
  canonicalUrl: string,
  { store, index, settings, propertiesOf }: Pick<PromoteDeps, "store" | "index" | "settings" | "propertiesOf">,
): Promise<string[]> {
  const traceFolder = settings.notes.traceFolder;
  const page = samePageKey(canonicalUrl) ?? canonicalUrl;
  const isPage = (key: string) => key === page;
  // The index lags the vault by its update pause (a sync's thousands of changes, far longer): a note
  // just trashed ("Fetch the page again") or moved is still listed where it was, a note just written
  // (a clipping, a moved note's new place) is not listed yet, and a note just edited (its source
  // pasted in, or taken out) is held as it was. A listed note that is gone is not the page's note;
  // the notes the index does not hold as they are now are looked at below.
  if (index) {
    const present = await notesAsIndexed(store, index, indexedNotesOfPage(index)(canonicalUrl));
    if (present.length > 0) return present;
  }
  // The vault's top is never the trace folder (settings refuse it); were it, no note would be read.
  const isTrace = (path: string) => vaultFolder(traceFolder) !== "" && isInFolder(path, traceFolder);
  const unheld = (await store.list()).filter((file) => /\.md$/i.test(file.path) && !isTrace(file.path) && !(index && holdsAsListed(index, file)));
  const pages = await pagesOfNotes(store, unheld, propertiesOf);
  return unheld.filter((file) => pages.get(file.path)?.some(isPage)).map((file) => file.path);
}

/** Whether the index holds the note as it is now, not a copy from before its last change. */
function holdsAsListed(index: Pick<VaultIndex, "note">, file: NoteFileInfo): boolean {
  const note = index.note(file.path);
  return note !== undefined && note.mtime === file.mtime && note.size === file.size;
}

/** The pages (`samePageKey`) a note's `source`/`url` name, as read when the note had this date and size. */
interface SourcesRead {
  mtime: number;
  size: number;
  pages: string[];
}

/**
 * The sources of the notes the index leaves out, by store (the vault), kept between promotions: an
 * excluded archive of 20,000 notes was read whole at every promotion. A note is read again when its
 * date or size changed; one the store no longer lists is forgotten. Nothing but the pages is kept.
 */
const sourcesRead = new WeakMap<NoteStore, Map<string, SourcesRead>>();

/** Reads in flight at once while looking through the left-out notes. */
const SOURCE_READS_IN_FLIGHT = 8;

async function pagesOfNotes(store: NoteStore, files: readonly NoteFileInfo[], propertiesOf: PromoteDeps["propertiesOf"]): Promise<Map<string, string[]>> {
  const before = sourcesRead.get(store);
  const now = new Map<string, SourcesRead>();
  const stale: NoteFileInfo[] = [];
  for (const file of files) {
    const known = before?.get(file.path);
    // A store that gives no date (0) cannot say a note is unchanged.
    if (known && file.mtime > 0 && known.mtime === file.mtime && known.size === file.size) {
      now.set(file.path, known);
      continue;
    }
    // The app's own reading of the note's properties, when it is of the note as listed: nothing is read.
    const properties = propertiesOf?.(file) ?? null;
    if (properties) now.set(file.path, { mtime: file.mtime, size: file.size, pages: pagesOf(readProperties(properties).sourceUrls) });
    else stale.push(file);
  }
  let next = 0;
  const reader = async (): Promise<void> => {
    while (next < stale.length) {
      const file = stale[next++];
      try {
        now.set(file.path, { mtime: file.mtime, size: file.size, pages: pagesOf(sourceUrlsOf(await store.read(file.path))) });
      } catch {
        // Unreadable now: not the page's note, and read again next time.
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(SOURCE_READS_IN_FLIGHT, stale.length) }, reader));
  sourcesRead.set(store, now);
  return new Map(Array.from(now, ([path, read]) => [path, read.pages]));
}

/** The index's notes of the page that are still there as it read them (a store that gives no dates: still there). */
async function notesAsIndexed(store: NoteStore, index: Pick<VaultIndex, "note">, paths: string[]): Promise<string[]> {
  const present: string[] = [];
  for (const path of paths) {
    if (!store.stat) {
      if (await store.exists(path).catch(() => false)) present.push(path);
      continue;
    }
    const file = await store.stat(path).catch(() => null);
    if (file && holdsAsListed(index, file)) present.push(path);
  }
  return present;
}

/**
 * The indexed notes that hold a page: those whose source is its canonical URL (the index's own
 * lookup), else those whose source is the same page under another address (`samePageKey`). The
 * second table is built once, on the first page the index's lookup does not place: a run asks for
 * each of its results with one lookup.
 */
export function indexedNotesOfPage(index: Pick<VaultIndex, "notesWithSourceUrl" | "paths" | "note">): (canonicalUrl: string) => string[] {
  let byPage: Map<string, string[]> | null = null;
  return (canonicalUrl) => {
    const exact = index.notesWithSourceUrl(canonicalUrl);
    if (exact.length > 0) return exact;
    byPage ??= notesByPage(index);
    return byPage.get(samePageKey(canonicalUrl) ?? canonicalUrl) ?? [];
  };
}

function notesByPage(index: Pick<VaultIndex, "paths" | "note">): Map<string, string[]> {
  const byPage = new Map<string, string[]>();
  for (const path of index.paths()) {
    for (const url of index.note(path)?.sourceUrls ?? []) {
      const page = samePageKey(url);
      if (page === null) continue;
      const paths = byPage.get(page) ?? [];
      if (!paths.includes(path)) byPage.set(page, [...paths, path]);
    }
  }
  return byPage;
}

/** The pages (`samePageKey`) a note's sources name. */
function pagesOf(sourceUrls: readonly string[]): string[] {
  return sourceUrls.flatMap((url) => samePageKey(url) ?? []);
}

/** A note's `source`/`url` properties, read from its frontmatter alone (a long note's body is not parsed). */
function sourceUrlsOf(text: string): string[] {
  const location = locateFrontmatter(text, text.charCodeAt(0) === 0xfeff ? 1 : 0);
  if (location.kind !== "closed") return [];
  const read = readFrontmatter(text.slice(location.span.yamlStart, location.span.yamlEnd));
  return read.ok ? readProperties(read.data).sourceUrls : [];
}

// ── writing ─────────────────────────────────────────────────────────────────────────────────

/**
 * The page is a note already. When the trace does not say so yet — an earlier promotion wrote the
 * note and was cut short (the app closed, Ctrl-C) before the trace note was updated — it is recorded
 * now: a second try finishes what the first began, and never writes a second note.
 */
async function alreadyInVault(input: PromoteRowInput, existing: string[]): Promise<PromotionResult> {
  const recorded = (input.trace.promotions ?? []).find((p) => p.source_key === input.row.source_key)?.note_path;
  const notePath = recorded !== undefined && existing.includes(recorded) ? recorded : existing[0];
  const warnings: string[] = [];
  const trace = recorded === notePath || (await traceNoteRecords(input, notePath)) ? "was_recorded" : await recordInTrace(input, notePath, new Date(input.clock.now()).toISOString(), warnings);
  // When the trace note could not record it, why: else the row stays offered as not saved, unexplained.
  const traceWords = trace === "recorded" ? " The trace note now records it." : warnings.length > 0 ? ` ${warnings.join(" ")}` : "";
  return {
    status: "already_in_vault",
    notePath,
    extractStatus: null,
    message: `Already in the vault: ${notePath} has this page as its source, so no new note was written.${traceWords}`,
    traceUpdated: input.tracePath === null ? null : trace !== "not_recorded",
  };
}

/** What became of the promotion in the trace note: written now, there already, or not written (the warning says why). */
type TraceRecord = "recorded" | "was_recorded" | "not_recorded";

/**
 * Records the promotion in the trace note. Wherever the note lies now (the trace folder setting
 * changed since, the user moved it): `recordPromotion` rewrites only a note whose properties say
 * the plugin wrote it for this run, and keeps the user's own text as it is.
 */
async function recordInTrace(input: PromoteRowInput, notePath: string, at: string, warnings: string[]): Promise<TraceRecord> {
  if (input.tracePath === null) return "not_recorded";
  const tracePath = input.tracePath;
  if (!input.updateTraceNote) {
    warnings.push(`The trace note ${tracePath} was not updated (nothing here can rewrite it).`);
    return "not_recorded";
  }
  const outcome: { problem?: string; unchanged?: boolean } = {};
  try {
    await input.updateTraceNote(tracePath, (markdown) => {
      if (recordsPromotion(markdown, input.row.source_key, notePath)) {
        outcome.unchanged = true;
        return markdown;
      }
      const updated = recordPromotion(markdown, { source_key: input.row.source_key, note_path: notePath, at });
      if ("error" in updated) {
        outcome.problem = updated.error.message;
        return markdown;
      }
      return updated.markdown;
    });
  } catch (error) {
    outcome.problem = errorMessage(error);
  }
  if (outcome.problem !== undefined) {
    // Outside the trace folder, a note refused is most likely the user's own copy: both facts are said.
    const where = isInFolder(tracePath, input.settings.notes.traceFolder) ? "" : `it is not in the trace folder (${input.settings.notes.traceFolder}) and `;
    warnings.push(`The trace note ${tracePath} does not record the promotion: ${where}${outcome.problem}`);
    return "not_recorded";
  }
  return outcome.unchanged ? "was_recorded" : "recorded";
}

/**
 * Whether the trace note on disk already records this row as this note (the panel's trace in memory
 * predates the promotion). Read, not rewritten: even an unchanged rewrite is a change event, and
 * the panel asks again every half second while the index catches up with a note it trashed —
 * events that kept the index's update queue from ever settling.
 */
async function traceNoteRecords(input: PromoteRowInput, notePath: string): Promise<boolean> {
  if (input.tracePath === null) return false;
  try {
    return recordsPromotion(await input.store.read(input.tracePath), input.row.source_key, notePath);
  } catch {
    return false;
  }
}

/** Whether the trace note already says this row was saved as this note (then it is not rewritten). */
function recordsPromotion(markdown: string, sourceKey: string, notePath: string): boolean {
  const parsed = parseTraceNote(markdown);
  return !("error" in parsed) && (parsed.trace.promotions ?? []).some((p) => p.source_key === sourceKey && p.note_path === notePath);
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
