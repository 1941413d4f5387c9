// What the cache holds, as far as the index knows, and how to bring it up to date. A save writes
// the notes added since the last one as new segments, notes that left as a list in the manifest,
// and rewrites a segment only when half its notes have left or small segments pile up; the
// manifest goes last, so a save cut short leaves the previous cache whole. A load reads the
// manifest, then one segment at a time (the next one already on its way), pausing between them.
// The shapes and their checks live in cache-file.ts.
//
// Another process may save into the same cache (the MCP server beside `vault-research index`, or
// the plugin reloaded while its last save ran). Each save names its segments with a token of its
// own, so no name ever holds other contents than a manifest listing it expects. A segment a manifest
// named may be loaded or kept by any process that read that manifest, so a save takes one away only
// ten minutes after its own manifest stopped naming it (the manifest it replaces, another process's
// too, is read just before it is written over), and writes again a segment it keeps that
// is gone: at its start, and once more just before its manifest, with those it wrote (another's save
// may take one away meanwhile). At once it takes away only the parts it wrote that no manifest named
// (a save of its own cut short); another process's unlisted part is left until it was written ten minutes ago
// (when the cache can tell) or has lain unlisted that long, since the other's save writes its
// segments before the manifest that names them. A load that finds a segment gone starts again from
// the manifest as it is now, when another save has replaced the one it read (unlisted-parts.ts, the
// vectors' rule too).
import type { IndexCache } from "../ports";
import { errorMessage } from "../text/error-message";
import { createManifest, MANIFEST_PART, newSaveToken, readManifest, readSegment, segmentName, Uint32Appender, writeSegment, type SegmentEntry } from "./cache-file";
import type { RebuildReason } from "./rebuild-reason";
import type { SearchEngine } from "./search-engine";
import type { IndexedNote } from "./types";
import { loadFromLatestManifest, storedNames, UnlistedParts, type SaveClock } from "./unlisted-parts";
import { waitOn, type WorkSlice } from "./work-slice";
import { isLanguagePartName } from "./vault-language/note-vector-file";

/** Notes per segment: a save after one edit rewrites at most this many notes' postings. */
const SEGMENT_NOTES = 1000;
/** Segments under half full that may pile up before they are merged. */
const MAX_SMALL_SEGMENTS = 4;

/** What loading and saving need of the index. */
export interface PersistedIndex {
  engine: SearchEngine;
  note(path: string): IndexedNote | undefined;
  /** A note read from the cache (its postings are already in the engine). */
  remember(note: IndexedNote): void;
  /** Slices of work with yields to the UI between (where a status bar counts the notes loaded so far). */
  slice(): WorkSlice;
  /**
   * The index emptied, for a load to start again from a manifest that replaced the one it began with
   * (a part that one named was gone meanwhile). Without it, a part found gone once others are in the
   * index is a rebuild; one found gone before (the load lists the cache first) is read again all the same.
   */
  startOver?(): PersistedIndex;
}

/** A segment the save keeps as it is, or a range it writes afresh from the index. */
type PlannedSegment = { keep: SegmentEntry } | { first: number; end: number };

/** What one save writes with: its token, its slices, its room for postings, and the rows of each segment it wrote. */
interface SaveRun {
  cache: IndexCache;
  index: PersistedIndex;
  token: string;
  slice: WorkSlice;
  room: Uint32Appender;
  written: Map<string, Set<number>>;
}

type PartRead = { ok: true; value: unknown } | { ok: false; error: unknown };

export class SavedIndex {
  /** The cache's segments as its manifest lists them; null when unknown (the next save writes all). */
  private segments: SegmentEntry[] | null = null;
  /** Notes with short ids below this were in the index when the cache was last saved or loaded. */
  private savedEnd = 0;
  /** While a save runs, the end it saves up to. */
  private savingEnd = 0;
  /** Notes below `savedEnd` that have left the index since. */
  private readonly leftSinceSave = new Set<number>();
  /** Bumped by `forget`: a save that began before it does not record what it wrote. */
  private epoch = 0;
  private queue: Promise<void> = Promise.resolve();
  /** Which unlisted parts a save may take away, and when (unlisted-parts.ts, the vectors' rule too). */
  private readonly unlisted = new UnlistedParts();

