// Reading a file of a cache folder without waiting on what is not a file there. A named pipe in its
// place (a stray, or one put there by someone sharing the cache folder) held the read, and so every
// command, for ever; a link to a device (/dev/zero) read without end. The file is opened so that the
// open waits for no writer, then checked to be a regular file before a byte of it is read.
import { constants } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { whyNot } from "./path-kind";

export type RegularFileRead = { kind: "read"; bytes: Buffer } | { kind: "missing" } | { kind: "not_a_file" } | { kind: "too_large"; size: number };

/** The file's bytes, unless it is missing, not a regular file, or over `limit` bytes (then none is read). Other failures throw. */
export async function readRegularFile(file: string, limit = Number.POSITIVE_INFINITY): Promise<RegularFileRead> {
  let handle: FileHandle;
  try {
    // O_NONBLOCK: a pipe's open returns at once (Windows has no such flag, nor such pipes in a folder).
    handle = await open(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { kind: "missing" };
    throw error;
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) return { kind: "not_a_file" };
    if (stats.size > limit) return { kind: "too_large", size: stats.size };
    return { kind: "read", bytes: await handle.readFile() };
  } finally {
    await handle.close();
  }
}

/** The error for what holds `file`'s place and is no file (a pipe, a folder, a device), naming what it is. */
export function notAFile(file: string): Error {
  return new Error(`${file} ${whyNot("file", file) ?? "is not a file"}`);
}
