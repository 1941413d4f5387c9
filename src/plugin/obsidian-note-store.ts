// NoteStore over Obsidian's Vault. Reads go through cachedRead (the app keeps recently read files
// in memory); creation refuses to overwrite anything, including files the vault does not list.
//
// Writes stay inside the vault (DESIGN invariant 8): on the desktop a folder of the vault may be a
// link to a folder elsewhere, and the app follows it. The API has no real-path call, but the
// desktop adapter carries Node's fs.promises and the vault's folder; with them every create and
// rewrite checks where its folder really is, and a note that turns out to lie outside is removed
// again. (Mobile adapters have neither, and no links to follow.) Rewrites go through
// `Vault.process`, the app's own read-change-write step, so an edit made meanwhile is not lost.
import { normalizePath, TFile, TFolder, type Vault } from "obsidian";
import type { NoteFileInfo, NoteStore } from "../ports";

export type NoteStoreErrorKind = "not_found" | "exists" | "not_a_folder" | "outside_vault";

export class NoteStoreError extends Error {
  constructor(
    readonly kind: NoteStoreErrorKind,
    message: string,
    readonly path: string,
  ) {
    super(message);
    this.name = "NoteStoreError";
  }
}

/** What the desktop FileSystemAdapter offers beyond the typed API (undocumented, long stable). */
interface DesktopAdapter {
  basePath: string;
  getFullPath(normalizedPath: string): string;
  fsPromises: { realpath(path: string): Promise<string> };
}

export class ObsidianNoteStore implements NoteStore {
  constructor(private readonly vault: Vault) {}

  async list(): Promise<NoteFileInfo[]> {
    return this.vault.getMarkdownFiles().map((file) => ({ path: file.path, mtime: file.stat.mtime, size: file.stat.size }));
  }

  async read(path: string): Promise<string> {
    const file = this.vault.getAbstractFileByPath(normalizePath(path));
    if (!(file instanceof TFile)) throw new NoteStoreError("not_found", `No note at "${path}".`, path);
    return this.vault.cachedRead(file);
  }

  async stat(path: string): Promise<NoteFileInfo | null> {
    const file = this.vault.getAbstractFileByPath(normalizePath(path));
    return file instanceof TFile ? { path: file.path, mtime: file.stat.mtime, size: file.stat.size } : null;
  }

  async exists(path: string): Promise<boolean> {
    const normalized = normalizePath(path);
    if (this.vault.getAbstractFileByPath(normalized)) return true;
    // Files in hidden folders, or written by another program a moment ago, are on disk but not
    // (yet) in the vault's list; the adapter looks at the disk itself.
    return this.vault.adapter.exists(normalized);
  }

  async create(path: string, content: string): Promise<void> {
    const normalized = normalizePath(path);
    if (await this.exists(normalized)) {
      throw new NoteStoreError("exists", `"${normalized}" already exists; it was left as it is.`, normalized);
    }
    await this.requireInside(parentOf(normalized), normalized);
    await this.createFolders(normalized);
    const file = await this.vault.create(normalized, content);
    // The folder was checked before the write; a link swapped in meanwhile is caught here.
    try {
      await this.requireInside(normalized, normalized);
    } catch (error) {
      // Our own file of a moment ago, in a place it must not be: removed, not put in the user's trash.
      await this.vault.adapter.remove(file.path).catch(() => undefined);
      throw error;
    }
  }

  /** Replaces a note's text with `update(text)` in one step of the app, once its real place is checked. */
  async rewrite(path: string, update: (text: string) => string): Promise<void> {
    const normalized = normalizePath(path);
    const file = this.vault.getAbstractFileByPath(normalized);
    if (!(file instanceof TFile)) throw new NoteStoreError("not_found", `There is no note at "${normalized}" any more.`, normalized);
    await this.requireInside(normalized, normalized);
    await this.vault.process(file, update);
  }

  private async createFolders(filePath: string): Promise<void> {
    const parts = filePath.split("/").slice(0, -1);
    for (let i = 1; i <= parts.length; i++) {
      const folderPath = parts.slice(0, i).join("/");
      const existing = this.vault.getAbstractFileByPath(folderPath);
      if (existing instanceof TFolder) continue;
      if (existing) {
        throw new NoteStoreError("not_a_folder", `Cannot create "${filePath}": "${folderPath}" is a file.`, filePath);
      }
      await this.vault.createFolder(folderPath);
    }
  }

  /** Throws `outside_vault` when `path` (or, while it does not exist, its nearest existing folder) really lies outside the vault. */
  private async requireInside(path: string, shown: string): Promise<void> {
    const adapter = desktopAdapter(this.vault.adapter);
    if (!adapter) return;
    const root = await adapter.fsPromises.realpath(adapter.basePath);
    for (let existing = path; existing !== ""; existing = parentOf(existing)) {
      // The nearest part of the path that is on disk decides where the rest would go.
      const real = await adapter.fsPromises.realpath(adapter.getFullPath(existing)).catch(() => null);
      if (real === null) continue;
      if (real === root || real.startsWith(`${root}/`) || real.startsWith(`${root}\\`)) return;
      throw new NoteStoreError("outside_vault", `"${shown}" would be written outside the vault: "${existing}" links to ${real}.`, shown);
    }
  }
}

function parentOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash < 0 ? "" : path.slice(0, slash);
}

function desktopAdapter(adapter: unknown): DesktopAdapter | null {
  const a = adapter as Partial<DesktopAdapter> | null;
  if (!a || typeof a.basePath !== "string" || typeof a.getFullPath !== "function" || typeof a.fsPromises?.realpath !== "function") return null;
  return a as DesktopAdapter;
}
