// Runs one provider against our recorded exchanges (fixtures/websearch/<source>/) or a scripted
// answer, through the real replay adapter, and returns what came back — an answer or the
// ProviderError — so a test reads as "this recording gives that outcome".
import type { Http } from "../../../src/ports";
import { defaultSettings, type Settings } from "../../../src/settings";
import { createProviderRegistry } from "../../../src/websearch/registry";
import { ProviderError, type ProviderName, type ProviderResponse, type SearchRequest } from "../../../src/websearch/types";
import { RateGovernor } from "../../../src/websearch/rate-governor";
import { recordingHttp, replayFile, type RecordingHttp } from "../../support/recording-http";
import { fakeClock, fakeSecrets, testContext } from "../helpers";
import type { FakeClock } from "../../support/fake-clock";

export const GITHUB_TOKEN = "ghp_leakcheckSAMPLE0123456789abcdef";
export const TAVILY_KEY = "tvly-leakcheck-0123456789SAMPLE";

/** Settings our fixtures were written for: the SearXNG instance they name is set. */
export function fixtureSettings(change?: (s: Settings) => void): Settings {
  const settings = defaultSettings();
  settings.external.searxng.baseUrl = "http://localhost:8888";
  change?.(settings);
  return settings;
}

export interface SourceRun {
  outcome: ProviderResponse | ProviderError;
  http: Http & { requests: { url: string; headers?: Record<string, string>; body?: string; method: string }[] };
  clock: FakeClock;
  governor: RateGovernor;
}

export interface RunOptions {
  request?: SearchRequest;
  settings?: Settings;
  secrets?: Partial<Record<"brave" | "exa" | "github" | "tavily" | "searxng", string>>;
  /** The fake clock's start (default: the web search tests' fixed "now"). */
  now?: number;
}

/** Asks `source` once; `http` is a recording file name (relative to fixtures/websearch) or an Http. */
export async function runSource(source: ProviderName, http: string | (Http & { requests: SourceRun["http"]["requests"] }), options: RunOptions = {}): Promise<SourceRun> {
  const transport: RecordingHttp | (Http & { requests: SourceRun["http"]["requests"] }) = typeof http === "string" ? recordingHttp(replayFile(http)) : http;
  const clock = fakeClock(options.now);
  const governor = new RateGovernor(clock);
  const context = testContext(transport, {
    clock,
    governor,
    settings: options.settings ?? fixtureSettings(),
    secrets: fakeSecrets(options.secrets ?? { tavily: TAVILY_KEY }),
  });
  const provider = createProviderRegistry().get(source)!;
  try {
    return { outcome: await provider.search(options.request ?? { query: "q", count: 5 }, context), http: transport, clock, governor };
  } catch (error) {
    if (error instanceof ProviderError) return { outcome: error, http: transport, clock, governor };
    throw error;
  }
}

export function answer(run: SourceRun): ProviderResponse {
  if (run.outcome instanceof ProviderError) throw new Error(`expected an answer, got ${run.outcome.kind}: ${run.outcome.message}`);
  return run.outcome;
}

export function failure(run: SourceRun): ProviderError {
  if (!(run.outcome instanceof ProviderError)) throw new Error(`expected a failure, got ${run.outcome.results.length} results`);
  return run.outcome;
}
