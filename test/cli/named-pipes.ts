// Named pipes (FIFOs) put where a cache keeps a file, for tests that a read never waits on one. Made
// with mkfifo, which Windows lacks. `releaseNamedPipes` opens each one for writing at once and closes
// it: a read that did wait on one (the behaviour under test broken) then ends, and the process with it.
import { spawnSync } from "node:child_process";
import { closeSync, constants, openSync } from "node:fs";

export const hasMkfifo = process.platform !== "win32" && spawnSync("mkfifo", ["--version"]).status === 0;

const made: string[] = [];

/** A named pipe at `file`. */
export function makeNamedPipe(file: string): void {
  if (spawnSync("mkfifo", [file]).status !== 0) throw new Error(`mkfifo ${file} failed`);
  made.push(file);
}

/** Lets go of any reader still waiting on a pipe made here (an open for writing without one fails: none waits). */
export function releaseNamedPipes(): void {
  for (const file of made.splice(0)) {
    try {
      closeSync(openSync(file, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {
      // No reader waits on it, or it is gone.
    }
  }
}
