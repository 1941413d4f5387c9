// Files this process makes for a moment and removes itself: a temporary file on its way to a
// rename (a note or kept trace, an index part, the vectors) and a rewrite's lock beside a note.
// Ctrl-C ends a command between two awaits, and each such moment then left one behind: a hidden
// `.vault-research-….tmp` in the vault, a part-sized file in the cache folder, a lock that made
// the next promotion wait. On SIGINT or SIGTERM the binary removes them, then raises the signal
// again, so the process still ends as interrupted (130 in a shell). A command that stops gently
// on Ctrl-C (embed) listens itself; the signal is then left to it.
import { readFileSync, rmSync } from "node:fs";
import { rename, rm, writeFile } from "node:fs/promises";

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

/**
 * Writes `file` whole or not at all: the data goes to `temp`, held here, and is renamed into place.
 * A write or rename that failed takes its temporary file away (each failure would leave one more);
 * not recursively, so a folder of that name, someone else's, stays.
 */
export async function replaceFileWhole(file: string, data: string | Uint8Array, temp = `${file}.${process.pid}.tmp`): Promise<void> {
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
