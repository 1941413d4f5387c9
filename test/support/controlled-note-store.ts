// An in-memory vault whose mtimes a test sets, whose reads are counted, and which can fail a read
// or hold reads until the test releases them (for overlapping updates).
import type { NoteFileInfo, NoteStore } from "../../src/ports";
import type { Rename } from "../../src/index/vault-index";
import { FAKE_NOW } from "./fake-clock";

/** A vault in memory with controllable mtimes, failing reads and reads held until released. */
export class ControlledStore implements NoteStore {
  readonly files = new Map<string, { text: string; mtime: number }>();
  readonly reads: string[] = [];
  readonly failing = new Set<string>();
  holdReads = false;
  readonly held: { path: string; release: () => void }[] = [];

  write(path: string, text: string, mtime = FAKE_NOW): void {
    this.files.set(path, { text, mtime });
  }

  async list(): Promise<NoteFileInfo[]> {
    return [...this.files].map(([path, f]) => ({ path, mtime: f.mtime, size: f.text.length }));
  }

  async read(path: string): Promise<string> {
    this.reads.push(path);
    if (this.failing.has(path)) throw new Error(`EACCES: permission denied, open '${path}'`);
    const file = this.files.get(path);
    if (!file) throw new Error(`ENOENT: ${path}`);
    // The text is what the file held when the read started, however late it is delivered.
    const text = file.text;
    if (!this.holdReads) return text;
    return new Promise((resolve) => this.held.push({ path, release: () => resolve(text) }));
  }

  async stat(path: string): Promise<NoteFileInfo | null> {
    const f = this.files.get(path);
    return f ? { path, mtime: f.mtime, size: f.text.length } : null;
  }

  async exists(path: string): Promise<boolean> {
    return this.files.has(path);
  }

  async create(path: string, content: string): Promise<void> {
    if (this.files.has(path)) throw new Error(`${path} exists`);
    this.write(path, content);
  }
}


/** Moves every file under `from` to `to` in the store, dates kept as a rename keeps them; the renames, as the vault reports them. */
export function renameFolder(store: ControlledStore, from: string, to: string): Rename[] {
  const renames: Rename[] = [];
  for (const [path, file] of [...store.files]) {
    if (!path.startsWith(`${from}/`)) continue;
    const moved = `${to}/${path.slice(from.length + 1)}`;
    store.files.delete(path);
    store.files.set(moved, file);
    renames.push({ oldPath: path, path: moved });
  }
  return renames;
}
