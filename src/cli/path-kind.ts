// What a path given on the command line is, in the words a refusal uses: the one home of "does not
// exist", "is a file, not a folder" and the rest, for the vault, a config, a cases file and a
// replay folder alike.
import { opendirSync, statSync, type Stats } from "node:fs";

export type PathKind = "folder" | "file";

/** Why `abs` cannot be used as a `kind` ("does not exist", "is a folder, not a file", "cannot be
 * read (EACCES)", …), or null when it can. A folder must be listable too: one that is not would
 * otherwise be taken for a folder holding nothing. */
export function whyNot(kind: PathKind, abs: string): string | null {
  let stats;
  try {
    stats = statSync(abs, { throwIfNoEntry: false });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // A path that runs through a file ("notes.md/x") names nothing.
    if (code === "ENOTDIR") return "does not exist";
    return `cannot be read (${code ?? (error instanceof Error ? error.message : String(error))})`;
  }
  if (!stats) return "does not exist";
  if (kind === "folder") return stats.isDirectory() ? whyNotListable(abs) : `is ${whatIsThere(stats)}, not a folder`;
  if (stats.isFile()) return null;
  return `is ${whatIsThere(stats)}, not a file`;
}

/** What is at a path, as a refusal names it: `--vault` given a named pipe was told it "is a file". */
function whatIsThere(stats: Stats): string {
  if (stats.isFile()) return "a file";
  if (stats.isDirectory()) return "a folder";
  if (stats.isFIFO()) return "a named pipe (FIFO)";
  if (stats.isSocket()) return "a socket";
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return "a device";
  return "something other than a file or folder";
}

function whyNotListable(abs: string): string | null {
  try {
    opendirSync(abs).closeSync();
    return null;
  } catch (error) {
    return `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error))})`;
  }
}
