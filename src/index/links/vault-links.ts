// The vault's link graph (and which notes carry which tag) kept in step with the vault index: the notes the index holds, each read
// and parsed once (the parser's own link targets), again only when the index holds a newer version
// (mtime or size changed), and dropped when the index dropped it. The index keeps no note text and
// its cache holds no links, so after a warm start the graph is rebuilt here from the notes
// themselves, on first use; after that a call costs one pass over the index's note list.
import { stopwatch, systemClock, type Clock, type NoteStore } from "../../ports";
import { fileTitle } from "../markdown";
import { parseNoteSafely } from "../parse-note-safely";
import { readNotes } from "../read-notes";
import type { VaultIndex } from "../vault-index";
import { LinkGraph } from "./link-graph";

const NO_NOTES: ReadonlySet<string> = new Set();

/** Notes read and parsed at once while catching up. */
const BATCH = 250;

export interface LinkSyncReport {
  read: number;
  removed: number;
  ms: number;
}

export class VaultLinks {
  readonly graph = new LinkGraph();
  /** Path → the version of the note the graph holds. */
  private readonly versions = new Map<string, { mtime: number; size: number }>();
  /** Tag → the notes carrying it (nested tags expanded, as the index keeps them). */
  private readonly tagged = new Map<string, Set<string>>();
  private readonly tagsOf = new Map<string, readonly string[]>();
  /** A catch-up in progress: a second caller waits for it instead of reading the same notes. */
  private running: Promise<LinkSyncReport> | null = null;

  /** `clock` times a catch-up on its monotonic reading: on the wall clock, one set back during it reported minus an hour. */
  constructor(private readonly clock: Pick<Clock, "now" | "monotonicNow"> = systemClock) {}

  /** Brings the graph in line with what `index` holds now. */
  sync(index: Pick<VaultIndex, "paths" | "note">, store: NoteStore): Promise<LinkSyncReport> {
    if (!this.running) {
      this.running = this.catchUp(index, store).finally(() => {
        this.running = null;
      });
    }
    return this.running;
  }

  private async catchUp(index: Pick<VaultIndex, "paths" | "note">, store: NoteStore): Promise<LinkSyncReport> {
    const elapsed = stopwatch(this.clock);
    const inIndex = new Set(index.paths());
    let removed = 0;
    for (const path of this.versions.keys()) {
      if (inIndex.has(path)) continue;
      this.graph.removeNote(path);
      this.setTags(path, []);
      this.versions.delete(path);
      removed++;
    }
    const stale: string[] = [];
    for (const path of inIndex) {
      const note = index.note(path);
      const held = this.versions.get(path);
      if (note && (!held || held.mtime !== note.mtime || held.size !== note.size)) stale.push(path);
    }
    for (let at = 0; at < stale.length; at += BATCH) await this.readBatch(index, store, stale.slice(at, at + BATCH));
    return { read: stale.length, removed, ms: elapsed() };
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
      const fileName = fileTitle(path);
      const names = parsed.title.toLowerCase() === fileName.toLowerCase() ? parsed.aliases : [...parsed.aliases, parsed.title];
      this.graph.setNote({ path, links: parsed.links, names });
      this.setTags(path, note.tags);
      this.versions.set(path, { mtime: note.mtime, size: note.size });
    }
  }
}
