// The saved index: a manifest and segments, each a part of the IndexCache. A segment holds the
// notes whose short ids fall in one range (a few hundred notes) with their metadata and postings;
// the manifest lists the segments, the notes that left them since, and the engine's counters.
// A save rewrites only segments that changed, and no part is ever the whole index.
//
// Reading checks every part the index later relies on, so a cache that loads but has the wrong
// shape (another version's, a half-written one, a hand-edited one) comes back as a reason to
// rebuild, never as a crash in a later search. What can be derived is derived, not trusted: each
// field's average length is computed again from the rows' field lengths as they are read.
import { MAX_NOTE_CHARS } from "./note-limit";
import type { RebuildReason } from "./rebuild-reason";
import { FIELDS, type EngineNote, type SearchEngine } from "./search-engine";
import { appendSavedPostings, hasPostingsIn, lowerBound, MAX_COUNT, MAX_SHORT_ID, packPosting, postingCount, postingNote, type TermPostings } from "./term-postings";
import type { IndexedNote, NoteProblem, NoteProblemKind } from "./types";
import { grown } from "./typed-arrays";
import type { WorkSlice } from "./work-slice";

/** Bump when the analyser, the document shape, which notes are indexed or this format changes: old caches are then rebuilt (19: a research trace note is known by its `type` as YAML reads it, a comment after it, a list or a flow mapping, so one indexed outside the trace folder before leaves; 18: no tag from a Logseq `#+BEGIN_SRC`/`QUERY`/`EXAMPLE`/`EXPORT` block nor a SilverBullet `${…}` expression; 17: a link reference definition leaves no words, a footnote's marker none, an inline HTML comment ends at `-->`, struck-out text keeps its `~~`; segments named by a token of their save, never by a count a rebuild starts again, and the manifest keeps no count; 16: code fences read as Obsidian renders them, `text/code-fences.ts`, in nested lists too; 15: Thai, Lao, Khmer and Burmese split into pairs, their marks and kana voicing kept when folding, a listed alias with a comma kept whole). */
export const INDEX_FORMAT_VERSION = 19;

/** The part that names all the others. */
export const MANIFEST_PART = "manifest";

const FORMAT = "vault-research-index";
const SEGMENT_FORMAT = "vault-research-index-segment";
/** Part names adapters can use as file names or keys as they are. */
const PART_NAME = /^[a-z0-9-]{1,64}$/;
/**
 * The most distinct terms a field of a note can hold. The index reads at most MAX_NOTE_CHARS of a
 * note and the analyser makes about one term a character at most (CJK bigrams, a compound's parts
 * and its joined form); twice that leaves room for the fields drawn from the name and properties.
 */
const MAX_FIELD_LENGTH = 2 * MAX_NOTE_CHARS;

/** A note as one array, in this order: a part stays about half the size of named fields. */
type NoteRow = [shortId: number, path: string, mtime: number, size: number, title: string, aliases: string[], tags: string[], sourceUrls: string[], problems: NoteProblem[], fieldLengths: number[]];

/** One segment as the manifest lists it. */
export interface SegmentEntry {
  name: string;
  /** Short ids in [first, end). */
  first: number;
  end: number;
  /** Notes the segment holds. */
  notes: number;
  /** Short ids of notes it holds that have left the index since it was written, ascending. */
  left: number[];
}

export interface Manifest {
  format: typeof FORMAT;
  version: number;
  /** What the settings that shape the index were (see VaultIndex's fingerprint). */
  fingerprint: string;
  savedAt: number;
  /**
   * The short id the next note gets, and MiniSearch's running average of each field's length. The
   * averages are written for the format's sake only: a load computes them again from the rows.
   */
  nextId: number;
  averageFieldLength: number[];
  segments: SegmentEntry[];
}

/** A segment part: its notes (rows), the terms they hold, and per term its postings by field. */
interface SegmentPart {
  format: typeof SEGMENT_FORMAT;
  version: number;
  first: number;
  end: number;
  notes: NoteRow[];
  terms: string[];
  /** Per term, in order: its field count, then per field its id, its posting count n and n pairs (row, count). */
  postings: Uint32Array;
}

export type ManifestRead = { ok: true; manifest: Manifest } | { ok: false; reason: RebuildReason };

/** Every problem kind, so a saved problem of a kind this version does not know is caught. */
const PROBLEM_KINDS: Record<NoteProblemKind, true> = { frontmatter: true, encoding: true, read: true, too_large: true };

/** Random bytes in a save's token: 64 bits, so two saves of any processes drawing the same one is not to be expected. */
const TOKEN_BYTES = 8;

