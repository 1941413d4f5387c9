// An Http at the port that answers from recorded exchanges through the real replay adapter and
// keeps two logs: the masked log the replay adapter writes (what the CLI's
// VAULT_RESEARCH_REPLAY_LOG holds) and the raw requests (to check what would have left, headers
// included). Nothing here reaches the network.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Http, HttpRequest, HttpResponse } from "../../src/ports";
import { createReplayHttp, parseReplayFile, type RecordedExchange, type ReplayLogEntry } from "../../src/websearch/replay";

export const REPO_ROOT = path.resolve(__dirname, "../..");
export const BRAVE_DEMO_DIR = path.join(REPO_ROOT, "fixtures/replay/brave-demo");
export const PROVIDER_FIXTURES_DIR = path.join(REPO_ROOT, "fixtures/websearch");

export interface RecordingHttp extends Http {
  /** Requests as the adapter received them (unmasked). */
  readonly requests: HttpRequest[];
  /** What the replay adapter logged: secret headers masked. */
  readonly log: ReplayLogEntry[];
}

/** Exchanges of every `*.json` file of a replay folder, in file-name order. */
export function replayFolder(dir: string = BRAVE_DEMO_DIR): RecordedExchange[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .flatMap((f) => replayFile(path.join(dir, f)));
}

/** Exchanges of one replay file (absolute, or relative to fixtures/websearch). */
export function replayFile(file: string): RecordedExchange[] {
  const abs = path.isAbsolute(file) ? file : path.join(PROVIDER_FIXTURES_DIR, file);
  const parsed = parseReplayFile(JSON.parse(readFileSync(abs, "utf8")));
  if (!parsed.ok) throw new Error(`${file}: ${parsed.message}`);
  return parsed.exchanges;
}

export interface RecordingHttpOptions {
  /** Runs before each request is answered (e.g. to advance a fake clock or abort a run). */
  beforeAnswer?: (req: HttpRequest) => void | Promise<void>;
}

export function recordingHttp(exchanges: RecordedExchange[], options: RecordingHttpOptions = {}): RecordingHttp {
  const log: ReplayLogEntry[] = [];
  const requests: HttpRequest[] = [];
  const replay = createReplayHttp(exchanges, { onRequest: (entry) => log.push(entry), sourceName: "test recordings" });
  return {
    requests,
    log,
    async request(req: HttpRequest): Promise<HttpResponse> {
      requests.push(req);
      await options.beforeAnswer?.(req);
      return replay.request(req);
    },
  };
}

/** An exchange answering `method url` with an error page or status, for failure tests. */
export function errorExchange(method: "GET" | "POST", url: string, status: number, body: string, headers: Record<string, string> = { "content-type": "text/html" }): RecordedExchange {
  return { method, url, status, headers, body };
}
