// PLACEHOLDER SIGNATURES — being implemented now; the shape below is the public API.
import type { Clock, IndexCache, NoteStore } from "../ports";
import type { IndexStatus, ParsedNote, SearchOptions, SearchResult, SyncReport } from "./types";

export interface VaultIndexOptions {
  /** Vault-relative folders whose notes are never indexed (trace folder is added by callers). */
  excludedFolders?: string[];
  /** English stemming (default true). */
  stemming?: boolean;
  clock?: Clock;
}

export class VaultIndex {
  constructor(_options: VaultIndexOptions = {}) {}
  /** Loads the cache (if any), diffs path/mtime/size against the store and indexes only what changed. Rebuilds on version mismatch or corrupt cache. */
  async sync(_store: NoteStore, _cache: IndexCache | null): Promise<SyncReport> { throw new Error("not implemented"); }
  /** Re-reads one file from the store and (re)indexes it; removes it if it no longer exists or is excluded. */
  async updateFile(_store: NoteStore, _path: string): Promise<void> { throw new Error("not implemented"); }
  removeFile(_path: string): void { throw new Error("not implemented"); }
  async renameFile(_store: NoteStore, _oldPath: string, _newPath: string): Promise<void> { throw new Error("not implemented"); }
  /** Writes the index to the cache. */
  async save(_cache: IndexCache): Promise<void> { throw new Error("not implemented"); }
  /** Drops everything and indexes the store from scratch. */
  async rebuild(_store: NoteStore): Promise<SyncReport> { throw new Error("not implemented"); }
  async search(_query: string, _store: NoteStore, _options?: SearchOptions): Promise<SearchResult[]> { throw new Error("not implemented"); }
  status(): IndexStatus { throw new Error("not implemented"); }
  /** Notes whose `source`/`url` property canonicalises to this URL. */
  notesWithSourceUrl(_canonicalUrl: string): string[] { throw new Error("not implemented"); }
  /** The parsed note, if indexed (sections with offsets, tags, aliases…). */
  note(_path: string): ParsedNote | undefined { throw new Error("not implemented"); }
  /** Called after every change (build, update, removal) with the new status. */
  onChange(_listener: (status: IndexStatus) => void): () => void { throw new Error("not implemented"); }
  setExcludedFolders(_folders: string[]): void { throw new Error("not implemented"); }
}
