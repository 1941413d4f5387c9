// Making a folder and the folders above it, with the true reason when it cannot be made. Node's
// recursive mkdir, refused by a read-only disk (EROFS), looks whether the folder is there, finds it
// is not, and reports that: "ENOENT: no such file or directory" for the very folder it was asked to
// make. The nearest folder that is there says why nothing can be made below it. A file in the
// folder's place is said to be one: Node's "EEXIST: file already exists" reads as if the folder were there;
// and so is a file above it, which Node's "ENOTDIR: not a directory, mkdir '…/cache/index-…'" never named.
import { accessSync, constants, existsSync, mkdirSync, statSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { getSystemErrorMap } from "node:util";
import { whyNot } from "./path-kind";

/** Makes `folder` and its parents; throws mkdir's error, with its true reason where Node's hides it. */
export async function makeFolder(folder: string): Promise<void> {
  try {
    await mkdir(folder, { recursive: true });
  } catch (error) {
    throw mkdirErrorAsItIs(folder, error);
  }
}

/** `makeFolder`, at once: for a check made before anything is sent. */
export function makeFolderSync(folder: string): void {
  try {
    mkdirSync(folder, { recursive: true });
  } catch (error) {
    throw mkdirErrorAsItIs(folder, error);
  }
}

/**
 * A recursive mkdir's error as the disk meant it: an ENOENT whose nearest existing folder cannot be
 * written to becomes that folder's reason (EROFS, EACCES), named after the folder asked for. Any
 * other error, or an ENOENT that stands (a folder above removed meanwhile), is given back as it is;
 * an EEXIST says what stands in the folder's place, an ENOTDIR which path above it is a file
 * ("… is a file, not a folder").
 */
export function mkdirErrorAsItIs(folder: string, error: unknown): unknown {
  if ((error as NodeJS.ErrnoException | null)?.code === "EEXIST") return inTheFoldersPlace(folder, folder, error as NodeJS.ErrnoException);
  if ((error as NodeJS.ErrnoException | null)?.code === "ENOTDIR") return inTheFoldersPlace(folder, nearestExisting(path.resolve(folder)), error as NodeJS.ErrnoException);
  if ((error as NodeJS.ErrnoException | null)?.code !== "ENOENT") return error;
  const refusal = whyNotWritable(nearestExisting(path.dirname(path.resolve(folder))));
  if (!refusal?.code || refusal.errno === undefined) return error;
  const words = getSystemErrorMap().get(refusal.errno)?.[1] ?? refusal.code;
  return Object.assign(new Error(`${refusal.code}: ${words}, mkdir '${folder}'`), { code: refusal.code, errno: refusal.errno, syscall: "mkdir", path: folder });
}

/**
 * A recursive mkdir's EEXIST or ENOTDIR: something other than a folder is at `at` (a file, a link to
 * one), `folder` itself or the first path above it that is there; named so, its code and `folder` kept.
 */
function inTheFoldersPlace(folder: string, at: string, error: NodeJS.ErrnoException): unknown {
  const why = whyNot("folder", at);
  // Gone or made a folder meanwhile, or a link to nothing ("does not exist"): Node's words stand.
  if (why === null || !isThereNotAFolder(at)) return error;
  return Object.assign(new Error(`${at} ${why}`), { code: error.code, errno: error.errno, syscall: "mkdir", path: folder });
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
