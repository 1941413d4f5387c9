// Vault events arrive in bursts (a save per keystroke pause, a folder rename touching hundreds of
// files, a sync client replaying a day of changes). This queue folds them into one ordered batch
// per quiet period, so the index does each path's work once and never works on a stale picture.
// It knows nothing of Obsidian or of the index: events in, a plan out to an async `apply`.
import { pacedUnlessAborted } from "../deadline";
import { monotonicReading, type Clock } from "../ports";

/** A change to one file as the vault reports it. */
export type VaultChange =
  | { kind: "create" | "modify" | "delete"; path: string }
  | { kind: "rename"; path: string; oldPath: string };

/** One step the index should take. Steps are ordered: apply them in sequence. */
export type IndexUpdate =
  /** The note that was indexed at `oldPath` now lives at `path` (its text may be unchanged). */
  | { kind: "rename"; oldPath: string; path: string }
  /** Nothing lives at `path` any more. */
  | { kind: "remove"; path: string }
  /** Read `path` again and index what is there (or drop it if it is gone). */
  | { kind: "update"; path: string };

/** What is known about one current path since the last flush. */
interface PendingPath {
  /** The path the index knows this file by, when it was renamed here during this batch. */
  from?: string;
  /** Its text may differ from what the index holds. */
  changed: boolean;
  deleted: boolean;
  /** The note the index holds under this path is gone, replaced by the one here: when this one moves on, it is removed. */
  replaces?: boolean;
}

export interface UpdateQueueOptions {
  clock: Clock;
  /** Applies one batch. Events that arrive while it runs go into the next batch. */
  apply: (updates: IndexUpdate[]) => Promise<void>;
  /** Quiet time before a batch is applied (default 1500 ms). */
  delayMs?: number;
  /** Longest a change waits while events keep coming (default 10 000 ms). */
  maxDelayMs?: number;
  /** Told when `apply` fails; the batch is not retried (the next start-up sync repairs the index). */
  onError?: (error: unknown, updates: IndexUpdate[]) => void;
}

export class UpdateQueue {
  private pending = new Map<string, PendingPath>();
  private readonly clock: Clock;
  private readonly apply: UpdateQueueOptions["apply"];
  private readonly onError: UpdateQueueOptions["onError"];
  private readonly delayMs: number;
  private readonly maxDelayMs: number;
  private firstEventAt: number | null = null;
  private dueAt = 0;
  private waiting = false;
  private running: Promise<void> | null = null;
  private disposed = false;
  /** Aborted by `dispose`: the quiet wait ends then, its timer cleared, rather than holding a closing process. */
  private readonly stopped = new AbortController();
  /** Batches taken from `pending` so far, and how many of them have been applied (or failed). */
  private batchesTaken = 0;
  private batchesDone = 0;
  /** Flushes waiting, each for the batch that holds the changes made before it was asked. */
  private waiters: { batch: number; resolve: () => void }[] = [];

  constructor(options: UpdateQueueOptions) {
    this.clock = options.clock;
    this.apply = options.apply;
    this.onError = options.onError;
    this.delayMs = options.delayMs ?? 1500;
    this.maxDelayMs = options.maxDelayMs ?? 10_000;
  }

  /** How many paths wait for the next batch. */
  get size(): number {
    return this.pending.size;
  }

  /** True while a batch is being applied. */
  get busy(): boolean {
    return this.running !== null;
  }

  push(change: VaultChange): void {
    if (this.disposed) return;
    record(this.pending, change);
    this.schedule();
  }

  /**
   * Applies everything pending now, without waiting for quiet. Resolves once the changes made before
   * the call are in: the batch running (if any) and the one that takes what is pending. Changes that
   * keep arriving meanwhile are applied too, in order, but not waited for: a sync client downloading
   * 20,000 notes, or a script writing one a millisecond, held every caller (the MCP server's calls,
   * an exclusion change) for as long as it kept writing.
   */
  flush(): Promise<void> {
    const batch = this.pending.size > 0 ? this.batchesTaken + 1 : this.batchesTaken;
    if (this.disposed || batch <= this.batchesDone) return Promise.resolve();
    const applied = new Promise<void>((resolve) => this.waiters.push({ batch, resolve }));
    this.startDraining();
    return applied;
  }

  /** Drops pending changes and stops scheduling; a batch already running finishes on its own. */
  dispose(): void {
    this.disposed = true;
    this.stopped.abort();
    this.pending.clear();
    // Nothing more will be applied: no flush waits for a batch that will never come.
    if (!this.running) this.release(Number.POSITIVE_INFINITY);
  }

  /** The debounce's time: on the monotonic reading, so a wall clock set back does not hold changes for that long. */
  private now(): number {
    return monotonicReading(this.clock);
  }

  private schedule(): void {
    const now = this.now();
    this.firstEventAt ??= now;
    this.dueAt = Math.min(now + this.delayMs, this.firstEventAt + this.maxDelayMs);
    if (this.waiting) return;
    this.waiting = true;
    void this.waitForQuiet();
  }

  private async waitForQuiet(): Promise<void> {
    while (!this.disposed && this.now() < this.dueAt) {
      if (!(await pacedUnlessAborted(this.clock, this.dueAt - this.now(), this.stopped.signal))) break;
    }
    this.waiting = false;
    if (!this.disposed) await this.flush();
  }

