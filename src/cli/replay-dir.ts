// `--replay DIR`: every `*.json` file in DIR holds one recorded exchange or an array of them; the
// replay Http answers from them in file-name order. `VAULT_RESEARCH_REPLAY_LOG=FILE` appends one
// JSON line per request (secrets masked) — how tests prove what would have left the machine.
import { appendFileSync, readdirSync, statSync } from "node:fs";
import { readJsonFile } from "./json-file";
import { whyNot } from "./path-kind";
import path from "node:path";
import type { Http } from "../ports";
import { secretScrubber } from "../text/secret-scrub";
import { envSecretValues } from "./env-secrets";
import { createReplayHttp, parseReplayFile, type RecordedExchange, type ReplayLogEntry } from "../websearch/replay";

export class ReplayDirectoryError extends Error {
  constructor(
    /** `log`: the file VAULT_RESEARCH_REPLAY_LOG names cannot be written. */
    readonly kind: "missing" | "empty" | "invalid" | "log",
    message: string,
  ) {
    super(message);
    this.name = "ReplayDirectoryError";
  }
}

export function loadReplayDirectory(dir: string): RecordedExchange[] {
  const unusable = whyNot("folder", dir);
  if (unusable) throw new ReplayDirectoryError("missing", `Replay folder ${dir} ${unusable}.`);
  const files = readdirSync(dir).filter((f) => f.endsWith(".json")).sort();
  if (files.length === 0) throw new ReplayDirectoryError("empty", `Replay folder ${dir} holds no .json files.`);
  const exchanges: RecordedExchange[] = [];
  for (const file of files) {
    const tooLarge = whyTooLarge(path.join(dir, file));
    if (tooLarge) throw new ReplayDirectoryError("invalid", `Replay file ${file} ${tooLarge}.`);
    const read = readJsonFile(path.join(dir, file));
    if (!read.ok) throw new ReplayDirectoryError("invalid", `Replay file ${file} ${read.why}.`);
    const parsed = parseReplayFile(read.value);
    if (!parsed.ok) throw new ReplayDirectoryError("invalid", `Replay file ${file} is not a recorded exchange: ${parsed.message}.`);
    // One at a time: spread into push, a file of 150,000 small exchanges (7 MB) overflowed the
    // stack, and the command failed with "Maximum call stack size exceeded", naming no file.
    for (const exchange of parsed.exchanges) exchanges.push(exchange);
  }
  return exchanges;
}

/**
 * The most a replay file may hold. A recorded answer is read up to 5 MB (a page), so this holds a
 * dozen of the largest; a file of hundreds of megabytes was read whole and parsed, a gigabyte of
 * memory and seconds of work, before any search.
 */
export const maxReplayFileBytes = 64 * 1024 * 1024;

/** Why `file` is too large to read as a recording, or null. */
function whyTooLarge(file: string): string | null {
  let size: number;
  try {
    size = statSync(file).size;
  } catch {
    return null; // readJsonFile says what is wrong with it
  }
  return size > maxReplayFileBytes ? `is larger than the ${maxReplayFileBytes / (1024 * 1024)} MB a replay file may hold (${size.toLocaleString("en-US")} bytes)` : null;
}

/**
 * Appends each request as one JSON line; synchronous so lines keep the order requests were made.
 * Secret headers are masked by name already; any of `secrets` left in a URL or a body, in any
 * form, is scrubbed too (the log is a file anyone may be shown).
 */
export function replayLogWriter(file: string, secrets: readonly string[] = []): (entry: ReplayLogEntry) => void {
  const scrub = secretScrubber(secrets);
  return (entry) => {
    try {
      appendFileSync(file, `${JSON.stringify(scrub.value(entry))}\n`, "utf8");
    } catch (error) {
      // The request is not answered: the log is the proof of what was sent, and it would be missing a line.
      // Said as the log's failure, not left to read as the source's ("Could not reach Brave: ENOSPC").
      throw new Error(`the replay log ${file} could not be written (${errorCode(error)})`);
    }
  };
}

/**
 * Creates the log (or appends nothing to it) before any request: a file that cannot be written is
 * said once, at the start, rather than as every source failing "to be reached" and a run that
 * exits 0 with its proof missing.
 */
function checkLogWritable(file: string): void {
  try {
    appendFileSync(file, "", "utf8");
  } catch (error) {
    throw new ReplayDirectoryError("log", `The replay log ${file} (VAULT_RESEARCH_REPLAY_LOG) cannot be written (${errorCode(error)}).`);
  }
}

function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
}

/**
 * How the recordings' folder is named wherever a note can carry it: the `replayed_from` and
 * `page_replayed_from` of trace and promoted notes, their sentences, and a request the recordings
 * miss (a source's failure, which reaches those notes, every output and an agent over MCP). As typed
 * when relative (`recordings/combined`), by its last part when absolute: `--replay ~/x` reaches
 * here as `/home/you/x`, and a note that sync carries would tell the machine's layout. `.` or `..`
 * names nothing, so it is named by its last part too; and a path that climbs out of the folder it
 * was typed in (`../../alice/recordings`) is a place on the machine, as an absolute one is: typed
 * from a temporary folder, it named the home folder's owner and the path down to the recordings.
 * `dir`: `given` resolved.
 */
export function replayFolderShown(given: string, dir: string): string {
  const normal = path.normalize(given);
  const climbs = normal === ".." || normal.startsWith(`..${path.sep}`);
  if (!path.isAbsolute(given) && !climbs && !/^\.\.?$/.test(path.basename(normal))) return given;
  // The root has no last part; it says nothing of the machine's layout either.
  return path.basename(dir) || dir;
}

/**
 * The replay Http for DIR, logging to `VAULT_RESEARCH_REPLAY_LOG` when it is set. `shown`: the
 * folder as the notes of the run name it (`replayFolderShown`), so a miss and the notes agree.
 */
export function replayHttpFromDirectory(dir: string, env: Record<string, string | undefined>, shown: string = replayFolderShown(dir, dir)): Http {
  const exchanges = loadReplayDirectory(dir);
  const logFile = env.VAULT_RESEARCH_REPLAY_LOG;
  if (logFile) checkLogWritable(logFile);
  return createReplayHttp(exchanges, {
    sourceName: shown,
    ...(logFile ? { onRequest: replayLogWriter(logFile, envSecretValues(env)) } : {}),
  });
}
