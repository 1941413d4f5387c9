// `--replay DIR`: every `*.json` file in DIR holds one recorded exchange or an array of them; the
// replay Http answers from them in file-name order. `VAULT_RESEARCH_REPLAY_LOG=FILE` appends one
// JSON line per request (secrets masked) — how tests prove what would have left the machine.
import { appendFileSync, readdirSync } from "node:fs";
import { readJsonFile } from "./json-file";
import { whyNot } from "./path-kind";
import path from "node:path";
import type { Http } from "../ports";
import { secretScrubber } from "../text/secret-scrub";
import { envSecretValues } from "./env-secrets";
import { createReplayHttp, parseReplayFile, type RecordedExchange, type ReplayLogEntry } from "../websearch/replay";

export class ReplayDirectoryError extends Error {
  constructor(
    readonly kind: "missing" | "empty" | "invalid",
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
    const read = readJsonFile(path.join(dir, file));
    if (!read.ok) throw new ReplayDirectoryError("invalid", `Replay file ${file} ${read.why}.`);
    const parsed = parseReplayFile(read.value);
    if (!parsed.ok) throw new ReplayDirectoryError("invalid", `Replay file ${file} is not a recorded exchange: ${parsed.message}.`);
    exchanges.push(...parsed.exchanges);
  }
  return exchanges;
}

/**
 * Appends each request as one JSON line; synchronous so lines keep the order requests were made.
 * Secret headers are masked by name already; any of `secrets` left in a URL or a body, in any
 * form, is scrubbed too (the log is a file anyone may be shown).
 */
export function replayLogWriter(file: string, secrets: readonly string[] = []): (entry: ReplayLogEntry) => void {
  const scrub = secretScrubber(secrets);
  return (entry) => appendFileSync(file, `${JSON.stringify(scrub.value(entry))}\n`, "utf8");
}

/** The replay Http for DIR, logging to `VAULT_RESEARCH_REPLAY_LOG` when it is set. */
export function replayHttpFromDirectory(dir: string, env: Record<string, string | undefined>): Http {
  const exchanges = loadReplayDirectory(dir);
  const logFile = env.VAULT_RESEARCH_REPLAY_LOG;
  return createReplayHttp(exchanges, {
    sourceName: dir,
    ...(logFile ? { onRequest: replayLogWriter(logFile, envSecretValues(env)) } : {}),
  });
}