  private startDraining(): void {
    if (this.running) return;
    this.running = this.drain().finally(() => {
      this.running = null;
      // A flush asked after the loop last looked, before this ran, still has its changes pending.
      if (!this.disposed && this.pending.size > 0 && this.waiters.length > 0) this.startDraining();
      else this.release(Number.POSITIVE_INFINITY);
    });
  }

  private async drain(): Promise<void> {
    while (!this.disposed && this.pending.size > 0) {
      const updates = planUpdates(this.pending);
      this.pending = new Map();
      this.firstEventAt = null;
      this.batchesTaken++;
      try {
        await this.apply(updates);
      } catch (error) {
        this.onError?.(error, updates);
      }
      this.batchesDone++;
      this.release(this.batchesDone);
    }
  }

  /** Resolves the flushes whose batch is applied. */
  private release(upTo: number): void {
    const due = this.waiters.filter((w) => w.batch <= upTo);
    if (due.length === 0) return;
    this.waiters = this.waiters.filter((w) => w.batch > upTo);
    for (const w of due) w.resolve();
  }
}

function record(pending: Map<string, PendingPath>, change: VaultChange): void {
  switch (change.kind) {
    case "create":
    case "modify": {
      const entry = pending.get(change.path);
      pending.set(change.path, { from: entry?.from, changed: true, deleted: false, replaces: entry?.replaces });
      return;
    }
    case "delete": {
      const entry = pending.get(change.path);
      // The index still holds the note under its old name; that copy must go too.
      if (entry?.from !== undefined) indexedNoteGone(pending, entry.from);
      pending.set(change.path, { changed: false, deleted: true });
      return;
    }
    case "rename": {
      if (change.oldPath === change.path) return;
      const moved = pending.get(change.oldPath);
      const replaced = pending.get(change.path);
      pending.delete(change.oldPath);
      const from = moved?.from ?? change.oldPath;
      // The index knows a note by the name it had before this batch. A note that came to `oldPath`
      // during it over a note the index holds there leaves that one behind: gone now.
      if (moved?.replaces) indexedNoteGone(pending, change.oldPath);
      // A note that came to `path` during it is replaced by this one: its old name must go too.
      if (replaced?.from !== undefined && replaced.from !== from) indexedNoteGone(pending, replaced.from);
      const cameBack = from === change.path;
      pending.set(change.path, {
        from: cameBack ? undefined : from,
        // A file created during this batch is unknown to the index, and one renamed onto a path
        // with pending news replaces it: both need reading, not just moving. A note back at the name
        // it left is read too: a batch applied while it was away may have read that name empty.
        changed: (moved?.changed ?? false) || replaced !== undefined || moved?.deleted === true || cameBack,
        deleted: false,
        // What the index holds at `path` (news of it pending) is replaced, unless it too came by a
        // rename that replaced nothing.
        replaces: replaced !== undefined && (replaced.from === undefined || replaced.replaces === true),
      });
      return;
    }
  }
}

/**
 * The note the index holds under `path` no longer exists. With no other news of `path` it is removed;
 * a note that lies at `path` now (created, or moved there) replaces it, and takes it along when it
 * moves on in turn.
 */
function indexedNoteGone(pending: Map<string, PendingPath>, path: string): void {
  const there = pending.get(path);
  if (there) there.replaces = true;
  else pending.set(path, { changed: false, deleted: true });
}

/**
 * Turns what happened to each path into ordered steps. Renames go first, each one only after the
 * path it moves onto has itself been moved away (so a→b, c→a moves a→b before c→a); renames
 * that form a cycle are turned into plain re-reads. Removals follow, then re-reads.
 */
export function planUpdates(pending: ReadonlyMap<string, PendingPath>): IndexUpdate[] {
  const renames = new Map<string, string>(); // destination → source
  const removes: string[] = [];
  const updates: string[] = [];
  const movedFrom = new Set<string>();
  for (const [path, entry] of pending) {
    if (entry.deleted) removes.push(path);
    else {
      // Two paths may claim one old name (a→b, a new a, a→c): one rename moves it, the other path is read.
      const from = entry.from !== undefined && !movedFrom.has(entry.from) ? entry.from : undefined;
      if (from !== undefined) {
        renames.set(path, from);
        movedFrom.add(from);
      }
      if (entry.changed || from !== entry.from) updates.push(path);
    }
  }
  // A rename takes its note out from under its old name. When a file lies at that name again (the
  // note came back to it, another took its place), that file is read again after the renames.
  for (const oldPath of renames.values()) {
    const there = pending.get(oldPath);
    if (there && !there.deleted && !there.changed && there.from === undefined && !updates.includes(oldPath)) updates.push(oldPath);
  }

  const plan: IndexUpdate[] = [];
  const sources = new Set(renames.values());
  let progressed = true;
  while (renames.size > 0 && progressed) {
    progressed = false;
    for (const [path, oldPath] of renames) {
      if (sources.has(path)) continue; // something still has to move out of `path` first
      plan.push({ kind: "rename", oldPath, path });
      renames.delete(path);
      sources.delete(oldPath);
      progressed = true;
    }
  }
  // Whatever is left moves in a circle: read every destination again and drop stray sources.
  for (const [path, oldPath] of renames) {
    if (!updates.includes(path)) updates.push(path);
    if (!renames.has(oldPath) && !removes.includes(oldPath)) removes.push(oldPath);
  }
  for (const path of removes) plan.push({ kind: "remove", path });
  for (const path of updates) plan.push({ kind: "update", path });
  return plan;
}
