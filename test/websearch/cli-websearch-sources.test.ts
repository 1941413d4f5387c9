// The websearch command over the free sources, SearXNG and Tavily: the compact block (labels,
// signals in words, the footer), the JSON reports, the free set standing in when no key is set,
// and keys that never leave a trace in what is printed or logged.
import { copyFileSync, mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { websearchCommand, type WebsearchOptions } from "../../src/cli/websearch-command";
import { PROVIDER_NAMES } from "../../src/provider-names";
import type { ProviderName } from "../../src/websearch/types";
import { fakeClock, jsonResponse, ownFixtures, replayLogEntries, repoRoot, scriptedHttp } from "./helpers";
import { readWebsearch } from "../support/cli-json";
import { fixtureSettings, GITHUB_TOKEN, TAVILY_KEY } from "./providers/source-harness";
import { recordingHttp, replayFolder } from "../support/recording-http";

const FREE_DEMO = path.join(repoRoot, "fixtures/replay/free-sources-demo");
const DEMO_QUESTION = "What are sequence CRDTs, which papers and libraries implement them, and what do developers think of them?";

function capture(env: Record<string, string | undefined> = {}) {
  const io = { stdout: "", stderr: "", out: (s: string) => void (io.stdout += s), err: (s: string) => void (io.stderr += s), env, clock: fakeClock() };
  return io;
}

const options = (over: Partial<WebsearchOptions> = {}): WebsearchOptions => ({
  query: DEMO_QUESTION,
  providers: ["wikipedia", "hackernews", "arxiv", "github", "stackexchange"],
  freshness: "any",
  count: 5,
  settings: fixtureSettings(),
  json: false,
  ...over,
});

/** A replay folder holding the given recordings of fixtures/websearch. */
function replayDirOf(...files: string[]): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "vr-sources-"));
  files.forEach((file, i) => copyFileSync(path.join(ownFixtures, file), path.join(dir, `${i}.json`)));
  return dir;
}

describe("websearch over the free sources", () => {
  it("prints every row with its source's label, signals in words, and a footer that says who was asked and why", async () => {
    const io = capture();
    expect(await websearchCommand(options({ replayDir: FREE_DEMO }), io)).toBe(0);
    expect(io.stdout).toContain("Outside vault: 11 rows (2 from arXiv, 2 from GitHub, 1 from Stack Exchange, 3 from Wikipedia, 3 from Hacker News)");
    expect(io.stdout).toContain("2. yjs/yjs\n   https://github.com/yjs/yjs\n   Outside vault · GitHub · ephemeral · also found by Hacker News · 2024-11-02\n");
    expect(io.stdout).toContain("   18,000 stars · JavaScript · last push 2025-09-10 · 305 points · 96 comments\n");
    expect(io.stdout).toContain("   score 27 · 3 answers · accepted answer · tags: crdt, collaborative-editing\n");
    expect(io.stdout).toContain("   by C. Placeholder, D. Fictional, E. Sample et al. · cs.DB · Sample Workshop on Local-First Software (2025)\n");
    expect(io.stdout).toContain("Sources asked: Wikipedia (3 results, ");
    expect(io.stdout).toContain("Why: Wikipedia: question asks for a definition or background (“What are”); Hacker News: question asks what people think (“what do developers think”); arXiv: question mentions a paper (“papers”)");
    expect(io.stdout).toContain("Duplicates: 2. yjs/yjs (also: hackernews)");
  });

  it("names the skipped sources and why", async () => {
    const io = capture();
    await websearchCommand(options({ query: "Which papers describe sequence CRDTs?", replayDir: FREE_DEMO }), io);
    expect(io.stdout).toContain("Sources asked: arXiv (2 results, 0 ms)\n");
    expect(io.stdout).toContain("Skipped: Wikipedia: not asked — question is not about definitions or background; Hacker News: not asked — question is not about news or opinions; GitHub: not asked — question is not about code; Stack Exchange: not asked — question is not about code\n");
  });

  it("--json carries the results with their signals as data and in words, the per-source reports and the topics", async () => {
    const io = capture();
    await websearchCommand(options({ replayDir: FREE_DEMO, json: true }), io);
    const out = readWebsearch(io.stdout);
    expect(out.schema).toBe("websearch.v1");
    expect(out.topics).toEqual(["code", "papers", "news", "background"]);
    const yjs = out.results.find((r) => r.url === "https://github.com/yjs/yjs")!;
    expect(yjs).toMatchObject({ label: "Outside vault · GitHub · ephemeral", provider: "github", also_found_by: ["hackernews"], merge: { weight: 0.9, basis: "score_and_rank" } });
    expect(yjs.source_signals).toContainEqual({ kind: "stars", value: 18000 });
    expect(yjs.source_signals_in_words).toBe("18,000 stars · JavaScript · last push 2025-09-10 · 305 points · 96 comments");
    expect(out.sources[2]).toMatchObject({ source: "arxiv", status: "answered", returned: 2, kept: 2, route: { ask: true, in_words: "arXiv: question mentions a paper (“papers”)" }, bounds: { timeout_ms: 8000, max_results: 10, min_interval_ms: 3000 } });
  });

  it("labels every outside row with its source's name, for every source", async () => {
    const recordings: Record<Exclude<ProviderName, "brave" | "brave-web" | "exa">, string> = {
      wikipedia: "wikipedia/search-crdt.json",
      hackernews: "hackernews/search-crdt.json",
      arxiv: "arxiv/query-sequence-crdts.json",
      github: "github/search-sequence-crdts.json",
      stackexchange: "stackexchange/search-y-websocket.json",
      pubmed: "pubmed/search-clinical-notes.json",
      searxng: "searxng/search-crdt.json",
      tavily: "tavily/search-crdt.json",
    };
    for (const [source, file] of Object.entries(recordings) as [ProviderName, string][]) {
      const io = capture({ TAVILY_API_KEY: TAVILY_KEY });
      expect(await websearchCommand(options({ providers: [source], replayDir: replayDirOf(file) }), io), source).toBe(0);
      const rows = io.stdout.match(/^\d+\. /gm) ?? [];
      const labels = io.stdout.match(/^ {3}Outside vault · [^·\n]+ · ephemeral/gm) ?? [];
      expect(rows.length, source).toBeGreaterThan(0);
      expect(labels, source).toEqual(rows.map(() => `   Outside vault · ${PROVIDER_NAMES[source].label} · ephemeral`));
    }
  });
});