  /** The index was emptied or rebuilt: the cache no longer describes it. */
  forget(): void {
    this.segments = null;
    this.leftSinceSave.clear();
    this.savedEnd = 0;
    this.epoch++;
  }

  /** A note left the index (removed, or about to be indexed again under a new short id). */
  noteLeft(shortId: number): void {
    if ((this.segments !== null || this.savingEnd > 0) && shortId < Math.max(this.savedEnd, this.savingEnd)) this.leftSinceSave.add(shortId);
  }

  /**
   * Loads the cache into `index` (an empty one); null when it loaded, else why not (the index is then
   * partly filled). A segment gone since the manifest was read is looked for in the manifest as it is
   * now (`loadFromLatestManifest`): another process's save replaced it, and a rebuild would say "incomplete".
   */
  async load(cache: IndexCache, fingerprint: string, index: PersistedIndex): Promise<RebuildReason | null> {
    let into = index;
    let filled = false;
    return loadFromLatestManifest(async () => {
      if (filled) into = into.startOver!();
      const attempt = await this.loadOnce(cache, fingerprint, into);
      filled = attempt.filled;
      const again = attempt.missing && (!filled || into.startOver !== undefined);
      return { outcome: attempt.reason, replaced: again ? () => manifestReplaced(cache, attempt.manifest) : null };
    });
  }

  /** One load from the manifest as it is now: why not, if it did not load; whether a segment it names was gone, and whether any was put into the index. */
  private async loadOnce(cache: IndexCache, fingerprint: string, index: PersistedIndex): Promise<{ reason: RebuildReason | null; manifest: unknown; missing: boolean; filled: boolean }> {
    const manifestRead = await readPart(cache, MANIFEST_PART);
    const stop = (reason: RebuildReason, missing = false, filled = false) => ({ reason, manifest: manifestRead.ok ? manifestRead.value : null, missing, filled });
    if (!manifestRead.ok) return stop({ kind: "unreadable", detail: errorMessage(manifestRead.error) });
    if (manifestRead.value === null || manifestRead.value === undefined) return stop({ kind: "no_cache" });
    const read = readManifest(manifestRead.value, fingerprint);
    if (!read.ok) return stop(read.reason);
    const { segments, nextId, averageFieldLength } = read.manifest;
    // Looked for before any is read: one gone is known before the index holds anything (a listing that fails checks nothing).
    const stored = await storedNames(cache);
    if (stored !== null && segments.some((s) => !stored.has(s.name))) return stop({ kind: "incomplete" }, true);
    index.engine.restoreCounters(nextId, [...averageFieldLength]);
    const slice = index.slice();
    let next = segments.length > 0 ? readAhead(cache, segments[0].name) : null;
    for (const [i, entry] of segments.entries()) {
      const waited = !next!.arrived();
      const part = await waitOn(slice, next!.read);
      // A part that arrived while we waited was decoded (by the adapter) in this same turn of the
      // event loop: the UI gets a turn before a slice of ours is added to that.
      if (waited) await slice.pause();
      next = i + 1 < segments.length ? readAhead(cache, segments[i + 1].name) : null;
      if (!part.ok) return stop({ kind: "unreadable", detail: errorMessage(part.error) }, false, true);
      if (part.value === null || part.value === undefined) return stop({ kind: "incomplete" }, true, i > 0);
      const problem = await readSegment(part.value, entry, index.engine, (note) => index.remember(note), slice);
      if (problem) return stop(problem, false, true);
      await slice.pause();
    }
    this.forget();
    this.segments = segments.map((s) => ({ ...s, left: [...s.left] }));
    this.savedEnd = nextId;
    this.unlisted.loaded(segments.map((s) => s.name));
    return { reason: null, manifest: manifestRead.value, missing: false, filled: true };
  }

