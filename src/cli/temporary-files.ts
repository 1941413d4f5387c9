// Files this process makes for a moment and removes itself: a temporary file on its way to a
// rename (a note or kept trace, an index part, the vectors) and a rewrite's lock beside a note.
// Ctrl-C ends a command between two awaits, and each such moment then left one behind: a hidden
// `.vault-research-….tmp` in the vault, a part-sized file in the cache folder, a lock that made
// the next promotion wait. On SIGINT or SIGTERM the binary removes them, then raises the signal
// again, so the process still ends as interrupted (130 in a shell). A command that stops gently
// on Ctrl-C (embed) listens itself; the signal is then left to it.
import { randomBytes } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { readdir, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { inTurnOf } from "../deadline";

/** Each file, and what it must still hold to be this process's (a lock's token), or null. */
const held = new Map<string, string | null>();

/** `file` is about to be made by this process, which will remove (or rename) it itself. */
export function holdTemporaryFile(file: string, token: string | null = null): void {
  held.set(file, token);
}

/** `file` was renamed into place or removed: nothing is left to clean up. */
export function releaseTemporaryFile(file: string): void {
  held.delete(file);
}

/** Work under way in this process, by what it works on (a file's path): the last of each key, settled or not. */
const turns = new Map<string, Promise<void>>();

/**
 * Runs `work` once every earlier work of `key` in this process has settled, failed or not: the one
 * way two updates of one file take turns (a write through a shared temporary name, a read-change-write
 * of a kept trace). Not across processes: for that, a lock file (fs-note-store.ts's `withLock`).
 */
export function inTurn<T>(key: string, work: () => Promise<T>): Promise<T> {
  return inTurnOf(turns, key, work);
}

/**
 * Writes `file` whole or not at all: the data goes to `temp`, held here, and is renamed into place.
 * A write or rename that failed takes its temporary file away (each failure would leave one more);
 * not recursively, so a folder of that name, someone else's, stays. Two writes of one file at once
 * (they share `temp`) take turns: together they put a mix of both in place, and one failed.
 */
export function replaceFileWhole(file: string, data: string | Uint8Array, temp = `${file}.${process.pid}.tmp`): Promise<void> {
  return inTurn(temp, () => writeThenRename(file, data, temp));
}

/**
 * A temporary name beside `file` that no other write shares, in this process or another: its id and
 * random bytes. The default `<file>.<pid>.tmp` takes turns within a process, but a process of the same
 * id in another container sharing the cache folder writes the same name at the same time.
 */
export function uniqueTemporaryName(file: string): string {
  return `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
}

async function writeThenRename(file: string, data: string | Uint8Array, temp: string): Promise<void> {
  holdTemporaryFile(temp);
  try {
    await writeFile(temp, data);
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw error;
  } finally {
    releaseTemporaryFile(temp);
  }
}

/**
 * `<file>.<pid>.tmp`, how replaceFileWhole names a temporary file by default, or
 * `<file>.<pid>.<12 hex>.tmp`, as `uniqueTemporaryName` does (a kept trace's). A pid has at most 10
 * digits, so the 12 random ones are never read as one.
 */
const TEMPORARY_NAME = /^(.+)\.([1-9][0-9]{0,9})(?:\.[0-9a-f]{12})?\.tmp$/;
/**
 * How old a leftover must be before it is taken: a process in another pid namespace (a container
 * sharing the cache folder) looks gone from here while it writes, and a file being written is young.
 */
const LEFTOVER_AGE_MS = 60 * 60 * 1000;

/**
 * The names (without `extension`) of a cache folder's files that `isOurs` claims: the index's parts,
 * the vectors' parts. A folder not made yet holds none; any other failure to list it is thrown.
 */
export async function ownFilesIn(folder: string, isOurs: (file: string) => boolean, extension: string): Promise<string[]> {
  let files: string[];
  try {
    files = await readdir(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  return files.filter(isOurs).map((f) => f.slice(0, -extension.length));
}

/**
 * Takes away the temporary files in `folder` that `replaceFileWhole` left for the files `isOurs`
 * names, when the process that made them is gone: one killed mid-save (SIGKILL, the out-of-memory
 * killer, a power cut) never ran its cleanup, and nothing else would ever remove them — the
 * vectors' is as big as the vectors, and a kept trace's stayed beside the traces for good. Best
 * effort: a file that cannot be looked at stays.
 */
export async function removeLeftoverTemporaryFiles(folder: string, isOurs: (file: string) => boolean, now = Date.now()): Promise<void> {
  let names: string[];
  try {
    names = await readdir(folder);
  } catch {
    return;
  }
  for (const name of names) {
    const match = TEMPORARY_NAME.exec(name);
    if (!match || !isOurs(match[1]) || isRunning(Number(match[2]))) continue;
    const file = path.join(folder, name);
    try {
      const info = await stat(file);
      if (info.isFile() && now - info.mtimeMs > LEFTOVER_AGE_MS) await rm(file);
    } catch {
      // Renamed into place or removed meanwhile: nothing left to do.
    }
  }
}

/** Whether a process of this id runs (as far as this process can tell: when unsure, it does). */
function isRunning(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

/** Removes every held file still there (a lock only while it still holds this process's token). */
export function removeTemporaryFiles(): void {
  for (const [file, token] of held) {
    try {
      if (token === null || readFileSync(file, "utf8") === token) rmSync(file, { force: true });
    } catch {
      // Gone already, or not this process's any more.
    }
  }
  held.clear();
}

type Signal = "SIGINT" | "SIGTERM";

/** What the handler needs of the process (tests pass a stand-in). */
export interface SignalledProcess {
  on(signal: Signal, listener: () => void): unknown;
  removeListener(signal: Signal, listener: () => void): unknown;
  listenerCount(signal: Signal): number;
  kill(pid: number, signal: Signal): unknown;
  pid: number;
}

/** On SIGINT or SIGTERM: the held files removed, then the signal raised again with Node's own handling. */
export function removeTemporaryFilesOnSignal(proc: SignalledProcess = process): void {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    const onSignal = (): void => {
      // Another listener (embed's gentle stop) handles this one; a second Ctrl-C comes back here.
      if (proc.listenerCount(signal) > 1) return;
      removeTemporaryFiles();
      proc.removeListener(signal, onSignal);
      proc.kill(proc.pid, signal);
    };
    proc.on(signal, onSignal);
  }
}
