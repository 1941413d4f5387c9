// When a save may take away a part of a cache its manifest does not list: the one rule of the index's
// saves (saved-index.ts) and the vectors' (embeddings/vector-parts.ts), both of which another process
// may save into at the same time (the MCP server beside the CLI, the plugin reloaded mid-save).
//
// Such a save writes its parts first and the manifest naming them last, so a part no manifest lists
// may be one it is still writing; and a part a manifest stopped naming may be one a process that read
// the older manifest is loading, or keeps in its next save. So a part goes at once only when this
// process wrote it and no manifest named it (a save of its own cut short); a part a manifest of ours
// (or one we loaded, or the one a save of ours replaced: another process's) named goes ten minutes
// after a manifest of ours stopped naming it; any other once it was written ten minutes ago (when the
// cache can tell) or a save of ours first found it unlisted that long ago.
//
// A load reads the manifest, then the parts it names; when one is gone, another save has most likely
// replaced that manifest meanwhile (and a process that broke the rule above, or a load held up past
// the ten minutes, let the part go): the load starts again from the manifest as it is now
// (`loadFromLatestManifest`), rather than building or embedding everything again.
//
// The two waits of ours are measured on the clock's monotonic reading: a wall clock set forward (by
// hand, a time sync, a machine waking) made them nothing, and a part went while a process that read
// the manifest naming it was loading it. Only a part's write date, a wall time, is compared with the
// wall clock, less how far this process has seen it set forward since its first look (the wall clock
// gone further than the monotonic one): set forward an hour, a part another process had written a
// moment before read as an hour old, and went before that process's manifest named it. A clock set
// forward before this process's first look it cannot see; for that, a save looks for every part it
// names once more just before its manifest, and writes again one that went.
import { monotonicReading, type Clock } from "../ports";

/** How long an unlisted part someone may still name stays. Longer than another process's save or load
 * takes from reading or writing its first part to its last. */
export const UNLISTED_PART_GRACE_MS = 10 * 60_000;

/** The readings a save's clock gives: its wall time (to compare with a part's write date) and its monotonic one (for the waits). */
export type SaveClock = Pick<Clock, "now" | "monotonicNow">;

/** The part of a cache port that dates its parts (`IndexCache`, `VectorCache`): left out by one that keeps no such time. */
export interface DatedParts {
  /** When the part was last written (wall-clock milliseconds), or null when that is not known. */
  writtenAt?(name: string): Promise<number | null>;
}

/** One process's record of the parts of one cache: which it wrote, which a manifest named, and since when. */
export class UnlistedParts {
  /** Parts this process wrote that no manifest named yet: no other process can hold them. */
  private readonly unnamed = new Set<string>();
  /** The parts the last manifest this process wrote or loaded names (and the one it is replacing): any process that read it may hold them. */
  private named = new Set<string>();
  /** Parts a manifest of ours stopped naming, by that save's monotonic reading. */
  private readonly droppedAt = new Map<string, number>();
  /** Unlisted parts of other processes' saves, by the monotonic reading when a save of ours first found them. */
  private readonly unlistedSince = new Map<string, number>();
  /** This process's first look at a save's clock: how far the wall clock has been set forward since is measured from it. */
  private firstLook: Readings | null = null;

  /** This process is about to write `name` (before the write: a write cut short may still leave it). */
  writing(name: string): void {
    this.unnamed.add(name);
  }

  /** A manifest this process loaded names `names`: another process may hold them too. */
  loaded(names: Iterable<string>): void {
    this.named = new Set(names);
  }

  /**
   * The manifest a save of ours is about to replace names `names`: read just before, it may be another
   * process's, whose parts a process that read it may be loading (written long ago, they went at once,
   * and that load found one missing). They are dropped with the manifest, as of the save's `nameParts`.
   */
  replacing(names: Iterable<string>): void {
    for (const name of names) {
      this.unnamed.delete(name);
      this.named.add(name);
    }
  }

  /** A manifest of ours names `names` now: what the one before named and this one does not is dropped as of the clock's reading now. */
  nameParts(names: Iterable<string>, clock: SaveClock): void {
    const now = this.look(clock).monotonic;
    const next = new Set(names);
    for (const name of this.named) if (!next.has(name)) this.droppedAt.set(name, now);
    for (const name of next) {
      this.unnamed.delete(name);
      this.droppedAt.delete(name);
    }
    this.named = next;
  }

