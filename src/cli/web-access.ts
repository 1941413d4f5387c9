// How a command reaches the web: recorded exchanges when a replay folder is given (--replay DIR or
// VAULT_RESEARCH_REPLAY), else the network. Model calls are not web access: they always go to the
// configured model endpoint (DESIGN.md, "CLI contract"). A search session for either: paced at each
// service's rate for the network, unpaced for recordings.
import path from "node:path";
import type { Clock, Http, Secrets } from "../ports";
import type { FetchGuardOptions } from "../promote/fetch-guard";
import { createSearchSession, NO_PACING, type SearchSession } from "../websearch/search-providers";
import { UsageError } from "./args";
import { dnsResolveHost } from "./dns-resolver";
import { envSecrets } from "./env-secrets";
import { createFetchHttp } from "./fetch-http";
import { replaySecrets } from "./provider-choice";
import { ReplayDirectoryError, replayFolderShown, replayHttpFromDirectory } from "./replay-dir";

export interface WebAccess {
  http: Http;
  secrets: Secrets;
  /** Page fetches look names up only when they go to the network; replay never resolves anything. */
  fetchGuard: FetchGuardOptions;
  /** The replay folder as given (how terminal and `--json` output name it), when answers are recorded ones. */
  replayDir?: string;
  /**
   * The same folder as notes name it, `replayFolderShown`: what goes into the vault (trace notes,
   * kept traces, promoted notes) never holds an absolute path of this machine. Set with `replayDir`.
   */
  replayShown?: string;
}

/**
 * A search session for a run over `web`. Replayed answers reach no service, so none is paced: a
 * replayed run asking Brave twice sat a second "for Brave's rate limit", and said so. A pause a
 * recorded 429 asks for is still kept, as the recording says.
 */
export function searchSessionFor(web: Pick<WebAccess, "replayDir">, clock: Clock): SearchSession {
  return web.replayDir === undefined ? createSearchSession({ clock }) : createSearchSession({ clock }, NO_PACING);
}

/** `given`: the --replay value, if any. A replay folder that is missing, empty or broken is a usage error. */
export function webAccess(given: string | undefined, io: { env: Record<string, string | undefined>; cwd: string }, network: Http = createFetchHttp()): WebAccess {
  const env = envSecrets(io.env);
  const replay = given ?? replayFromEnvironment(io.env);
  if (!replay && io.env.VAULT_RESEARCH_REPLAY_LOG) {
    // The log proves what a replayed run would have sent; with no replay folder it would stay empty
    // while the run reached the network, and an empty log reads as "nothing was sent".
    throw new UsageError("VAULT_RESEARCH_REPLAY_LOG is set, but no replay folder is given (--replay DIR or VAULT_RESEARCH_REPLAY): the log records only replayed requests, and this run would reach the network.");
  }
  if (!replay) return { http: network, secrets: env, fetchGuard: { resolve: dnsResolveHost } };
  const dir = path.resolve(io.cwd, replay);
  const shown = replayFolderShown(replay, dir);
  try {
    return { http: replayHttpFromDirectory(dir, io.env, shown), secrets: replaySecrets(env), fetchGuard: {}, replayDir: replay, replayShown: shown };
  } catch (error) {
    if (error instanceof ReplayDirectoryError) throw new UsageError(error.message);
    throw error;
  }
}

/**
 * VAULT_RESEARCH_REPLAY, when set. Set but empty is refused as `--replay ""` is (args.ts): written
 * `VAULT_RESEARCH_REPLAY=$DIR` with DIR unset, read as absent it would quietly search the live web.
 */
export function replayFromEnvironment(env: Record<string, string | undefined>): string | undefined {
  const value = env.VAULT_RESEARCH_REPLAY;
  if (value !== undefined && value.trim() === "") {
    throw new UsageError("VAULT_RESEARCH_REPLAY is set but empty: give it the replay folder, or unset it for the live network.");
  }
  return value;
}
