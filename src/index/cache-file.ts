// The saved index: a versioned JSON file of the notes' metadata and MiniSearch's own saved form.
// Reading it checks every part the index later relies on, so a cache that parses but has the
// wrong shape (another version's, a half-written one, a hand-edited one) comes back as a reason
// to rebuild, never as a crash in a later search.
import type { AsPlainObject } from "minisearch";
import { errorMessage } from "../text/error-message";
import type { RebuildReason } from "./rebuild-reason";
import { FIELDS } from "./search-engine";
import type { IndexedNote, NoteProblem, NoteProblemKind } from "./types";

/** Bump when the analyser or the document shape changes: old caches are then rebuilt. */
export const INDEX_FORMAT_VERSION = 5;

const FORMAT = "vault-research-index";

/** A note as one array, in this order: the file stays about half the size of named fields. */
type NoteRow = [path: string, mtime: number, size: number, title: string, aliases: string[], tags: string[], sourceUrls: string[], problems: NoteProblem[]];

interface CacheFile {
  format: typeof FORMAT;
  version: number;
  /** What the settings that shape the index were (see VaultIndex's fingerprint). */
  fingerprint: string;
  savedAt: number;
  notes: NoteRow[];
  engine: AsPlainObject;
}

export interface CacheContents {
  notes: IndexedNote[];
  engine: AsPlainObject;
}

export type CacheRead = { ok: true; contents: CacheContents } | { ok: false; reason: RebuildReason };

/** Every problem kind, so a saved problem of a kind this version does not know is caught. */
const PROBLEM_KINDS: Record<NoteProblemKind, true> = { frontmatter: true, encoding: true, read: true, too_large: true };

export function serializeCacheFile(fingerprint: string, savedAt: number, notes: Iterable<IndexedNote>, engine: AsPlainObject): string {
  const file: CacheFile = {
    format: FORMAT,
    version: INDEX_FORMAT_VERSION,
    fingerprint,
    savedAt,
    notes: Array.from(notes, (n) => [n.path, n.mtime, n.size, n.title, n.aliases, n.tags, n.sourceUrls, n.problems]),
    engine,
  };
  return JSON.stringify(file);
}

/** The cache's contents, or why they cannot be used. `fingerprint` is the current settings'. */
export function readCacheFile(raw: string, fingerprint: string): CacheRead {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    return rebuild({ kind: "corrupt", detail: errorMessage(error) });
  }
  if (!isRecord(parsed) || parsed.format !== FORMAT) return rebuild({ kind: "not_an_index" });
  if (parsed.version !== INDEX_FORMAT_VERSION) return rebuild({ kind: "format_changed", from: versionAsWritten(parsed.version), to: INDEX_FORMAT_VERSION });
  if (parsed.fingerprint !== fingerprint) return rebuild({ kind: "settings_changed" });
  const { notes, engine } = parsed;
  if (!Array.isArray(notes) || !isRecord(engine)) return rebuild({ kind: "incomplete" });
  const rows: IndexedNote[] = [];
  for (const [i, row] of notes.entries()) {
    const note = noteFromRow(row);
    if (!note) return rebuild({ kind: "corrupt", detail: `note ${i + 1} of ${notes.length} has the wrong shape` });
    rows.push(note);
  }
  const engineProblem = engineShapeProblem(engine);
  if (engineProblem) return rebuild({ kind: "corrupt", detail: `the search data's ${engineProblem} has the wrong shape` });
  return { ok: true, contents: { notes: rows, engine: engine as AsPlainObject } };
}

/** `String()` would call a parsed object's own `toString` key, which JSON may set to anything. */
function versionAsWritten(version: unknown): string {
  return typeof version === "object" && version !== null ? JSON.stringify(version) : String(version);
}

function rebuild(reason: RebuildReason): CacheRead {
  return { ok: false, reason };
}

function noteFromRow(row: unknown): IndexedNote | null {
  if (!Array.isArray(row) || row.length !== 8) return null;
  const [path, mtime, size, title, aliases, tags, sourceUrls, problems] = row as unknown[];
  if (typeof path !== "string" || typeof mtime !== "number" || typeof size !== "number" || typeof title !== "string") return null;
  if (!isStringArray(aliases) || !isStringArray(tags) || !isStringArray(sourceUrls)) return null;
  if (!Array.isArray(problems) || !problems.every(isNoteProblem)) return null;
  return { path, mtime, size, title, aliases, tags, sourceUrls, problems };
}

function isNoteProblem(value: unknown): value is NoteProblem {
  return isRecord(value) && typeof value.kind === "string" && Object.hasOwn(PROBLEM_KINDS, value.kind) && typeof value.message === "string";
}

/**
 * The first part of MiniSearch's saved form that searching would trip over, or null. MiniSearch
 * checks its own serialisation version when loading; what it does not check is whether the parts
 * agree: a note without field lengths, for one, loads fine and crashes the first search it matches.
 */
function engineShapeProblem(engine: Record<string, unknown>): string | null {
  const { documentCount, nextId, documentIds, fieldIds, fieldLength, averageFieldLength, storedFields, index, dirtCount } = engine;
  if (!isCount(documentCount) || typeof nextId !== "number" || (dirtCount !== undefined && typeof dirtCount !== "number")) return "counts";
  if (!isRecord(documentIds) || !isRecord(fieldLength) || !isRecord(storedFields)) return "note table";
  if (!isRecord(fieldIds) || !FIELDS.every((f) => isCount(fieldIds[f]) && fieldIds[f] < FIELDS.length)) return "field list";
  // Lengths are only arithmetic to MiniSearch: a null (JSON's NaN) skews a score, it cannot crash.
  if (!isLengthList(averageFieldLength)) return "field lengths";
  const shortIds = Object.keys(documentIds);
  if (shortIds.length !== documentCount) return "note count";
  for (const shortId of shortIds) {
    // A short id at or past `nextId` would be handed out again to the next note added.
    if (typeof documentIds[shortId] !== "string" || !(Number(shortId) < nextId)) return "note table";
    if (!isLengthList(fieldLength[shortId])) return "note lengths";
  }
  if (!Array.isArray(index)) return "term index";
  // Term → field → postings. The postings themselves (note → count) are not visited: a wrong count
  // skews a score, a note the cache does not list is dropped by MiniSearch, and every term of the
  // vault would have to be read again on each start.
  for (const entry of index) {
    if (!Array.isArray(entry) || typeof entry[0] !== "string" || !isRecord(entry[1])) return "term index";
    for (const fieldId in entry[1]) if (!isRecord(entry[1][fieldId])) return "term index";
  }
  return null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === "string");
}

function isLengthList(value: unknown): boolean {
  return Array.isArray(value) && value.every((n) => typeof n === "number" || n === null);
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}
