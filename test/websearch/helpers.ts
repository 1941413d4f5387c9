// Stand-ins at the ports for web search tests: a clock that advances only when told, secrets from
// a map, and an Http that records what was asked and answers from recorded exchanges.
import { fakeClock as supportFakeClock, type FakeClock } from "../support/fake-clock";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { HttpFailure, type Clock, type Http, type HttpRequest, type HttpResponse, type SecretName, type Secrets } from "../../src/ports";
import { defaultSettings, type Settings } from "../../src/settings";
import { parseReplayFile, type RecordedExchange, type ReplayLogEntry } from "../../src/websearch/replay";
import type { ProviderContext, ProviderLogEvent } from "../../src/websearch/types";

export const repoRoot = path.resolve(__dirname, "../..");
export const ownFixtures = path.join(repoRoot, "fixtures/websearch");
export const sharedFixtures = path.resolve(repoRoot, "../shared/provider-fixtures");

export const braveKey = "BSA-test-key-9f8e7d6c5b4a";
export const exaKey = "exa-test-key-0a1b2c3d4e5f";

/** The support fake clock, started at this folder's fixed "now". */
export function fakeClock(start = Date.parse("2026-03-01T12:00:00Z")): FakeClock {
  return supportFakeClock(start);
}

export function fakeSecrets(values: Partial<Record<SecretName, string>> = { brave: braveKey, exa: exaKey }): Secrets & { asked: SecretName[] } {
  const asked: SecretName[] = [];
  return {
    asked,
    get: async (name) => {
      asked.push(name);
      return values[name] ?? null;
    },
  };
}

export function loadExchange(relative: string, base = ownFixtures): RecordedExchange {
  const parsed = parseReplayFile(JSON.parse(readFileSync(path.join(base, relative), "utf8")));
  if (!parsed.ok) throw new Error(`${relative}: ${parsed.message}`);
  return parsed.exchanges[0];
}

/** The requests a replay logged to VAULT_RESEARCH_REPLAY_LOG, one a line. */
export function replayLogEntries(file: string): ReplayLogEntry[] {
  return readFileSync(file, "utf8").trim().split("\n").map((line) => JSON.parse(line) as ReplayLogEntry);
}

export function ownFixtureFiles(folder: string): string[] {
  return readdirSync(path.join(ownFixtures, folder)).filter((f) => f.endsWith(".json")).map((f) => `${folder}/${f}`);
}

export function toResponse(exchange: RecordedExchange): HttpResponse {
  const text = typeof exchange.body === "string" ? exchange.body : JSON.stringify(exchange.body);
  return { status: exchange.status, headers: { ...exchange.headers }, text };
}

/** An Http that records each request and answers with `answer(request)` (a response, a failure, or a promise). */
export function scriptedHttp(answer: (req: HttpRequest, index: number) => HttpResponse | Promise<HttpResponse>): Http & { requests: HttpRequest[] } {
  const requests: HttpRequest[] = [];
  return {
    requests,
    async request(req) {
      requests.push(req);
      return answer(req, requests.length - 1);
    },
  };
}

export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): HttpResponse {
  return { status, headers: { "content-type": "application/json", ...headers }, text: JSON.stringify(body) };
}

export const networkDown = (): never => {
  throw new HttpFailure("network", "getaddrinfo ENOTFOUND api.search.brave.com");
};

export function testContext(http: Http, overrides: Partial<ProviderContext> & { settings?: Settings } = {}): ProviderContext & { events: ProviderLogEvent[] } {
  const events: ProviderLogEvent[] = [];
  return {
    http,
    secrets: fakeSecrets(),
    clock: fakeClock(),
    settings: defaultSettings(),
    log: (event) => events.push(event),
    ...overrides,
    events,
  };
}