/**
 * A token for one save's new segments that no other save, of this process or another, has used. A
 * segment's name must never be given to other contents: another process sharing the cache (the MCP
 * server beside `vault-research index`), or the plugin reloaded while its last save ran, may still
 * list the old contents under that name in its manifest, and load or keep them as its own. A count
 * of saves could not promise that: a rebuild, or a cache another process overwrote, starts it again.
 */
export function newSaveToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(TOKEN_BYTES));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A save's token as a pattern, for every part named after one (segments here, saved vectors). */
export const SAVE_TOKEN_PATTERN = `[0-9a-f]{${2 * TOKEN_BYTES}}`;

export function segmentName(saveToken: string, first: number): string {
  return `segment-${saveToken}-${first}`;
}

const SEGMENT_NAME = new RegExp(`^segment-${SAVE_TOKEN_PATTERN}-(0|[1-9][0-9]*)$`);

/** Whether `name` is what `segmentName` gives for `first` at some save. */
function isSegmentNameOf(name: string, first: number): boolean {
  const match = SEGMENT_NAME.exec(name);
  return match !== null && Number(match[1]) === first;
}

export function createManifest(fingerprint: string, savedAt: number, engine: SearchEngine, segments: SegmentEntry[]): Manifest {
  return { format: FORMAT, version: INDEX_FORMAT_VERSION, fingerprint, savedAt, nextId: engine.nextShortId, averageFieldLength: engine.averageFieldLengths, segments };
}

/** The manifest, or why the cache cannot be used. `fingerprint` is the current settings'. */
export function readManifest(value: unknown, fingerprint: string): ManifestRead {
  if (!isRecord(value) || value.format !== FORMAT) return rebuild({ kind: "not_an_index" });
  if (value.version !== INDEX_FORMAT_VERSION) return rebuild({ kind: "format_changed", from: versionAsWritten(value.version), to: INDEX_FORMAT_VERSION });
  if (value.fingerprint !== fingerprint) return rebuild({ kind: "settings_changed" });
  const { savedAt, nextId, averageFieldLength, segments } = value;
  if (!Array.isArray(segments) || !Array.isArray(averageFieldLength)) return rebuild({ kind: "incomplete" });
  if (!Number.isFinite(savedAt) || !isCount(nextId) || nextId > MAX_SHORT_ID) return corrupt("the manifest's counters have the wrong shape");
  if (averageFieldLength.length !== FIELDS.length || !isAverageLengthList(averageFieldLength)) return corrupt("the manifest's field lengths have the wrong shape");
  let end = 0;
  const names = new Set<string>();
  for (let i = 0; i < segments.length; i++) {
    const entry: unknown = segments[i];
    if (!isSegmentEntry(entry) || entry.first < end || entry.end > nextId || names.has(entry.name)) return corrupt(`segment ${i + 1} of ${segments.length} has the wrong shape`);
    names.add(entry.name);
    end = entry.end;
  }
  return { ok: true, manifest: value as unknown as Manifest };
}

/** Right in shape and possible: named after its first note by a save, holding at least one note and no more than its range has room for. */
function isSegmentEntry(value: unknown): value is SegmentEntry {
  if (!isRecord(value)) return false;
  const { name, first, end, notes, left } = value;
  if (typeof name !== "string" || !PART_NAME.test(name) || !isCount(first) || !isCount(end) || first >= end || !isCount(notes)) return false;
  if (notes < 1 || notes > end - first || !isSegmentNameOf(name, first)) return false;
  if (!Array.isArray(left) || left.length > notes) return false;
  let previous = first - 1;
  for (const id of left) {
    if (!isCount(id) || id <= previous || id >= end) return false;
    previous = id;
  }
  return true;
}

// ── segments ───────────────────────────────────────────────────────────────────────────────

/** Work between two looks at the clock while a segment is written or read: terms visited, or posting numbers handled. */
const TERMS_PER_CHECK = 64;
const NUMBERS_PER_CHECK = 4_096;

