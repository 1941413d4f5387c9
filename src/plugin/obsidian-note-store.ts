// NoteStore over Obsidian's Vault. Reads go through cachedRead (the app keeps recently read files
// in memory); creation refuses to overwrite anything, including files the vault does not list.
import { normalizePath, TFile, TFolder, type Vault } from "obsidian";
import type { NoteFileInfo, NoteStore } from "../ports";

export type NoteStoreErrorKind = "not_found" | "exists" | "not_a_folder";

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
    await this.createFolders(normalized);
    await this.vault.create(normalized, content);
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
}
