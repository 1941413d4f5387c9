// NoteStore over a folder on disk: the CLI's vault. Hidden folders (`.obsidian`, `.git`, `.trash`)
// and node_modules are skipped, as Obsidian itself does not show them.
//
// Links (symbolic links, junctions) are not followed when listing: a link to a place inside the
// vault holds notes listed at their real place already, and one leading outside is refused by
// `read` (a vault cloned from someone else may hold `notes.md -> ~/.ssh/id_rsa`, whose text a run
// would hand to a model). The links that lead outside are named (`linksLeadingOut`), so the
// caller can say which notes are left out rather than have them vanish without a word.
//
// Writes stay inside the vault and lose nothing (DESIGN invariant 8). A path is checked twice:
// as written (no `..` out of the vault) and as it really is on disk (a folder inside the vault may
// be a link to anywhere), on create and on rewrite alike, folder by folder as folders are made.
// A new note appears whole or not at all, and never over an entry of any kind: its text is written
// to a hidden temporary file and hard-linked into place, which fails if the name is taken. A
// rewrite goes through a temporary file renamed over the note, under a lock file, so two
// processes rewriting one note both keep their change.
import { randomBytes } from "node:crypto";
import { readdirSync, realpathSync, statSync, type Dirent } from "node:fs";
import { chmod, link, lstat, mkdir, readFile, realpath, rename, stat, unlink, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import type { NoteFileInfo, NoteStore } from "../ports";
import { holdTemporaryFile, releaseTemporaryFile } from "./temporary-files";

export type NoteWriteErrorKind = "outside_vault" | "exists" | "not_a_folder" | "busy";

/** Why a write was refused; `exists` is what a caller that picks another name looks for. */
export class NoteWriteError extends Error {
  constructor(
    readonly kind: NoteWriteErrorKind,
    message: string,
  ) {
    super(message);
    this.name = "NoteWriteError";
  }
}

/** A lock not touched for this long was left by a process that died; it is taken over. */
const STALE_LOCK_MS = 30_000;
/** How long a rewrite waits for another process's rewrite of the same note. */
const LOCK_WAIT_MS = 10_000;
/** File systems without hard links (FAT, some network shares) answer link() with one of these. */
const NO_HARD_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EXDEV", "EINVAL"]);
/** Longest stretch of listing between two yields (ms). */
const LIST_SLICE_MS = 20;

/** A folder of the vault the last listing could not read, and why (an errno code such as EACCES). */
export interface UnlistedFolder {
  path: string;
  code: string;
}

/** A link in the vault to a folder or note outside it: not followed, so its notes are not listed. */
export interface LinkLeadingOut {
  path: string;
  kind: "folder" | "note";
}

export class FsNoteStore implements NoteStore {
  readonly root: string;
  private realRoot: string | undefined;
  private unlisted: UnlistedFolder[] = [];
  private linksOut: LinkLeadingOut[] = [];

  constructor(root: string) {
    this.root = path.resolve(root);
  }

  /**
   * Every note with its mtime and size, sorted by path. Stats are synchronous, which is several
   * times faster than one promise per file (a vault of 9,000 notes lists in about 0.1 s instead of
   * 0.6 s), in slices with a yield between, so a long-lived process (the MCP server) still answers
   * meanwhile. Folders are walked in order, so the list comes out sorted without one sort of it all.
   * Paths are joined by hand, not by `path.join`: a folder's own path is already normal and a name
   * from its listing holds no separator, and normalising each note's path again was a third of a
   * warm search's listing (and 8 MB of garbage at 9,000 notes).
   */
  async list(): Promise<NoteFileInfo[]> {
    const out: NoteFileInfo[] = [];
    const unlisted: UnlistedFolder[] = [];
    const linksOut: LinkLeadingOut[] = [];
    const entriesOf = (abs: string, rel: string) =>
      noteEntries(abs, {
        unreadable: (code) => unlisted.push({ path: rel === "" ? "." : rel, code }),
        link: (name) => this.noteLinkLeadingOut(path.join(abs, name), rel ? `${rel}/${name}` : name, linksOut),
      });
    // Each folder with its absolute path and its vault path, each ready for a name (ending in a separator, or empty at the top).
    const top = this.root.endsWith(path.sep) ? this.root : this.root + path.sep;
    const walk = [{ abs: top, rel: "", entries: entriesOf(this.root, ""), next: 0 }];
    let sliceStart = performance.now();
    while (walk.length > 0) {
      const folder = walk[walk.length - 1];
      if (folder.next === folder.entries.length) {
        walk.pop();
        continue;
      }
      const entry = folder.entries[folder.next++];
      const abs = folder.abs + entry.name;
      const rel = folder.rel + entry.name;
      if (entry.isDirectory()) walk.push({ abs: abs + path.sep, rel: `${rel}/`, entries: entriesOf(abs, rel), next: 0 });
      else {
        const info = statOf(abs, rel);
        if (info) out.push(info);
      }
      if (performance.now() - sliceStart >= LIST_SLICE_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
    }
    this.unlisted = unlisted;
    this.linksOut = linksOut;
    return out;
  }

  /**
   * The links the last `list` (or a `hasNotes` that found no note) did not follow because they lead
   * out of the vault: the notes behind them are not in the index, which the caller says.
   */
  linksLeadingOut(): readonly LinkLeadingOut[] {
    return this.linksOut;
  }

  /**
   * The folders the last `list` could not read (no permission, a network share gone): their notes
   * were not listed, so to a sync they look deleted. The caller says so; a silent gap reads as
   * "the vault has no such notes".
   */
  unlistedFolders(): readonly UnlistedFolder[] {
    return this.unlisted;
  }

  /** Whether the vault holds any note at all (stops at the first). */
  hasNotes(): boolean {
    const folders = [this.root];
    const linksOut: LinkLeadingOut[] = [];
    for (let folder = folders.pop(); folder !== undefined; folder = folders.pop()) {
      const dir = folder;
      const rel = path.relative(this.root, dir).split(path.sep).join("/");
      const link = (name: string) => this.noteLinkLeadingOut(path.join(dir, name), rel ? `${rel}/${name}` : name, linksOut);
      for (const entry of noteEntries(dir, { link })) {
        if (!entry.isDirectory()) return true;
        folders.push(path.join(dir, entry.name));
      }
    }
    // No note of its own: the links out are why, when there are any.
    this.linksOut = linksOut;
    return false;
  }

  /** Adds the link at `abs` to `found` when it leads to a folder, or a note, outside the vault. */
  private noteLinkLeadingOut(abs: string, rel: string, found: LinkLeadingOut[]): void {
    let real: string;
    let isFolder: boolean;
    try {
      // The system's own realpath, as `realInside` uses: Node's other one keeps the case a path was
      // typed in, and a vault opened as `~/notes` on a disk that holds `~/Notes` then had every
      // note's real path (in the disk's case) refused as lying outside it.
      this.realRoot ??= realpathSync.native(this.root);
      real = realpathSync.native(abs);
      isFolder = statSync(real).isDirectory();
    } catch {
      return; // dangling, a loop, or gone meanwhile: no note lies behind it
    }
    if (isWithin(real, this.realRoot)) return; // listed where it lies
    if (isFolder) found.push({ path: rel, kind: "folder" });
    else if (rel.toLowerCase().endsWith(".md")) found.push({ path: rel, kind: "note" });
  }

  async read(notePath: string): Promise<string> {
    // A link inside the vault may point anywhere; only what really lies inside the vault is read.
    const real = await this.realInside(this.resolve(notePath), notePath);
    return readFile(real, "utf8");
  }

  /**
   * A note's facts as `list` gives them, or null when `list` would not give it: nothing there, a
   * folder (a note replaced by a folder of its name), a link (not followed when listing), or a name
   * the disk answers to but does not hold (below).
   */
  async stat(notePath: string): Promise<NoteFileInfo | null> {
    try {
      const abs = this.resolve(notePath);
      const s = await lstat(abs);
      if (!s.isFile() || !(await this.listedAs(abs, notePath))) return null;
      return { path: notePath, mtime: Math.floor(s.mtimeMs), size: s.size };
    } catch {
      return null;
    }
  }

  /**
   * Whether the file at `abs` is listed as `notePath`. A disk that ignores case (APFS, NTFS) still
   * answers to `Note.md` after a rename to `note.md`, and the index, asked about the old name, kept
   * both. The system's realpath gives the name as the disk holds it (case, and where a folder link
   * inside the vault really leads, which `list` does not follow either).
   */
  private async listedAs(abs: string, notePath: string): Promise<boolean> {
    const realRoot = (this.realRoot ??= await realpath(this.root));
    const real = await realpath(abs);
    return path.relative(realRoot, real).split(path.sep).join("/") === notePath;
  }

  /** Any entry counts, a dangling link included: a name is free only when nothing holds it. */
  async exists(notePath: string): Promise<boolean> {
    const abs = this.resolve(notePath);
    try {
      await lstat(abs);
      return true;
    } catch {
      return false;
    }
  }

  async create(notePath: string, content: string): Promise<void> {
    const abs = this.resolve(notePath);
    const dir = await this.folderInside(path.dirname(abs), notePath);
    const temp = await writeTemporary(dir, content);
    try {
      await publishExclusively(temp, abs, content, notePath);
    } finally {
      await unlink(temp).catch(() => undefined);
      releaseTemporaryFile(temp);
    }
    // The folder was checked before the write; a link swapped in meanwhile is caught here.
    await this.realInside(abs, notePath).catch(async (error: unknown) => {
      await unlink(abs).catch(() => undefined);
      throw error;
    });
  }

  /**
   * Replaces a note's text with `update(text)`, atomically: a reader sees the old text or the new,
   * never half of it. Rewrites of one note by several processes are serialised by a lock file.
   */
  async rewrite(notePath: string, update: (text: string) => string): Promise<void> {
    const real = await this.realInside(this.resolve(notePath), notePath);
    await withLock(real, async (stillHeld) => {
      const before = await readFile(real, "utf8");
      const after = update(before);
      if (after === before) return;
      const temp = await writeTemporary(path.dirname(real), after);
      try {
        await chmod(temp, (await stat(real)).mode & 0o7777).catch(() => undefined);
        // Another writer took the lock over while this one was held up: its change must stay.
        if (!(await stillHeld())) throw new NoteWriteError("busy", `${path.basename(real)} was taken over by another process meanwhile; try again.`);
        await rename(temp, real);
      } catch (error) {
        await unlink(temp).catch(() => undefined);
        throw error;
      } finally {
        releaseTemporaryFile(temp);
      }
    });
  }

  /** Vault path → absolute path, refusing anything that would escape the vault as written. */
  private resolve(notePath: string): string {
    const abs = path.resolve(this.root, notePath);
    if (!isWithin(abs, this.root)) {
      throw new NoteWriteError("outside_vault", `Path ${notePath} is outside the vault.`);
    }
    return abs;
  }

  /** The real path of `abs`, which must lie inside the vault's real folder. */
  private async realInside(abs: string, shown: string): Promise<string> {
    const real = await realpath(abs);
    const realRoot = (this.realRoot ??= await realpath(this.root));
    if (!isWithin(real, realRoot)) {
      throw new NoteWriteError("outside_vault", `${shown} links to a place outside the vault.`);
    }
    return real;
  }

  /** Makes `dir` and the folders above it one at a time, each checked to really lie inside the vault. */
  private async folderInside(dir: string, shown: string): Promise<string> {
    let current = this.root;
    await this.realInside(current, shown);
    for (const part of path.relative(this.root, dir).split(path.sep).filter(Boolean)) {
      current = path.join(current, part);
      try {
        await mkdir(current);
      } catch (error) {
        if (codeOf(error) !== "EEXIST") throw error;
      }
      const real = await this.realInside(current, shown);
      if (!(await stat(real)).isDirectory()) throw new NoteWriteError("not_a_folder", `Cannot create ${shown}: ${path.relative(this.root, current)} is a file.`);
    }
    return current;
  }
}

/** A listed note's facts, or null when it went away (or cannot be looked at) meanwhile. */
function statOf(abs: string, rel: string): NoteFileInfo | null {
  try {
    const s = statSync(abs, { throwIfNoEntry: false });
    return s ? { path: rel, mtime: Math.floor(s.mtimeMs), size: s.size } : null;
  } catch {
    return null;
  }
}

/** A hidden entry or node_modules: never listed, nor anything under it (Obsidian does not show them). */
export function isSkippedName(name: string): boolean {
  return name.startsWith(".") || name === "node_modules";
}

/** A vault path (`/`-separated) with a skipped name anywhere in it: no note store lists it. */
export function isSkippedPath(rel: string): boolean {
  return rel.split("/").some(isSkippedName);
}

/** What a folder's listing tells its caller besides the entries it keeps. */
interface ListingNews {
  /** The folder could not be read (an errno code). */
  unreadable?: (code: string) => void;
  /** A link with a name that is not skipped: not kept (links are not followed), but perhaps worth naming. */
  link?: (name: string) => void;
}

/** A note's file name (not `toLowerCase().endsWith`, which copied every name of the vault). */
const MARKDOWN_NAME = /\.md$/i;

/** A folder's notes and the folders worth walking into (hidden ones, node_modules and links are not). */
function noteEntries(dir: string, news: ListingNews = {}): Dirent[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    // A folder that went between its parent's listing and its own (ENOENT, ENOTDIR) was simply deleted.
    const code = codeOf(error) ?? "error";
    if (code !== "ENOENT" && code !== "ENOTDIR") news.unreadable?.(code);
    return [];
  }
  if (news.link) for (const e of entries) if (e.isSymbolicLink() && !isSkippedName(e.name)) news.link(e.name);
  const kept = entries.filter((e) => !isSkippedName(e.name) && (e.isDirectory() || (e.isFile() && MARKDOWN_NAME.test(e.name))));
  // A folder sorts as its name and a slash, where its notes' paths put it ("a.md" < "a/x.md" < "a0.md").
  const key = (e: Dirent) => (e.isDirectory() ? `${e.name}/` : e.name);
  return kept.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** A hidden file beside the note (skipped by list() and by Obsidian), written in full. */
async function writeTemporary(dir: string, content: string): Promise<string> {
  const temp = path.join(dir, `.vault-research-${process.pid}-${randomBytes(6).toString("hex")}.tmp`);
  holdTemporaryFile(temp);
  try {
    await writeFile(temp, content, { encoding: "utf8", flag: "wx" });
  } catch (error) {
    // Part of it may have been written (a full disk); a name that was taken is someone else's.
    if (codeOf(error) !== "EEXIST") await unlink(temp).catch(() => undefined);
    releaseTemporaryFile(temp);
    throw error;
  }
  return temp;
}

/** The temporary file appears under the note's name whole, or fails because the name is taken. */
async function publishExclusively(temp: string, abs: string, content: string, shown: string): Promise<void> {
  try {
    await link(temp, abs);
    return;
  } catch (error) {
    if (codeOf(error) === "EEXIST") throw new NoteWriteError("exists", `${shown} already exists; it was left as it is.`);
    if (!NO_HARD_LINKS.has(codeOf(error) ?? "")) throw error;
  }
  // No hard links here: exclusive, though a reader may see the note before its last byte.
  try {
    await writeFile(abs, content, { encoding: "utf8", flag: "wx" });
  } catch (error) {
    if (codeOf(error) === "EEXIST") throw new NoteWriteError("exists", `${shown} already exists; it was left as it is.`);
    throw error;
  }
}

/** Time between touches of a held lock, so that a live writer's lock never looks stale. */
const LOCK_TOUCH_DIVISOR = 3;

/**
 * Runs `work` while holding `<dir>/.<name>.vault-research-lock`, taking over a stale one. The lock
 * holds a token of this holder's own and is touched while held (a slow disk or share must not make
 * a live writer's lock look stale). `stillHeld` says whether the lock is still this holder's: a
 * process frozen past `staleMs` (a laptop asleep) may find it taken over, and must then not write.
 * It is removed only while it is still this holder's, never another's that took it over.
 */
export async function withLock(file: string, work: (stillHeld: () => Promise<boolean>) => Promise<void>, staleMs = STALE_LOCK_MS): Promise<void> {
  const lock = path.join(path.dirname(file), `.${path.basename(file)}.vault-research-lock`);
  const token = `${process.pid}-${randomBytes(8).toString("hex")}`;
  // On the monotonic clock: a wall clock set back while waiting kept a writer waiting an hour.
  const giveUpAt = performance.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      holdTemporaryFile(lock, token);
      await writeFile(lock, token, { flag: "wx" });
      break;
    } catch (error) {
      releaseTemporaryFile(lock);
      if (codeOf(error) !== "EEXIST") throw error;
      const held = (await ageOf(lock)) ?? 0;
      if (held > staleMs && (await removeStaleLock(lock, staleMs))) continue;
      if (performance.now() > giveUpAt) throw new NoteWriteError("busy", `${path.basename(file)} is being rewritten by another process; try again.`);
      await new Promise((resolve) => setTimeout(resolve, 15 + Math.random() * 20));
    }
  }
  const stillHeld = async () => (await readFile(lock, "utf8").catch(() => null)) === token;
  const touch = setInterval(() => {
    void stillHeld().then((mine) => {
      if (!mine) return;
      const now = new Date();
      return utimes(lock, now, now);
    }).catch(() => undefined);
  }, staleMs / LOCK_TOUCH_DIVISOR);
  touch.unref?.();
  try {
    await work(stillHeld);
  } finally {
    clearInterval(touch);
    if (await stillHeld()) await unlink(lock).catch(() => undefined);
    releaseTemporaryFile(lock);
  }
}