/** The segment of the live notes with short ids in [first, end), drawn from the engine and the note table, a slice at a time. */
export async function writeSegment(
  engine: SearchEngine,
  noteOf: (path: string) => IndexedNote | undefined,
  first: number,
  end: number,
  slice: WorkSlice,
  /** Room to write the postings in, reused by a save's segments (one save, one room). */
  out: Uint32Appender = new Uint32Appender(),
): Promise<{ part: SegmentPart; notes: number }> {
  const rows: NoteRow[] = [];
  const rowOf = new Map<number, number>();
  for (const { shortId, path, fieldLengths } of engine.notesInRange(first, end)) {
    const n = noteOf(path);
    if (!n) continue;
    rowOf.set(shortId, rows.length);
    rows.push([shortId, n.path, n.mtime, n.size, n.title, n.aliases, n.tags, n.sourceUrls, n.problems, fieldLengths]);
  }
  const walk: TermWalk = { names: engine.terms.keys(), lists: engine.terms.values(), rowOf, first, end, out, terms: [] };
  out.length = 0;
  while (encodeSomeTerms(walk)) if (slice.over()) await slice.pause();
  const terms = walk.terms;
  const part: SegmentPart = { format: SEGMENT_FORMAT, version: INDEX_FORMAT_VERSION, first, end, notes: rows, terms, postings: out.written() };
  return { part, notes: rows.length };
}

/**
 * A segment's walk over every term of the engine, in the term map's order. The map is walked by its
 * names and its postings side by side, two iterators that stay at the same entry whatever changes
 * between chunks (a Map's iterators advance by position, skipping entries deleted, reaching entries
 * added). Walked by entries, every term of the index made a [term, postings] pair at every segment:
 * 550 MB of garbage in a first save of 50,000 notes, nine tenths of all it allocated, and a
 * collection of the young generation every 60 ms.
 */
interface TermWalk {
  readonly names: Iterator<string>;
  readonly lists: Iterator<TermPostings>;
  readonly rowOf: Map<number, number>;
  readonly first: number;
  readonly end: number;
  readonly out: Uint32Appender;
  /** The segment's terms found so far. */
  readonly terms: string[];
}

/**
 * Walks the next TERMS_PER_CHECK terms (fewer once NUMBERS_PER_CHECK numbers are written), encoding
 * those with postings in the segment's range; false once every term was walked. Every term is
 * counted as walked: the segment of a save after one edit holds a few dozen of the index's terms,
 * and looking at the clock only at those walked all 41,000 terms of 100,000 notes in one slice
 * (26–36 ms of work where a slice is 12). Synchronous, so the optimiser sees each step's result
 * object die in it and allocates none.
 */
function encodeSomeTerms(walk: TermWalk): boolean {
  const { names, lists, rowOf, first, end, out, terms } = walk;
  const numbersBefore = out.length;
  for (let visited = 0; visited < TERMS_PER_CHECK && out.length - numbersBefore <= NUMBERS_PER_CHECK; visited++) {
    const list = lists.next();
    const name = names.next();
    if (list.done === true || name.done === true) return false;
    if (hasPostingsIn(list.value, first, end) && encodeTerm(list.value, rowOf, first, end, out)) terms.push(name.value);
  }
  return true;
}

/** Appends one term's postings of the rows in `rowOf`; false (nothing appended) when it has none. */
function encodeTerm(postings: TermPostings, rowOf: Map<number, number>, first: number, end: number, out: Uint32Appender): boolean {
  const start = out.length;
  out.push(0);
  let fields = 0;
  for (let fieldId = 0; fieldId < postings.length; fieldId++) {
    const list = postings[fieldId];
    if (list === undefined) continue;
    const fieldStart = out.length;
    out.push(fieldId);
    out.push(0);
    let n = 0;
    for (let j = lowerBound(list, first); j < list.length && postingNote(list[j]) < end; j++) {
      const row = rowOf.get(postingNote(list[j]));
      if (row === undefined) continue; // a note that left; MiniSearch has not cleaned up after it yet
      out.push(row);
      out.push(postingCount(list[j]));
      n++;
    }
    if (n === 0) out.length = fieldStart;
    else {
      out.set(fieldStart + 1, n);
      fields++;
    }
  }
  if (fields === 0) out.length = start;
  else out.set(start, fields);
  return fields > 0;
}

/**
 * Whole numbers below 2^32 appended to a typed array that doubles when full: a segment's postings
 * as they are written. Its room is outside the JS heap; an array of numbers grown by pushes left
 * each save tens of MB of outgrown copies in the old generation, and the collector's pause at the
 * end of a save grew with them.
 */
export class Uint32Appender {
  private buffer = new Uint32Array(1 << 16);
  /** How many numbers are written; set lower to drop the last ones. */
  length = 0;

  push(value: number): void {
    if (this.length === this.buffer.length) this.buffer = grown(this.buffer, this.buffer.length * 2);
    this.buffer[this.length++] = value;
  }

  set(at: number, value: number): void {
    this.buffer[at] = value;
  }

  /** What was written, in an array of exactly its size. */
  written(): Uint32Array {
    return this.buffer.slice(0, this.length);
  }
}

