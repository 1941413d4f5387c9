// Keeps a warm index current while the MCP server runs: the folder is watched (fs.watch, recursive
// on macOS and Windows, folder by folder elsewhere) and every change goes through the plugin's own
// update queue (index/update-queue.ts), which folds bursts into one ordered batch. A change the
// watcher cannot name (a folder moved or removed — fs.watch names only the folder, and "Release
// v1.2" looks like a file —, a burst longer than the system queues) is reconciled by comparing a
// fresh listing with the index. A watch that could not cover the vault (the system's limit on
// watches reached) makes every call compare a listing: slower, never stale.
// The watch begins after the start-up sync, so the first call compares a listing too: what changed
// while the server started sent no event.
// Before answering, the server calls `settle()`, so a note saved just before a call is searched;
// calls that settle at once all wait for the same reconcile, and none for changes made after it.
import fs, { watch, type FSWatcher } from "node:fs";
import path from "node:path";
import { UpdateQueue, type IndexUpdate } from "../../index/update-queue";
import type { VaultIndex } from "../../index/vault-index";
import type { Clock, NoteStore } from "../../ports";
import { errorMessage } from "../../text/error-message";
import { isSkippedPath } from "../fs-note-store";
import { languageLearning } from "../../index/index-status-text";

export interface VaultWatcher {
  /** Applies every change seen so far (and a pending reconcile) before returning. */
  settle(): Promise<void>;
  /** True when the index changed since the last call (for saving the cache). */
  takeChanged(): boolean;
  close(): void;
}

/** Watches `root` and everything under it; `name` is relative to it (either slash), null when unknown. */
export type FolderWatch = (root: string, onChange: (event: string, name: string | null) => void, onError: (error: unknown) => void) => { close(): void };

/** Node's recursive fs.watch: the system's own on macOS (FSEvents) and Windows. */
export const nodeFolderWatch: FolderWatch = (root, onChange, onError) => {
  const watcher = watch(root, { recursive: true }, (event, filename) => onChange(event, filename ? filename.toString() : null));
  watcher.on("error", onError);
  return watcher;
};

/**
 * A plain (non-recursive) fs.watch on every folder that may hold notes, for Linux. There Node's
 * recursive watch is JavaScript of its own that lists a whole folder again on every event in it —
 * 10,000 notes checked out into one folder kept the server busy for minutes before it answered —
 * and, when a folder `a` goes, stops watching `a2` too (it compares paths without a separator).
 * Here an event costs one lstat; a folder is listed only when it appears. Hidden folders
 * (`.git`, `.obsidian`) and links are not watched: the note store lists neither.
 */
export const folderByFolderWatch: FolderWatch = (root, onChange, onError) => {
  const watchers = new Map<string, FSWatcher>();
  let closed = false;
  const join = (folder: string, name: string) => (folder === "" ? name : `${folder}/${name}`);
  const unwatchTree = (rel: string): void => {
    for (const [folder, watcher] of watchers) {
      if (folder === rel || folder.startsWith(`${rel}/`)) {
        watcher.close();
        watchers.delete(folder);
      }
    }
  };
  /**
   * A name that appeared or went: what was watched under it is let go, and a folder there now is
   * watched with all under it. Even one watched already: a folder removed and made again before its
   * events were read (a checkout does that) is another folder under the same name, often with the
   * same inode, and a watch stays with the folder it was made on: no event of the new one came.
   */
  const follow = (rel: string): void => {
    let isFolder = false;
    try {
      isFolder = fs.lstatSync(path.join(root, rel)).isDirectory();
    } catch {
      // Gone: what was watched under that name goes with it.
    }
    unwatchTree(rel);
    if (isFolder) watchTree(rel);
  };
  const watchFolder = (rel: string): boolean => {
    if (closed || watchers.has(rel)) return false;
    let watcher: FSWatcher;
    try {
      watcher = fs.watch(path.join(root, rel), (event, name) => {
        if (closed) return;
        if (!name) return onChange(event, null);
        const child = join(rel, name.toString());
        if (event === "rename") follow(child);
        onChange(event, child);
      });
    } catch (error) {
      if (rel === "") throw error;
      // Gone before it could be watched (its parent's event follows), or the system's watch limit: said.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") onError(error);
      return false;
    }
    watcher.on("error", (error) => {
      unwatchTree(rel);
      onError(error);
    });
    watchers.set(rel, watcher);
    return true;
  };
  const watchTree = (rel: string): void => {
    if (rel !== "" && isSkippedPath(rel)) return;
    if (!watchFolder(rel)) return;
    let entries: fs.Dirent[] = [];
    try {
      entries = fs.readdirSync(path.join(root, rel), { withFileTypes: true });
    } catch {
      // Unreadable or gone: its notes are the reconcile's to find.
    }
    for (const entry of entries) if (entry.isDirectory()) watchTree(join(rel, entry.name));
  };
  watchTree("");
  return {
    close() {
      closed = true;
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
    },
  };
};

/** The watch this system does best: its own recursive one where Node uses it, folder by folder elsewhere. */
export const systemFolderWatch: FolderWatch = process.platform === "darwin" || process.platform === "win32" ? nodeFolderWatch : folderByFolderWatch;

export interface VaultWatcherOptions {
  clock: Clock;
  /** How the folder is watched (default: systemFolderWatch). */
  watch?: FolderWatch;
  /** Quiet time before a burst is applied on its own (a call settles it sooner). */
  delayMs?: number;
  onError: (message: string) => void;
}

/** A file name that a note store lists: markdown, outside dot folders and node_modules. */
function isNotePath(rel: string): boolean {
  return rel.toLowerCase().endsWith(".md") && !isSkippedPath(rel);
}