  /**
   * Saves what changed since the last save or load (everything, the first time). One save at a time.
   * `clock`: its wall time now dates the manifest; the waits before unlisted parts go are measured on it too.
   */
  save(cache: IndexCache, fingerprint: string, clock: SaveClock, index: PersistedIndex): Promise<void> {
    const savedAt = clock.now();
    const run = this.queue.then(() => this.saveNow(cache, fingerprint, savedAt, clock, index));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async saveNow(cache: IndexCache, fingerprint: string, savedAt: number, clock: SaveClock, index: PersistedIndex): Promise<void> {
    // A listing that fails checks nothing: the writes then name what is wrong with the cache's
    // place in their own words (a folder that cannot be made), as they did before it was listed.
    const stored = await storedNames(cache);
    const { engine } = index;
    const epoch = this.epoch;
    const end = engine.nextShortId;
    const run: SaveRun = { cache, index, token: newSaveToken(), slice: index.slice(), room: new Uint32Appender(), written: new Map() };
    this.savingEnd = end;
    try {
      const plan = await planSegments(this.segments, stored, this.leftSinceSave, engine, this.savedEnd, end, run.slice);
      const entries: SegmentEntry[] = [];
      for (const planned of plan) {
        const entry = "keep" in planned ? planned.keep : await this.writeRange(run, planned.first, planned.end);
        if (entry) entries.push(entry);
      }
      const segments = await this.writeGoneAgain(run, entries);
      const applied = [...this.leftSinceSave];
      const manifest = createManifest(fingerprint, savedAt, engine, withLeft(segments, applied, run.written));
      for (const id of applied) this.leftSinceSave.delete(id);
      this.unlisted.replacing(await namesInStoredManifest(cache));
      try {
        await cache.write(MANIFEST_PART, manifest);
      } catch (error) {
        for (const id of applied) this.leftSinceSave.add(id);
        throw error;
      }
      this.unlisted.nameParts(manifest.segments.map((s) => s.name), clock);
      if (epoch === this.epoch) {
        this.segments = manifest.segments;
        this.savedEnd = end;
      }
      await this.removeUnlisted(cache, manifest.segments, clock);
    } finally {
      this.savingEnd = 0;
    }
  }

  /** Writes the live notes in [first, end) as a segment of this save; its entry, or null when none is live. */
  private async writeRange(run: SaveRun, first: number, end: number): Promise<SegmentEntry | null> {
    const { part, notes } = await writeSegment(run.index.engine, (path) => run.index.note(path), first, end, run.slice, run.room);
    if (notes === 0) return null;
    const name = segmentName(run.token, first);
    // The adapter encodes the part as soon as it is handed over: that gets a turn of its own.
    await run.slice.pause();
    this.unlisted.writing(name);
    await run.cache.write(name, part);
    // The pause just below comes before any more work, so a cache that answered without a turn adds
    // nothing to this slice; restarted so the slice's reported length leaves out the write's I/O.
    run.slice.restart();
    run.written.set(name, new Set(part.notes.map((row) => row[0])));
    await run.slice.pause();
    return { name, first, end, notes, left: [] };
  }

  /**
   * The entries, each segment that is no longer stored written again from the index: another
   * process's save may have taken it away since this save listed the cache (a kept one, by a process
   * that read an older manifest and dates the part by its writing) or since this save wrote it (its
   * date read against a wall clock set forward since: a rebuild's save writes every segment, and
   * looking only at kept ones it named them all, gone or not). Named missing, it cost the next start a
   * rebuild of the whole vault. A listing that fails checks nothing, as at the save's start.
   */
  private async writeGoneAgain(run: SaveRun, entries: SegmentEntry[]): Promise<SegmentEntry[]> {
    if (entries.length === 0) return entries;
    const stored = await storedNames(run.cache);
    if (stored === null || entries.every((entry) => stored.has(entry.name))) return entries;
    const out: SegmentEntry[] = [];
    for (const entry of entries) {
      const again = stored.has(entry.name) ? entry : await this.writeRange(run, entry.first, entry.end);
      if (again) out.push(again);
    }
    return out;
  }

  /** Drops parts the manifest does not list: replaced segments, and leftovers of saves cut short
   * (not the vault language's meanings: VaultIndex saves them beside the index, and only when they change).
   * A part someone may still name goes only once UNLISTED_PART_GRACE_MS old (read on the save's
   * clock; see unlisted-parts.ts).
   * Best effort: the manifest is written by then, so the save is done; a listing or removal that fails
   * (a cache folder that can be written but not listed) leaves only unlisted parts, which the next save
   * takes away, and must not have the save reported as failed, its cache "not saved". */
  private async removeUnlisted(cache: IndexCache, segments: SegmentEntry[], clock: SaveClock): Promise<void> {
    const listed = new Set([MANIFEST_PART, ...segments.map((s) => s.name)]);
    try {
      const going = await this.unlisted.partsToGo(cache, await cache.names(), listed, (name) => !isLanguagePartName(name), clock);
      if (going.length === 0) return;
      await cache.remove(going);
      this.unlisted.removed(going);
    } catch {
      // Left for the next save.
    }
  }
}

/**
 * Whether the stored manifest is no longer `before` (the one a load began with): each save's names
 * segments of its own token, or at least dates itself. One that cannot be read is not known to be another.
 */
async function manifestReplaced(cache: IndexCache, before: unknown): Promise<boolean> {
  const now = await readPart(cache, MANIFEST_PART);
  if (!now.ok) return false;
  // Nor is one that cannot be written out: a key the checks never look at may hold a list whose
  // length says 4 billion, and the error it threw was the load's reason ("Invalid string length").
  try {
    return JSON.stringify(now.value) !== JSON.stringify(before);
  } catch {
    return false;
  }
}

/**
 * The segments the stored manifest names, which this save's manifest is about to replace: another
 * process's (under any settings) as well as ours. None when there is none or it cannot be read, when
 * no load could read it either.
 */
async function namesInStoredManifest(cache: IndexCache): Promise<string[]> {
  // Its names only: one saved under other settings, or by another version, names parts all the same.
  const read = await readPart(cache, MANIFEST_PART);
  const segments = read.ok ? (read.value as { segments?: unknown } | null)?.segments : undefined;
  if (!Array.isArray(segments)) return [];
  // Up to the first entry that names none: no save writes a list with a hole or a nameless entry,
  // and no load reads past one. A list's length is only a number (v8 and IndexedDB give back one of
  // 4 billion holes from a few bytes): walked whole, it froze the save after a damaged manifest.
  const names: string[] = [];
  for (let i = 0; i < segments.length; i++) {
    const name = (segments[i] as { name?: unknown } | null | undefined)?.name;
    if (typeof name !== "string") break;
    names.push(name);
  }
  return names;
}

/**
 * The segments after this save: kept ones, rewritten ones, and the notes added since as new ones.
 * `stored` names the parts the cache holds (null: unknown). In slices: a first save looks up every
 * short id, and that walk, unsliced, was most of its first slice (7–11 ms of CPU at 50,000 notes, 12
 * at 100,000; 3–5 ms since).
 */
async function planSegments(existing: SegmentEntry[] | null, stored: ReadonlySet<string> | null, left: ReadonlySet<number>, engine: SearchEngine, savedEnd: number, end: number, slice: WorkSlice): Promise<PlannedSegment[]> {
  const plan: { planned: PlannedSegment; first: number; end: number; live: number }[] = [];
  // An array walked by index: a Set walked once a segment (500 left, 100 segments) made 2 MB of iterator steps.
  const leftIds = Array.from(left);
  for (const entry of existing ?? []) {
    if (slice.over()) await slice.pause();
    let live = entry.notes - entry.left.length;
    for (let i = 0; i < leftIds.length; i++) {
      const id = leftIds[i];
      if (id >= entry.first && id < entry.end && !entry.left.includes(id)) live--;
    }
    // A segment half emptied is written again with what is left, and one emptied is dropped; one
    // that is gone (another process's save removed it) is written again whole.
    if (live <= 0) continue;
    const planned = live * 2 <= entry.notes || (stored !== null && !stored.has(entry.name)) ? { first: entry.first, end: entry.end } : { keep: entry };
    plan.push({ planned, first: entry.first, end: entry.end, live });
  }
  for (const range of await chunkLiveNotes(engine, existing ? savedEnd : 0, end, slice)) plan.push({ planned: range, ...range });
  return mergeSmall(plan);
}

/** Short ids looked up between two looks at the clock. */
const IDS_PER_CHECK = 1024;

/** Ranges of at most SEGMENT_NOTES live notes each, covering [first, end). */
async function chunkLiveNotes(engine: SearchEngine, first: number, end: number, slice: WorkSlice): Promise<{ first: number; end: number; live: number }[]> {
  const ranges: { first: number; end: number; live: number }[] = [];
  let start = first;
  let live = 0;
  for (let shortId = first; shortId < end; shortId++) {
    if ((shortId - first) % IDS_PER_CHECK === IDS_PER_CHECK - 1 && slice.over()) await slice.pause();
    if (!engine.holds(shortId)) continue;
    if (live === SEGMENT_NOTES) {
      ranges.push({ first: start, end: shortId, live });
      start = shortId;
      live = 0;
    }
    live++;
  }
  if (live > 0) ranges.push({ first: start, end, live });
  return ranges;
}

/** When small segments pile up, neighbours that fit in one are written as one. */
function mergeSmall(plan: { planned: PlannedSegment; first: number; end: number; live: number }[]): PlannedSegment[] {
  const isSmall = (live: number) => live < SEGMENT_NOTES / 2;
  if (plan.filter((p) => isSmall(p.live)).length <= MAX_SMALL_SEGMENTS) return plan.map((p) => p.planned);
  const out: PlannedSegment[] = [];
  for (let i = 0; i < plan.length; ) {
    let j = i + 1;
    let live = plan[i].live;
    while (isSmall(plan[i].live) && j < plan.length && isSmall(plan[j].live) && live + plan[j].live <= SEGMENT_NOTES) live += plan[j++].live;
    out.push(j - i > 1 ? { first: plan[i].first, end: plan[j - 1].end } : plan[i].planned);
    i = j;
  }
  return out;
}

/** Each segment's notes that left: kept segments gain those in their range, new ones those among their rows. */
function withLeft(entries: SegmentEntry[], left: number[], written: Map<string, Set<number>>): SegmentEntry[] {
  return entries.map((entry) => {
    const rows = written.get(entry.name);
    const gone = left.filter((id) => id >= entry.first && id < entry.end && (rows ? rows.has(id) : !entry.left.includes(id)));
    return gone.length === 0 ? entry : { ...entry, left: [...entry.left, ...gone].sort((a, b) => a - b) };
  });
}

/** A part on its way, and whether it has arrived. */
function readAhead(cache: IndexCache, name: string): { read: Promise<PartRead>; arrived: () => boolean } {
  let arrived = false;
  const read = readPart(cache, name).then((part) => {
    arrived = true;
    return part;
  });
  return { read, arrived: () => arrived };
}

/** A part's value, or the error reading it failed with (never a rejection left unhandled). */
function readPart(cache: IndexCache, name: string): Promise<PartRead> {
  return cache.read(name).then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}