/**
 * Removes a stale lock so that only one writer does it; true when it is gone. Several writers may
 * judge one lock stale at once, and a plain unlink by a late one would remove the fresh lock the
 * first has made since. So the lock is removed only by the holder of `<lock>-takeover` (made
 * exclusively) and only if it is still stale then: while that file is held, no other writer can
 * remove the stale lock, so no fresh one can take its place. The others wait as if it were held.
 */
async function removeStaleLock(lock: string, staleMs: number): Promise<boolean> {
  const takeover = `${lock}-takeover`;
  try {
    await writeFile(takeover, String(process.pid), { flag: "wx" });
  } catch (error) {
    if (codeOf(error) !== "EEXIST") throw error;
    // Left by a writer that died between making and removing it: it must not block the note for ever.
    if (((await ageOf(takeover)) ?? 0) > staleMs) await unlink(takeover).catch(() => undefined);
    return false;
  }
  try {
    const held = await ageOf(lock);
    if (held !== null && held <= staleMs) return false;
    await unlink(lock).catch(() => undefined);
    return true;
  } finally {
    await unlink(takeover).catch(() => undefined);
  }
}

/** How long ago a lock file was written (ms), or null when there is none. */
async function ageOf(file: string): Promise<number | null> {
  return stat(file).then(
    (s) => Date.now() - s.mtimeMs,
    () => null,
  );
}

function codeOf(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined;
}

/**
 * Whether `child` is `root` or lies below it (both absolute). A root at the top of a drive (`E:\`,
 * or `/`) already ends in its separator: adding another made nothing lie inside it.
 */
export function isWithin(child: string, root: string): boolean {
  if (child === root) return true;
  return child.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}
