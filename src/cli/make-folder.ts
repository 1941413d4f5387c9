// Making a folder and the folders above it, one level at a time, with the true reason when it
// cannot be made. Never Node's recursive mkdir: where a folder that is there refuses a folder in it
// with ENOENT (anywhere under /proc), its loop made the parent, found it there, tried again, and
// spun for ever at full CPU, saying nothing. Its words hid reasons too: on a read-only disk it said
// "ENOENT: no such file or directory" for the very folder asked for (the nearest folder that is
// there says why nothing can be made below it); a file in the folder's place came out as "EEXIST:
// file already exists", as if the folder were there, and a file above it as "ENOTDIR: not a
// directory, mkdir '…/cache/index-…'", never named. Each is said as it is ("… is a file, not a folder").
import { accessSync, constants, existsSync, mkdirSync, statSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { getSystemErrorMap } from "node:util";
import { whyNot } from "./path-kind";

/** Makes `folder` and its parents; throws mkdir's error, with its true reason where Node's hides it. */
export async function makeFolder(folder: string): Promise<void> {
  for (const level of levelsToMake(folder)) {
    try {
      await mkdir(level);
    } catch (error) {
      if (!madeMeanwhile(level, error)) throw mkdirErrorAsItIs(folder, error, level);
    }
  }
}

/** `makeFolder`, at once: for a check made before anything is sent. */
export function makeFolderSync(folder: string): void {
  for (const level of levelsToMake(folder)) {
    try {
      mkdirSync(level);
    } catch (error) {
      if (!madeMeanwhile(level, error)) throw mkdirErrorAsItIs(folder, error, level);
    }
  }
}

/**
 * The folders to make for `folder`, top down: those from below the nearest path that is there, down
 * to `folder` itself, which is always tried (there already, its EEXIST says whether as a folder).
 */
function levelsToMake(folder: string): string[] {
  const levels = [path.resolve(folder)];
  for (let above = path.dirname(levels[0]); !existsSync(above) && path.dirname(above) !== above; above = path.dirname(above)) levels.unshift(above);
  return levels;
}

/** An EEXIST for a folder that is there (made before, or by another process meanwhile): nothing to make. */
function madeMeanwhile(level: string, error: unknown): boolean {
  return (error as NodeJS.ErrnoException | null)?.code === "EEXIST" && isFolder(level);
}

function isFolder(at: string): boolean {
  try {
    return statSync(at, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

/**
 * A mkdir's error as the disk meant it, `level` the folder (of `folder` and its parents) whose mkdir
 * failed: an ENOENT whose nearest existing folder cannot be written to becomes that folder's reason
 * (EROFS, EACCES), named after the folder asked for; an ENOENT though the folder above is there and
 * takes writes says that folder makes none in it (/proc). An ENOENT that stands (a folder above
 * removed meanwhile), or any other error, is given back as it is; an EEXIST says what stands in the
 * level's place, an ENOTDIR which path above it is a file ("… is a file, not a folder").
 */
export function mkdirErrorAsItIs(folder: string, error: unknown, level: string = folder): unknown {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === "EEXIST") return inTheFoldersPlace(folder, level, error as NodeJS.ErrnoException);
  if (code === "ENOTDIR") return inTheFoldersPlace(folder, nearestExisting(path.resolve(level)), error as NodeJS.ErrnoException);
  if (code !== "ENOENT") return error;
  const above = path.dirname(path.resolve(level));
  const refusal = whyNotWritable(nearestExisting(above));
  if (refusal === null && isFolder(above)) return asMkdirError(folder, error as NodeJS.ErrnoException, `${above} does not let folders be made in it: mkdir says ENOENT`);
  if (!refusal?.code || refusal.errno === undefined) return error;
  const words = getSystemErrorMap().get(refusal.errno)?.[1] ?? refusal.code;
  return Object.assign(new Error(`${refusal.code}: ${words}, mkdir '${folder}'`), { code: refusal.code, errno: refusal.errno, syscall: "mkdir", path: folder });
}

/**
 * An ENOTDIR met at `at` by any call (a stat, a read, a rename): the path above it that is a file,
 * named so ("… is a file, not a folder"), its code and call kept; any other error as it is. Node's
 * "ENOTDIR: not a directory, stat '…/query-log.jsonl'" named the file it looked for, not the one in the way.
 */
export function fileInTheWay(at: string, error: unknown): unknown {
  if ((error as NodeJS.ErrnoException | null)?.code !== "ENOTDIR") return error;
  return inTheFoldersPlace(at, nearestExisting(path.resolve(at)), error as NodeJS.ErrnoException);
}

/** `error`'s code, errno and call (a mkdir's, unless it says), in `message`'s words, for `folder`. */
function asMkdirError(folder: string, error: NodeJS.ErrnoException, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code: error.code, errno: error.errno, syscall: error.syscall ?? "mkdir", path: folder });
}

/**
 * A mkdir's EEXIST or an ENOTDIR: something other than a folder is at `at` (a file, a link to
 * one), `folder` itself or the first path above it that is there; named so, its code and `folder` kept.
 */
function inTheFoldersPlace(folder: string, at: string, error: NodeJS.ErrnoException): unknown {
  const why = whyNot("folder", at);
  // Gone or made a folder meanwhile, or a link to nothing ("does not exist"): Node's words stand.
  if (why === null || !isThereNotAFolder(at)) return error;
  return asMkdirError(folder, error, `${at} ${why}`);
}

/** Whether something other than a folder is at `at` (a file, a link to one). */
function isThereNotAFolder(at: string): boolean {
  try {
    return statSync(at, { throwIfNoEntry: false })?.isDirectory() === false;
  } catch {
    return false;
  }
}

/** `at`, or the nearest path above it that is there, a folder or not (the root at worst). */
function nearestExisting(at: string): string {
  while (!existsSync(at) && path.dirname(at) !== at) at = path.dirname(at);
  return at;
}

/** The error writing into `folder` meets, or null when it can be written. */
function whyNotWritable(folder: string): NodeJS.ErrnoException | null {
  try {
    accessSync(folder, constants.W_OK);
    return null;
  } catch (error) {
    return error as NodeJS.ErrnoException;
  }
}
