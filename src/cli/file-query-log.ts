// The QueryLogFile port as two JSON-lines files in the vault's cache folder (never the vault:
// DESIGN invariant 8): `query-log.jsonl` (current) and `query-log.1.jsonl` (previous). Lines are
// appended; rotation renames current over previous, so the log stays within twice the rotation
// size. A missing file reads as empty; a file where a folder above it should be is named as one
// ("… is a file, not a folder", make-folder.ts), never in Node's words about the log's own name.
import { constants } from "node:fs";
import { open, rename, rm, stat, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { QueryLog, type QueryLogOptions } from "../index/query-log/query-log";
import type { QueryLogFile } from "../index/query-log/query-log-file";
import type { Settings } from "../settings";
import { fileInTheWay, makeFolder } from "./make-folder";
import { whyNot } from "./path-kind";
import { notAFile, readRegularFile } from "./regular-file";

export const QUERY_LOG_NAME = "query-log.jsonl";
export const PREVIOUS_QUERY_LOG_NAME = "query-log.1.jsonl";

export class FileQueryLogFile implements QueryLogFile {
  readonly current: string;
  readonly previous: string;

  /** `folder`: the vault's cache folder (FileIndexCache.folder). */
  constructor(readonly folder: string) {
    this.current = path.join(folder, QUERY_LOG_NAME);
    this.previous = path.join(folder, PREVIOUS_QUERY_LOG_NAME);
  }

  async append(text: string): Promise<void> {
    await makeFolder(this.folder);
    // Opening a named pipe to write waits for a reader: the search that logged held for ever. Opened
    // without waiting and checked once open, not looked at first: a pipe put there after the look
    // held the search as before (with no reader, such an open fails at once, ENXIO).
    let handle: FileHandle;
    try {
      handle = await open(this.current, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NONBLOCK ?? 0));
    } catch (error) {
      refuseWhatIsNoFile(this.current);
      throw error;
    }
    try {
      if (!(await handle.stat()).isFile()) throw notAFile(this.current);
      await handle.appendFile(text, "utf8");
    } finally {
      await handle.close();
    }
  }

  async size(): Promise<number> {
    try {
      return (await stat(this.current)).size;
    } catch (error) {
      if (missing(error)) return 0;
      throw fileInTheWay(this.current, error);
    }
  }

  async rotate(): Promise<void> {
    try {
      await rename(this.current, this.previous);
    } catch (error) {
      if (!missing(error)) throw fileInTheWay(this.current, error);
    }
  }

  async read(): Promise<{ previous: string; current: string }> {
    return { previous: await readOrEmpty(this.previous), current: await readOrEmpty(this.current) };
  }

  async clear(): Promise<void> {
    await rm(this.current, { force: true });
    await rm(this.previous, { force: true });
  }
}

/**
 * The query log of a vault's cache folder, switched on or off by settings.search.queryLog. Give it
 * the scrubber of the environment's keys (`envSecretValues`): a key typed into a query is not logged.
 */
export function openQueryLog(folder: string, settings: Settings, options: Pick<QueryLogOptions, "maxBytes" | "scrubber"> = {}): QueryLog {
  return new QueryLog({ file: new FileQueryLogFile(folder), enabled: settings.search.queryLog, ...options });
}

async function readOrEmpty(file: string): Promise<string> {
  // Not a plain read: a named pipe in the log's place held it, and every search, for ever.
  const read = await readRegularFile(file).catch((error: unknown) => {
    throw fileInTheWay(file, error);
  });
  if (read.kind === "missing") return "";
  if (read.kind !== "read") throw notAFile(file);
  return read.bytes.toString("utf8");
}

/** Throws, naming what is there, when something other than a file (a pipe, a folder) holds `file`'s place. */
function refuseWhatIsNoFile(file: string): void {
  const why = whyNot("file", file);
  if (why !== null && why !== "does not exist") throw new Error(`${file} ${why}`);
}

function missing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === "ENOENT";
}