/**
 * Puts a segment's notes and postings into the engine (and each note through `remember`), or says
 * why it cannot be used. On failure the engine holds part of the segment: the caller starts over.
 */
export async function readSegment(value: unknown, entry: SegmentEntry, engine: SearchEngine, remember: (note: IndexedNote) => void, slice: WorkSlice): Promise<RebuildReason | null> {
  const where = `segment ${entry.name}`;
  if (!isRecord(value) || value.format !== SEGMENT_FORMAT) return { kind: "corrupt", detail: `${where} is not a segment` };
  if (value.version !== INDEX_FORMAT_VERSION || value.first !== entry.first || value.end !== entry.end) return { kind: "inconsistent" };
  const { notes, terms, postings } = value;
  if (!Array.isArray(notes) || !Array.isArray(terms) || !(postings instanceof Uint32Array)) return { kind: "corrupt", detail: `${where} has the wrong shape` };
  if (notes.length !== entry.notes) return { kind: "inconsistent" };
  const rows = restoreRows(notes, entry, engine, remember, where);
  if (!rows.ok) return rows.reason;
  const problem = await restorePostings(terms, postings, rows.shortIds, engine, slice);
  return problem ? { kind: "corrupt", detail: `the postings of ${where} ${problem}` } : null;
}

type RowsRead = { ok: true; shortIds: number[] } | { ok: false; reason: RebuildReason };

/** Puts the segment's notes back; each row's short id (-1 for a note that left), or why the rows cannot be used. */
function restoreRows(rows: unknown[], entry: SegmentEntry, engine: SearchEngine, remember: (note: IndexedNote) => void, where: string): RowsRead {
  const left = new Set(entry.left);
  // The first notes restored start the averages afresh (whatever the manifest said).
  const averages = engine.documentCount === 0 ? FIELDS.map(() => 0) : engine.averageFieldLengths;
  const shortIds: number[] = [];
  let leftRows = 0;
  let previous = entry.first - 1;
  for (const [i, row] of rows.entries()) {
    const read = noteFromRow(row);
    if (!read || read.engine.shortId <= previous || read.engine.shortId >= entry.end) {
      return { ok: false, reason: { kind: "corrupt", detail: `note ${i + 1} of ${rows.length} of ${where} has the wrong shape` } };
    }
    previous = read.engine.shortId;
    if (left.has(read.engine.shortId)) {
      shortIds.push(-1);
      leftRows++;
      continue;
    }
    // One note in two segments: the segments are not from one save.
    if (engine.has(read.note.path)) return { ok: false, reason: { kind: "inconsistent" } };
    engine.restoreNote(read.engine);
    withOneMore(averages, engine.documentCount - 1, read.engine.fieldLengths);
    remember(read.note);
    shortIds.push(read.engine.shortId);
  }
  engine.restoreCounters(engine.nextShortId, averages);
  // Every note the manifest says left must be one of these.
  return leftRows === left.size ? { ok: true, shortIds } : { ok: false, reason: { kind: "inconsistent" } };
}

/**
 * Each field's average length with one note more, as MiniSearch's `add` keeps it (so an index
 * loaded in short-id order averages as one built in that order). The manifest's averages are never
 * read: a NaN, negative or huge one there would skew every score, silently and for good.
 */
function withOneMore(averages: number[], notesBefore: number, fieldLengths: number[]): void {
  for (let f = 0; f < fieldLengths.length; f++) {
    averages[f] = notesBefore === 0 ? fieldLengths[f] : (averages[f] * notesBefore + fieldLengths[f]) / (notesBefore + 1);
  }
}

/** Decodes the postings (see SegmentPart), skipping notes that left; a description of the first thing wrong, or null. */
async function restorePostings(terms: unknown[], data: Uint32Array, shortIds: number[], engine: SearchEngine, slice: WorkSlice): Promise<string | null> {
  /** One field's postings as read, before they join the engine's (reused: it only ever grows). */
  const read: number[] = [];
  let at = 0;
  let visited = 0;
  let checkedAt = 0;
  for (const term of terms) {
    if (++visited % TERMS_PER_CHECK === 0 || at - checkedAt > NUMBERS_PER_CHECK) {
      checkedAt = at;
      if (slice.over()) await slice.pause();
    }
    if (typeof term !== "string" || at >= data.length) return "do not match its terms";
    // The analyser never makes an empty term (the engine skips it), so a saved one is not ours.
    if (term === "") return "name an empty term";
    const fields = data[at++];
    if (fields < 1 || fields > FIELDS.length) return "name too many fields";
    let postings: TermPostings | undefined;
    let seenFields = 0;
    for (let f = 0; f < fields; f++) {
      const fieldId = data[at];
      const n = data[at + 1];
      at += 2;
      if (fieldId >= FIELDS.length || (seenFields & (1 << fieldId)) !== 0) return "name an unknown field";
      seenFields |= 1 << fieldId;
      if (n < 1 || at + 2 * n > data.length) return "are cut short";
      let previousRow = -1;
      let kept = 0;
      for (let k = 0; k < n; k++, at += 2) {
        const row = data[at];
        const count = data[at + 1];
        if (row <= previousRow || row >= shortIds.length || count < 1 || count > MAX_COUNT) return "name a note out of order";
        previousRow = row;
        if (shortIds[row] >= 0) read[kept++] = packPosting(shortIds[row], count);
      }
      if (kept === 0) continue;
      postings ??= engine.postingsFor(term);
      // Segments and rows ascend, so only a term listed twice can come back to an earlier note.
      if (!appendSavedPostings(postings, fieldId, read, kept)) return "name a note out of order";
    }
  }
  return at === data.length ? null : "do not match its terms";
}

