// Keeps a warm index current while the MCP server runs: the folder is watched (fs.watch,
// recursive) and every change goes through the plugin's own update queue (index/update-queue.ts),
// which folds bursts into one ordered batch. A change the watcher cannot name (a folder moved or
// removed — fs.watch names only the folder, and "Release v1.2" looks like a file —, an
// overflowing event queue) is reconciled by comparing a fresh listing with the index.
// Before answering, the server calls `settle()`, so a note saved just before a call is searched;
// calls that settle at once all wait for the same reconcile.
import { watch } from "node:fs";
import { UpdateQueue, type IndexUpdate } from "../../index/update-queue";
import type { VaultIndex } from "../../index/vault-index";
import type { Clock, NoteStore } from "../../ports";
import { errorMessage } from "../../text/error-message";
import { isSkippedPath } from "../fs-note-store";

export interface VaultWatcher {
  /** Applies every change seen so far (and a pending reconcile) before returning. */
  settle(): Promise<void>;
  /** True when the index changed since the last call (for saving the cache). */
  takeChanged(): boolean;
  close(): void;
}

/** Watches `root` and everything under it; `name` is relative to it (either slash), null when unknown. */
export type FolderWatch = (root: string, onChange: (event: string, name: string | null) => void, onError: (error: unknown) => void) => { close(): void };

/** Node's recursive fs.watch. */
export const nodeFolderWatch: FolderWatch = (root, onChange, onError) => {
  const watcher = watch(root, { recursive: true }, (event, filename) => onChange(event, filename ? filename.toString() : null));
  watcher.on("error", onError);
  return watcher;
};

export interface VaultWatcherOptions {
  clock: Clock;
  /** How the folder is watched (default: nodeFolderWatch). */
  watch?: FolderWatch;
  /** Quiet time before a burst is applied on its own (a call settles it sooner). */
  delayMs?: number;
  onError: (message: string) => void;
}

/** A file name that a note store lists: markdown, outside dot folders and node_modules. */
function isNotePath(rel: string): boolean {
  return rel.toLowerCase().endsWith(".md") && !isSkippedPath(rel);
}

/**
 * Any other name that appeared or went ("rename") may be a folder that moved or went, whatever its
 * name looks like ("Release v1.2"), with its notes: the next call reconciles. A file's content
 * changing ("change": an image edited, `note.md~`) holds no note.
 */
function mayHoldNotes(event: string, rel: string): boolean {
  return event !== "change" && !isSkippedPath(rel);
}

export function watchVault(root: string, store: NoteStore, index: VaultIndex, options: VaultWatcherOptions): VaultWatcher {
  let changed = false;
  let reconcileWanted = false;
  const queue = new UpdateQueue({
    clock: options.clock,
    delayMs: options.delayMs ?? 200,
    apply: async (updates) => {
      await applyUpdates(index, store, updates);
      changed = true;
    },
    onError: (error) => options.onError(`An index update failed: ${errorMessage(error)}`),
  });
  let reconciling: Promise<void> | null = null;
  const startReconcile = (): Promise<void> => {
    reconcileWanted = false;
    const done = reconcile(index, store, (path) => queue.push({ kind: "modify", path }))
      .catch((error: unknown) => options.onError(`Could not list the vault to bring the index up to date: ${errorMessage(error)}`))
      .finally(() => {
        reconciling = null;
      });
    reconciling = done;
    return done;
  };
  let watcher: { close(): void } | null = null;
  try {
    watcher = (options.watch ?? nodeFolderWatch)(
      root,
      (event, name) => {
        const rel = name === null ? null : name.split("\\").join("/");
        if (rel !== null && isNotePath(rel)) queue.push({ kind: "modify", path: rel });
        else if (rel === null || mayHoldNotes(event, rel)) reconcileWanted = true;
      },
      (error) => options.onError(`Watching ${root} stopped: ${errorMessage(error)}`),
    );
  } catch (error) {
    options.onError(`Could not watch ${root} for changes (${errorMessage(error)}); the index stays as it was at start-up.`);
  }
  return {
    async settle() {
      // A reconcile another call started is waited for too: its changes are not applied yet.
      while (reconcileWanted || reconciling) await (reconciling ?? startReconcile());
      await queue.flush();
    },
    takeChanged() {
      const was = changed;
      changed = false;
      return was;
    },
    close() {
      watcher?.close();
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

/** Every listed note the index lacks or holds an older copy of, and every indexed note gone from the listing. */
async function reconcile(index: VaultIndex, store: NoteStore, changedPath: (path: string) => void): Promise<void> {
  const files = await store.list();
  const listed = new Set<string>();
  for (const f of files) {
    listed.add(f.path);
    const known = index.note(f.path);
    if (index.isIndexable(f.path) && (!known || known.mtime !== f.mtime || known.size !== f.size)) changedPath(f.path);
  }
  for (const path of index.paths()) if (!listed.has(path)) changedPath(path);
}
