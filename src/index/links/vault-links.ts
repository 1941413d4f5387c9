// The vault's link graph (and which notes carry which tag) kept in step with the vault index: the notes the index holds, each read
// and parsed once (the parser's own link targets), again only when the index holds a newer version
// (mtime or size changed), and dropped when the index dropped it. The index keeps no note text and
// its cache holds no links, so after a warm start the graph is rebuilt here from the notes
// themselves, on first use; after that a call costs one pass over the index's note list.
// A note the index moved (a folder renamed) is moved here too, unread: one that left the index and one
// new to it with the same file name, date, size and names are the same text at a new path, whose links
// the graph resolves from there (`LinkGraph.moveNote`). A catch-up's callers may each stop waiting
// (their signal); it reads on, batch by batch, while one still waits, and what it read is kept.
import { stopwatch, systemClock, type Clock, type NoteStore } from "../../ports";
import { fileTitle } from "../markdown";
import { parseNoteSafely } from "../parse-note-safely";
import { readNotes } from "../read-notes";
import type { IndexedNote } from "../types";
import type { VaultIndex } from "../vault-index";
import { LinkGraph } from "./link-graph";
import { stoppedWaiting, unlessStopped } from "./unless-stopped";

const NO_NOTES: ReadonlySet<string> = new Set();

/** Notes read and parsed at once while catching up. */
const BATCH = 250;

export interface LinkSyncReport {
  read: number;
  /** Notes moved to a new path unread (a folder renamed). */
  moved: number;
  removed: number;
  ms: number;
}

/** A catch-up under way, and how many callers still wait for it. */
interface CatchUp {
  report: Promise<LinkSyncReport>;
  waiting: number;
}

type Version = { mtime: number; size: number };

export class VaultLinks {
  readonly graph = new LinkGraph();
  /** Path → the version of the note the graph holds. */
  private readonly versions = new Map<string, Version>();
  /** Tag → the notes carrying it (nested tags expanded, as the index keeps them). */
  private readonly tagged = new Map<string, Set<string>>();
  private readonly tagsOf = new Map<string, readonly string[]>();
  /** A catch-up in progress: a second caller waits for it instead of reading the same notes. */
  private running: CatchUp | null = null;

  /** `clock` times a catch-up on its monotonic reading: on the wall clock, one set back during it reported minus an hour. */
  constructor(private readonly clock: Pick<Clock, "now" | "monotonicNow"> = systemClock) {}

  /**
   * Brings the graph in line with what `index` holds now. When `signal` aborts, this caller stops
   * waiting at once (store reads cannot be aborted); the catch-up stops after its batch unless
   * another caller still waits, and the next call goes on from what it read.
   */
  sync(index: Pick<VaultIndex, "paths" | "note">, store: NoteStore, signal?: AbortSignal): Promise<LinkSyncReport> {
    if (signal?.aborted) return Promise.reject(stoppedWaiting());
    const run: CatchUp =
      this.running ??
      (this.running = {
        waiting: 0,
        // Asked only once a batch was read, when this object is in place.
        report: this.catchUp(index, store, (): boolean => this.stillWanted(run)).finally(() => {
          if (this.running === run) this.running = null;
        }),
      });
    run.waiting++;
    return unlessStopped(run.report, signal, () => run.waiting--);
  }

  /** Whether anyone still waits for `run`; once none does, a new caller starts a catch-up of its own. */
  private stillWanted(run: CatchUp): boolean {
    if (run.waiting > 0) return true;
    if (this.running === run) this.running = null;
    return false;
  }

  private async catchUp(index: Pick<VaultIndex, "paths" | "note">, store: NoteStore, wanted: () => boolean): Promise<LinkSyncReport> {
    const elapsed = stopwatch(this.clock);
    const inIndex = new Set(index.paths());
    const gone = [...this.versions.keys()].filter((path) => !inIndex.has(path));
    const stale: string[] = [];
    for (const path of inIndex) {
      const note = index.note(path);
      const held = this.versions.get(path);
      if (note && (!held || held.mtime !== note.mtime || held.size !== note.size)) stale.push(path);
    }
    const moves = this.movesAmong(index, gone, stale);
    for (const [path, oldPath] of moves) this.moveNote(oldPath, index.note(path)!);
    const movedFrom = new Set(moves.values());
    const removed = gone.filter((path) => !movedFrom.has(path));
    for (const path of removed) {
      this.graph.removeNote(path);
      this.setTags(path, []);
      this.versions.delete(path);
    }
    const toRead = stale.filter((path) => !moves.has(path));
    let read = 0;
    for (let at = 0; at < toRead.length; at += BATCH) {
      const batch = toRead.slice(at, at + BATCH);
      await this.readBatch(index, store, batch);
      read += batch.length;
      // Checked after a batch, not before the first: the caller that started this joins it just after.
      if (!wanted()) break;
    }
    return { read, moved: moves.size, removed: removed.length, ms: elapsed() };
  }