function noteFromRow(row: unknown): { note: IndexedNote; engine: EngineNote } | null {
  if (!Array.isArray(row) || row.length !== 10) return null;
  const [shortId, path, mtime, size, title, aliases, tags, sourceUrls, problems, fieldLengths] = row as unknown[];
  // A path, a size and a time a file can have: a size is a count of bytes, a path is never empty.
  if (!isCount(shortId) || typeof path !== "string" || path === "" || typeof mtime !== "number" || !Number.isFinite(mtime) || !isCount(size) || typeof title !== "string") return null;
  if (!isStringArray(aliases) || !isStringArray(tags) || !isStringArray(sourceUrls)) return null;
  if (!Array.isArray(problems) || !everyItem(problems, isNoteProblem)) return null;
  // A field's length counts the distinct terms in it.
  if (!Array.isArray(fieldLengths) || fieldLengths.length !== FIELDS.length || !everyItem(fieldLengths, isFieldLength)) return null;
  return { note: { path, mtime, size, title, aliases, tags, sourceUrls, problems }, engine: { shortId, path, fieldLengths } };
}

// ── checks ─────────────────────────────────────────────────────────────────────────────────

/** The most of a version found that the reason keeps: a version is a number, and what is not one is damage, not something to print whole. */
const VERSION_SHOWN = 24;

/**
 * `String()` would call a parsed object's own `toString` key, which a hand-edited part may set to
 * anything. Cut to VERSION_SHOWN characters: a version of a million characters (a damaged or hostile
 * manifest) was printed whole in `index`'s "cache version … ≠ 18", its --json too.
 */
function versionAsWritten(version: unknown): string {
  let written: string;
  if (typeof version !== "object" || version === null) written = String(version);
  else {
    try {
      written = JSON.stringify(version);
    } catch {
      return "an object";
    }
  }
  return written.length > VERSION_SHOWN ? `${written.slice(0, VERSION_SHOWN)}…` : written;
}

function rebuild(reason: RebuildReason): ManifestRead {
  return { ok: false, reason };
}

function corrupt(detail: string): ManifestRead {
  return rebuild({ kind: "corrupt", detail });
}

function isNoteProblem(value: unknown): value is NoteProblem {
  return isRecord(value) && typeof value.kind === "string" && Object.hasOwn(PROBLEM_KINDS, value.kind) && typeof value.message === "string";
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && everyItem(value, (v) => typeof v === "string");
}

/**
 * A field's running average length, as MiniSearch keeps it: NaN once the last note of an index
 * left (it divides by zero; JSON writes null), and rounding can take it a hair below zero, so any
 * number but an infinite one will do (MiniSearch reads NaN and null as 0 when a note is added; an
 * infinite one would turn into NaN). Only that is checked: a load computes the averages again from
 * the rows (`withOneMore`), so only an index of no notes keeps these.
 */
function isAverageLengthList(value: unknown[]): boolean {
  return everyItem(value, (n): n is number | null => n === null || (typeof n === "number" && n !== Number.POSITIVE_INFINITY && n !== Number.NEGATIVE_INFINITY));
}

/** `every` that also visits holes (`Array.prototype.every` skips them; a restored array may have them). */
function everyItem<T>(list: unknown[], test: (item: unknown) => item is T): list is T[] {
  for (let i = 0; i < list.length; i++) if (!test(list[i])) return false;
  return true;
}

function isFieldLength(value: unknown): value is number {
  return isCount(value) && value <= MAX_FIELD_LENGTH;
}

/** A whole number from 0 that survives being written as text (1e21 is an integer, but names no segment). */
function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}