describe("which providers, when none is named", () => {
  it("with no key set, the free set stands in for the settings' Brave, and says so", async () => {
    const http = recordingHttp(replayFolder(FREE_DEMO));
    const io = Object.assign(capture(), { http });
    const code = await websearchCommand(options({ providers: ["brave"], providersFrom: "settings" }), io);
    expect(code).toBe(0);
    expect(io.stdout).toContain("No API key is set for Brave, so the free sources were asked.");
    expect(new Set(http.requests.map((r) => new URL(r.url).host))).toEqual(new Set(["en.wikipedia.org", "hn.algolia.com", "export.arxiv.org", "api.github.com", "api.stackexchange.com"]));
    expect(io.stdout).not.toContain("Outside vault · Brave");
  });

  it("with a Brave key set, the settings' providers are asked as they are", async () => {
    const http = scriptedHttp(() => jsonResponse({ grounding: { generic: [] }, sources: {} }));
    const io = Object.assign(capture({ BRAVE_SEARCH_API_KEY: "BSA-some-key-123456" }), { http });
    const code = await websearchCommand(options({ providers: ["brave"], providersFrom: "settings" }), io);
    expect(code).toBe(0);
    expect(http.requests.map((r) => new URL(r.url).host)).toEqual(["api.search.brave.com"]);
  });
});

describe("keys never leak", () => {
  it("the GitHub token and the Tavily key are sent, and appear nowhere in the output, the JSON or the request log", async () => {
    const log = path.join(mkdtempSync(path.join(os.tmpdir(), "vr-keys-")), "requests.jsonl");
    const env = { GITHUB_TOKEN: GITHUB_TOKEN, TAVILY_API_KEY: TAVILY_KEY, VAULT_RESEARCH_REPLAY_LOG: log };
    const dir = replayDirOf("github/search-sequence-crdts.json", "tavily/search-crdt.json");
    for (const json of [false, true]) {
      const io = capture(env);
      await websearchCommand(options({ providers: ["github", "tavily"], replayDir: dir, json }), io);
      expect(io.stdout + io.stderr).not.toContain(GITHUB_TOKEN);
      expect(io.stdout + io.stderr).not.toContain(TAVILY_KEY);
    }
    const entries = replayLogEntries(log);
    expect(entries.map((e) => [new URL(e.url).host, e.headers.Authorization])).toEqual([
      ["api.github.com", "***"],
      ["api.tavily.com", "***"],
      ["api.github.com", "***"],
      ["api.tavily.com", "***"],
    ]);
    expect(readFileSync(log, "utf8")).not.toContain(GITHUB_TOKEN);
    expect(readFileSync(log, "utf8")).not.toContain(TAVILY_KEY);
  });

  it("an error page that echoes the key back is scrubbed before anything reads it", async () => {
    const echo = (key: string, status: number) => scriptedHttp(() => jsonResponse({ detail: { error: `key ${key} is not valid` }, message: `token ${key} rejected` }, status));
    for (const [source, env, key] of [
      ["tavily", { TAVILY_API_KEY: TAVILY_KEY }, TAVILY_KEY],
      ["github", { GITHUB_TOKEN: GITHUB_TOKEN }, GITHUB_TOKEN],
    ] as const) {
      const io = Object.assign(capture(env), { http: echo(key, source === "tavily" ? 400 : 422) });
      await websearchCommand(options({ providers: [source] }), io);
      expect(io.stdout, source).toContain("[key hidden]");
      expect(io.stdout, source).not.toContain(key);
    }
  });
});
