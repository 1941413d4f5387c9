// NoteStore over Obsidian's Vault. Reads go through cachedRead (the app keeps recently read files
// in memory); creation refuses to overwrite anything, including files the vault does not list.
//
// Writes stay inside the vault (DESIGN invariant 8). Every create and rewrite is checked as
// written (no "." or ".." step, on every adapter), and then for where it really leads, as far as
// the adapter lets us see (`placeCheckOf`; src/plugin/README.md says what each one can verify): on
// the desktop a folder of the vault may be a link to a folder elsewhere, and the app follows it, so
// there the folder's real place is checked, and a note that turns out to lie outside is removed
// again. Rewrites go through `Vault.process`, the app's own read-change-write step, so an edit
// made meanwhile is not lost.
import { normalizePath, TFile, TFolder, type Vault } from "obsidian";
import type { NoteFileInfo, NoteStore } from "../ports";

export type NoteStoreErrorKind = "not_found" | "exists" | "not_a_folder" | "outside_vault" | "place_unverified";

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

/**
 * What an adapter lets a write check about where a path really leads.
 * - `real_path`: the desktop FileSystemAdapter. Its documented `getBasePath()` and `getFullPath()`
 *   name the vault's folder and a path's place on disk; where links lead needs Node's realpath,
 *   which the API does not offer and a plugin may not import, so it is the adapter's own
 *   `fsPromises.realpath` (undocumented; on every desktop release so far).
 * - `unverifiable`: a desktop adapter without that realpath. Links are easy to make on a desktop,
 *   so a write there is refused rather than made blind.
 * - `as_written`: every other adapter (mobile's CapacitorAdapter has `getFullPath` but no
 *   realpath; in-memory ones). Only the path as written is checked; where a link would lead
 *   cannot be. Android's shared storage refuses to make links and the iOS Files app makes none,
 *   so on a phone a vault folder that is a link is not expected; one that arrived by sync would be
 *   followed.
 */
export type PlaceCheck =
  | { kind: "real_path"; root: string; fullPath: (normalizedPath: string) => string; realpath: (fullPath: string) => Promise<string> }
  | { kind: "unverifiable"; why: string }
  | { kind: "as_written"; why: string };

/** What the adapter can verify, from its documented methods (and, on the desktop, its realpath). */
export function placeCheckOf(adapter: unknown): PlaceCheck {
  const a = adapter as { getBasePath?: unknown; getFullPath?: unknown; fsPromises?: { realpath?: unknown } } | null;
  if (!a || typeof a.getBasePath !== "function" || typeof a.getFullPath !== "function") {
    return { kind: "as_written", why: "this adapter cannot tell where a link leads (no real-path call), so only the path as written is checked" };
  }
  const realpath = a.fsPromises?.realpath;
  if (typeof realpath !== "function") {
    return { kind: "unverifiable", why: "this desktop adapter offers no way to see where a folder really leads, so nothing is written rather than perhaps outside the vault" };
  }
  return {
    kind: "real_path",
    root: (a.getBasePath as () => string).call(a),
    fullPath: (p) => (a.getFullPath as (p: string) => string).call(a, p),
    realpath: (p) => (realpath as (p: string) => Promise<string>).call(a.fsPromises, p),
  };
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
    requireWrittenInside(normalized);
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
    requireWrittenInside(normalized);
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

  /**
   * Throws `outside_vault` when `path` (or, while it does not exist, its nearest existing folder)
   * really lies outside the vault, and `place_unverified` when the adapter cannot say but links are likely.
   */
  private async requireInside(path: string, shown: string): Promise<void> {
    const check = placeCheckOf(this.vault.adapter);
    if (check.kind === "as_written") return;
    if (check.kind === "unverifiable") throw new NoteStoreError("place_unverified", `"${shown}" was not written: ${check.why}.`, shown);
    const root = await check.realpath(check.root);
    for (let existing = path; existing !== ""; existing = parentOf(existing)) {
      // The nearest part of the path that is on disk decides where the rest would go.
      const real = await check.realpath(check.fullPath(existing)).catch(() => null);
      if (real === null) continue;
      if (isWithin(real, root)) return;
      throw new NoteStoreError("outside_vault", `"${shown}" would be written outside the vault: "${existing}" links to ${real}.`, shown);
    }
  }
}

/** The check every adapter allows: the path as written stays in the vault (no "." or ".." step). */
function requireWrittenInside(normalized: string): void {
  if (normalized.split("/").some((step) => step === ".." || step === ".")) {
    throw new NoteStoreError("outside_vault", `"${normalized}" is not a path inside the vault: it has a "." or ".." step.`, normalized);
  }
}

/**
 * Whether a real path is `root` or lies below it, on either platform's separator. The top of a drive
 * keeps its separator (E:\ on Windows, / elsewhere), so a vault opened there holds E:\Research, which
 * "E:\" followed by one more separator would not match.
 */
function isWithin(real: string, root: string): boolean {
  if (real === root) return true;
  return ["/", "\\"].some((sep) => real.startsWith(root.endsWith(sep) ? root : `${root}${sep}`));
}

function parentOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash < 0 ? "" : path.slice(0, slash);
}
