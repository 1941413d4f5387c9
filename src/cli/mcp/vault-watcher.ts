// Keeps a warm index current while the MCP server runs: the folder is watched (fs.watch,
// recursive) and every change goes through the plugin's own update queue (index/update-queue.ts),
// which folds bursts into one ordered batch. A change the watcher cannot name (a folder moved or
// removed, an overflowing event queue) is reconciled by comparing a fresh listing with the index.
// Before answering, the server calls `settle()`, so a note saved just before a call is searched.
import { watch, type FSWatcher } from "node:fs";
import { UpdateQueue, type IndexUpdate } from "../../index/update-queue";
import type { VaultIndex } from "../../index/vault-index";
import type { Clock, NoteStore } from "../../ports";
import { errorMessage } from "../../text/error-message";

export interface VaultWatcher {
  /** Applies every change seen so far (and a pending reconcile) before returning. */
  settle(): Promise<void>;
  /** True when the index changed since the last call (for saving the cache). */
  takeChanged(): boolean;
  close(): void;
}

export interface VaultWatcherOptions {
  clock: Clock;
  /** Quiet time before a burst is applied on its own (a call settles it sooner). */
  delayMs?: number;
  onError: (message: string) => void;
}

/** A file name that a note store lists: markdown, outside dot folders and node_modules. */
function isNotePath(rel: string): boolean {
  const parts = rel.split("/");
  return rel.toLowerCase().endsWith(".md") && !parts.some((p) => p.startsWith(".") || p === "node_modules");
}

/**
 * A name without an extension, outside dot folders, may be a folder that moved or went (fs.watch
 * names only the folder then): the next call reconciles. Other files (images, `note.md~`) are not notes.
 */
function mayBeFolder(rel: string): boolean {
  const parts = rel.split("/");
  return !parts.some((p) => p.startsWith(".") || p === "node_modules") && !/\.[^.]+$/.test(parts[parts.length - 1]);
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
  let watcher: FSWatcher | null = null;
  try {
    watcher = watch(root, { recursive: true }, (_event, filename) => {
      const rel = filename ? filename.toString().split("\\").join("/") : null;
      if (rel && isNotePath(rel)) queue.push({ kind: "modify", path: rel });
      else if (rel === null || mayBeFolder(rel)) reconcileWanted = true;
    });
    watcher.on("error", (error) => options.onError(`Watching ${root} stopped: ${errorMessage(error)}`));
  } catch (error) {
    options.onError(`Could not watch ${root} for changes (${errorMessage(error)}); the index stays as it was at start-up.`);
  }
  return {
    async settle() {
      if (reconcileWanted) {
        reconcileWanted = false;
        await reconcile(index, store, (path) => queue.push({ kind: "modify", path }));
      }
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