/** Whether `rel` is a folder now: one named like a note ("Ideas.md/", in the place of the note) came with notes no event names. */
function isFolder(root: string, rel: string): boolean {
  try {
    return fs.lstatSync(path.join(root, rel)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Any other name that appeared or went ("rename") may be a folder that moved or went, whatever its
 * name looks like ("Release v1.2"), with its notes: the next call reconciles. A file's content
 * changing ("change": an image edited, `note.md~`) holds no note.
 */
function mayHoldNotes(event: string, rel: string): boolean {
  return event !== "change" && !isSkippedPath(rel);
}

/**
 * Events since the last reconcile past which some may have been lost: Linux queues 16,384 (two a
 * note written) for a watcher that falls behind and drops the rest without a word, so a checkout
 * of 10,000 notes left thousands out of the index. Past this many, the next call lists the vault.
 */
const EVENTS_TRUSTED = 2_000;

export function watchVault(root: string, store: NoteStore, index: VaultIndex, options: VaultWatcherOptions): VaultWatcher {
  let changed = false;
  // The vault's language learned again behind, once enough of the vault changed (vault-index.ts
  // `relearnWhenStale`), ends after the change that set it off was saved: its end is a change too,
  // or the meanings were learned again at every start.
  let learning = languageLearning(index.status());
  const stopListening = index.onChange((status) => {
    const now = languageLearning(status);
    if (learning && !now) changed = true;
    learning = now;
  });
  // The index was synced before this watch began (the server's start: a build of minutes): what
  // changed meanwhile sent no event here. The first settle lists (the server's start, before the
  // vault's language, held since, is learned: mcp-command.ts).
  let reconcileWanted = true;
  let eventsSinceReconcile = 0;
  // The vault's language is learned again once a batch is all in, not at the change in it that
  // crossed the line (`holdRelearning`): held while batches follow one another, let go once none is
  // pending. Started mid-batch, it learned from a vault half changed, and the rest of the batch,
  // counted as changes it had not seen, had it learned again at the next edit.
  let relearningHeld: (() => void) | null = null;
  const queue: UpdateQueue = new UpdateQueue({
    clock: options.clock,
    delayMs: options.delayMs ?? 200,
    apply: async (updates) => {
      relearningHeld ??= index.holdRelearning();
      try {
        await applyUpdates(index, store, updates);
        changed = true;
      } finally {
        if (queue.size === 0) letRelearn();
      }
    },
    onError: (error) => options.onError(`An index update failed: ${errorMessage(error)}`),
  });
  const letRelearn = (): void => {
    const release = relearningHeld;
    relearningHeld = null;
    release?.();
  };
  let reconciling: Promise<void> | null = null;
  const startReconcile = (): Promise<void> => {
    reconcileWanted = false;
    eventsSinceReconcile = 0;
    const done = reconcile(index, store, (path) => queue.push({ kind: "modify", path }))
      .catch((error: unknown) => options.onError(`Could not list the vault to bring the index up to date: ${errorMessage(error)}`))
      .finally(() => {
        reconciling = null;
      });
    reconciling = done;
    return done;
  };
  // A folder left unwatched (the system's watch limit reached, a watch that failed) sends no
  // events: from then on every call lists the vault, and that is said once, not once a folder.
  let listEveryCall = false;
  const watchIncomplete = (error: unknown): void => {
    if (listEveryCall) return;
    listEveryCall = true;
    options.onError(`Watching ${root} is incomplete (${errorMessage(error)}); each call lists the vault to find changed notes.`);
  };
  let watcher: { close(): void } | null = null;
  try {
    watcher = (options.watch ?? systemFolderWatch)(
      root,
      (event, name) => {
        if (++eventsSinceReconcile > EVENTS_TRUSTED) reconcileWanted = true;
        const rel = name === null ? null : name.split("\\").join("/");
        if (rel !== null && isNotePath(rel) && !(event === "rename" && isFolder(root, rel))) queue.push({ kind: "modify", path: rel });
        else if (rel === null || mayHoldNotes(event, rel)) reconcileWanted = true;
      },
      watchIncomplete,
    );
  } catch (error) {
    watchIncomplete(error);
  }
  return {
    async settle() {
      if (listEveryCall) reconcileWanted = true;
      // A call is owed the changes made before it, not those that keep coming after: a listing
      // begun after the call covers it. One begun before may have missed the change that wants
      // another, so it is waited out first. (Looping while anything was wanted held every call for
      // as long as something kept renaming files in the vault.)
      if (reconcileWanted && reconciling) await reconciling;
      if (reconcileWanted || reconciling) await (reconciling ?? startReconcile());
      await queue.flush();
    },
    takeChanged() {
      const was = changed;
      changed = false;
      return was;
    },
    close() {
      watcher?.close();
      stopListening();
      queue.dispose();
    },
  };
}

/** Steps of one batch, applied in order: what the plugin's index keeper does with them. */
async function applyUpdates(index: VaultIndex, store: NoteStore, updates: IndexUpdate[]): Promise<void> {
  for (const update of updates) {
    if (update.kind === "rename") await index.renameFile(store, update.oldPath, update.path);
    else if (update.kind === "remove") index.removeFile(update.path);
    else await index.updateFile(store, update.path);
  }
}

/** Every listed note the index lacks or cannot vouch for (an older copy, or one read too soon after its date), and every indexed note gone from the listing. */
async function reconcile(index: VaultIndex, store: NoteStore, changedPath: (path: string) => void): Promise<void> {
  const files = await store.list();
  const listed = new Set<string>();
  for (const f of files) {
    listed.add(f.path);
    if (index.isIndexable(f.path) && !index.isCurrent(f)) changedPath(f.path);
  }
  for (const path of index.paths()) if (!listed.has(path)) changedPath(path);
}