  /**
   * The notes the index moved: new path → old. A note the graph held that left the index pairs with
   * one it holds nothing of yet when both have the same file name, date and size, and the index's
   * names for it (title, aliases) are the ones the graph holds, each the only one so on its side.
   * Two notes that cannot be told apart, or a note edited since, are read.
   */
  private movesAmong(index: Pick<VaultIndex, "note">, gone: readonly string[], stale: readonly string[]): Map<string, string> {
    const moves = new Map<string, string>();
    if (gone.length === 0) return moves;
    const leaving = onlyOnes(gone.map((path) => [sameNoteKey(path, this.versions.get(path)!, this.graph.namesFor(path)), path]));
    const arriving = onlyOnes(
      stale.filter((path) => !this.versions.has(path)).map((path) => {
        const note = index.note(path)!;
        return [sameNoteKey(path, note, otherNames(path, note.title, note.aliases)), path];
      }),
    );
    for (const [key, path] of arriving) {
      const oldPath = leaving.get(key);
      if (oldPath !== undefined) moves.set(path, oldPath);
    }
    return moves;
  }

  private moveNote(oldPath: string, note: IndexedNote): void {
    this.graph.moveNote(oldPath, note.path);
    this.setTags(oldPath, []);
    this.setTags(note.path, note.tags);
    this.versions.delete(oldPath);
    this.versions.set(note.path, { mtime: note.mtime, size: note.size });
  }

  /** The notes carrying `tag` (lower-case, without `#`). */
  notesTagged(tag: string): ReadonlySet<string> {
    return this.tagged.get(tag) ?? NO_NOTES;
  }

  private setTags(path: string, tags: readonly string[]): void {
    for (const tag of this.tagsOf.get(path) ?? []) {
      const set = this.tagged.get(tag);
      set?.delete(path);
      if (set?.size === 0) this.tagged.delete(tag);
    }
    if (tags.length === 0) this.tagsOf.delete(path);
    else this.tagsOf.set(path, tags);
    for (const tag of tags) {
      const set = this.tagged.get(tag);
      if (set) set.add(path);
      else this.tagged.set(tag, new Set([path]));
    }
  }

  private async readBatch(index: Pick<VaultIndex, "note">, store: NoteStore, paths: string[]): Promise<void> {
    const texts = await readNotes(store, paths);
    for (const [i, path] of paths.entries()) {
      const note = index.note(path);
      const text = texts[i];
      if (!note) continue;
      // A note that cannot be read links nowhere until it can; it is tried again next time.
      if (typeof text !== "string") continue;
      const parsed = parseNoteSafely(path, text);
      this.graph.setNote({ path, links: parsed.links, names: otherNames(path, parsed.title, parsed.aliases) });
      this.setTags(path, note.tags);
      this.versions.set(path, { mtime: note.mtime, size: note.size });
    }
  }
}

/** The names links may use for a note beside its file name: its aliases, and its title when that is not the file name. */
function otherNames(path: string, title: string, aliases: readonly string[]): readonly string[] {
  return title.toLowerCase() === fileTitle(path).toLowerCase() ? aliases : [...aliases, title];
}

/** What a note moved with its text unchanged keeps: its file name (not its folder), date, size and names. */
function sameNoteKey(path: string, version: Version, names: readonly string[]): string {
  return JSON.stringify([path.slice(path.lastIndexOf("/") + 1), version.mtime, version.size, names]);
}

/** Key → path, for the keys only one path has. */
function onlyOnes(entries: readonly (readonly [string, string])[]): Map<string, string> {
  const out = new Map<string, string>();
  const shared = new Set<string>();
  for (const [key, path] of entries) {
    if (out.has(key)) shared.add(key);
    else out.set(key, path);
  }
  for (const key of shared) out.delete(key);
  return out;
}