  /**
   * Of the `stored` parts that are `ours` (the cache's kind of part) and not `listed` by the manifest
   * just written, those that may go now (read on the save's `clock`). Parts it first finds unlisted
   * are dated now.
   */
  async partsToGo(cache: DatedParts, stored: readonly string[], listed: ReadonlySet<string>, ours: (name: string) => boolean, clock: SaveClock): Promise<string[]> {
    const now = this.look(clock);
    this.forgetAbsent(new Set(stored), listed);
    const going: string[] = [];
    for (const name of stored) {
      if (listed.has(name) || !ours(name)) continue;
      if (await this.mayGo(cache, name, now)) going.push(name);
    }
    return going;
  }

  /** The parts were taken away. */
  removed(names: Iterable<string>): void {
    for (const name of names) {
      this.unnamed.delete(name);
      this.droppedAt.delete(name);
      this.unlistedSince.delete(name);
    }
  }

  /**
   * The clock's readings now, its wall time less how far it has been set forward since this process's
   * first look (never more: a clock set back leaves dates as they are, and a part "from the future" waits).
   */
  private look(clock: SaveClock): Readings {
    const now: Readings = { wall: clock.now(), monotonic: monotonicReading(clock) };
    this.firstLook ??= now;
    const setForward = now.wall - this.firstLook.wall - (now.monotonic - this.firstLook.monotonic);
    return setForward > 0 ? { ...now, wall: now.wall - setForward } : now;
  }

  /** Lets go of the dates of parts no longer stored, and of parts listed again. */
  private forgetAbsent(present: ReadonlySet<string>, listed: ReadonlySet<string>): void {
    for (const name of this.unnamed) if (!present.has(name)) this.unnamed.delete(name);
    for (const name of this.droppedAt.keys()) if (!present.has(name)) this.droppedAt.delete(name);
    for (const name of this.unlistedSince.keys()) if (!present.has(name) || listed.has(name)) this.unlistedSince.delete(name);
  }

  /**
   * Whether an unlisted part may go now: at once when this process wrote it and no manifest named it;
   * once a manifest of ours stopped naming it UNLISTED_PART_GRACE_MS ago (its write date says nothing
   * of who read the manifest that named it); another process's part once written, or found unlisted
   * by a save of ours, that long ago.
   */
  private async mayGo(cache: DatedParts, name: string, now: Readings): Promise<boolean> {
    if (this.unnamed.has(name)) return true;
    if (this.droppedAt.has(name)) return lainLongEnough(this.droppedAt, name, now.monotonic);
    // A date that cannot be read is none: a rejection here kept every unlisted part, at every save.
    const writtenAt = cache.writtenAt ? await cache.writtenAt(name).catch(() => null) : null;
    if (writtenAt !== null && writtenAt <= now.wall && now.wall - writtenAt >= UNLISTED_PART_GRACE_MS) return true;
    return lainLongEnough(this.unlistedSince, name, now.monotonic);
  }
}

/** One look at a save's clock: its wall time and its monotonic reading. */
interface Readings {
  wall: number;
  monotonic: number;
}

/** Whether the part's date in `since` is UNLISTED_PART_GRACE_MS before `now` (monotonic readings); dates one first found now. */
function lainLongEnough(since: Map<string, number>, name: string, now: number): boolean {
  const from = since.get(name);
  // A reading that went back (a clock with wall time only, set back) counts from now: the part waits
  // at most the grace again, rather than until the clock has caught up with its date.
  if (from === undefined || from > now) {
    since.set(name, now);
    return false;
  }
  return now - from >= UNLISTED_PART_GRACE_MS;
}

/** The names of the stored parts (the index's or the vectors'), or null when they cannot be listed. */
export function storedNames(cache: { names(): Promise<string[]> }): Promise<Set<string> | null> {
  return cache.names().then(
    (names) => new Set(names),
    () => null,
  );
}

/** Manifests a load reads when a part the one before named was gone: another save replaced them that often meanwhile. */
export const LOAD_ATTEMPTS = 3;

/**
 * One load from the manifest as it was read (the index's, the vectors' root): what it came to, and,
 * when a part that manifest named was not there, how to tell whether the manifest has been replaced
 * since (null: no part was missing, or the load cannot be made again).
 */
export interface ManifestLoad<T> {
  outcome: T;
  replaced: (() => Promise<boolean>) | null;
}

/**
 * The outcome of `load`, made again (up to LOAD_ATTEMPTS times in all) while a part its manifest
 * named was gone and another save has replaced that manifest since: the new one names parts of its
 * own. The one home of that rule, for the index's load and the vectors'.
 */
export async function loadFromLatestManifest<T>(load: () => Promise<ManifestLoad<T>>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const { outcome, replaced } = await load();
    if (replaced === null || attempt === LOAD_ATTEMPTS || !(await replaced())) return outcome;
  }
}
