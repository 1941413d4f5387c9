import { describe, expect, it } from "vitest";
import type { HttpRequest, HttpResponse } from "../../src/ports";
import { dispatchSearch } from "../../src/websearch/dispatcher";
import { KEYWORD_SOURCES } from "../../src/websearch/keyword-query";
import { defaultMinIntervals, RateGovernor } from "../../src/websearch/rate-governor";
import { SearchCache } from "../../src/websearch/search-cache";
import { createSearchSession } from "../../src/websearch/search-providers";
import { SOURCE_LIMITS } from "../../src/websearch/source-limits";
import type { Provider, ProviderName } from "../../src/websearch/types";
import { fakeClock, jsonResponse, networkDown, scriptedHttp, testContext } from "./helpers";
import { fixtureSettings } from "./providers/source-harness";
import { loadExchange, toResponse } from "./helpers";

/** Answers each source from one of our recordings, by host; anything else is a test failure. */
function byHost(answers: Record<string, () => HttpResponse | Promise<HttpResponse>>) {
  return scriptedHttp((req: HttpRequest) => {
    const answer = answers[new URL(req.url).host];
    if (!answer) throw new Error(`unexpected request to ${req.url}`);
    return answer();
  });
}
const recorded = (file: string) => () => toResponse(loadExchange(file));
const hosts = {
  "en.wikipedia.org": recorded("wikipedia/search-crdt.json"),
  "hn.algolia.com": recorded("hackernews/search-crdt.json"),
  "export.arxiv.org": recorded("arxiv/query-sequence-crdts.json"),
  "api.github.com": recorded("github/search-sequence-crdts.json"),
  "api.stackexchange.com": recorded("stackexchange/search-y-websocket.json"),
};
const FREE: ProviderName[] = ["wikipedia", "hackernews", "arxiv", "github", "stackexchange"];

function setup(http: ReturnType<typeof scriptedHttp>) {
  const clock = fakeClock();
  const context = testContext(http, { clock, settings: fixtureSettings() });
  return { clock, context, session: createSearchSession(context) };
}

describe("the dispatcher", () => {
  it("asks only the sources that fit the question and reports, per source, answered or skipped and why", async () => {
    const http = byHost(hosts);
    const { context, session } = setup(http);
    const outcome = await dispatchSearch(FREE, { question: "Which papers describe sequence CRDTs?", query: "sequence CRDTs papers", count: 5 }, context, session);
    expect(http.requests.map((r) => new URL(r.url).host)).toEqual(["export.arxiv.org"]);
    expect(outcome.topics).toEqual(["papers"]);
    expect(outcome.sources.map((s) => [s.source, s.status])).toEqual([
      ["wikipedia", "skipped"],
      ["hackernews", "skipped"],
      ["arxiv", "answered"],
      ["github", "skipped"],
      ["stackexchange", "skipped"],
    ]);
    const arxiv = outcome.sources[2];
    expect(arxiv.status === "answered" && [arxiv.returned, arxiv.kept, arxiv.cached]).toEqual([3, 3, false]);
    expect(arxiv.route.reason).toMatchObject({ kind: "fits_topic", topic: "papers" });
    expect(outcome.results.every((r) => r.provider === "arxiv")).toBe(true);
  });

  it("reports a source's time, and the logged answer's, when the wall clock was set back an hour or forward a day during the call", async () => {
    for (const step of [-3_600_000, 24 * 3_600_000]) {
      const clock = fakeClock();
      const answer = recorded("arxiv/query-sequence-crdts.json");
      const http = scriptedHttp(() => {
        clock.advance(700);
        clock.set(clock.now() + step);
        return answer();
      });
      const context = testContext(http, { clock, settings: fixtureSettings() });
      const outcome = await dispatchSearch(["arxiv"], { query: "sequence CRDTs papers", count: 5 }, context, createSearchSession(context));
      expect(outcome.sources.map((s) => [s.source, s.status, s.status === "skipped" ? null : s.ms])).toEqual([["arxiv", "answered", 700]]);
      expect(context.events.flatMap((e) => (e.type === "response" ? [e.ms] : []))).toEqual([700]);
    }
  });

  it("merges across sources: the repository Hacker News linked and GitHub found is one row, also found by the other", async () => {
    const { context, session } = setup(byHost(hosts));
    const question = "What are sequence CRDTs, which papers and libraries implement them, and what do developers think of them?";
    const outcome = await dispatchSearch(FREE, { question, query: question, count: 5 }, context, session);
    expect(outcome.sources.every((s) => s.status === "answered")).toBe(true);
    const repo = outcome.results.filter((r) => r.canonicalUrl === "https://github.com/automerge/automerge");
    expect(repo).toHaveLength(1);
    // Hacker News' first story links to it and is met first (1st of each source, in the order asked).
    expect(repo[0].provider).toBe("hackernews");
    expect(repo[0].alsoFoundBy).toEqual(["github"]);
    expect(repo[0].signals?.map((s) => s.kind)).toEqual(["points", "comments", "stars", "language", "last_push"]);
    // Its place is GitHub's better score: 0.9 × 1, not Hacker News' 0.7.
    expect(repo[0].merge.value).toBe(0.9);
    expect(outcome.results.map((r) => r.rank)).toEqual(outcome.results.map((_, i) => i + 1));
  });

  it("one source failing never spoils the others: its error is reported, their rows stay", async () => {
    const { context, session } = setup(byHost({ ...hosts, "hn.algolia.com": networkDown }));
    const outcome = await dispatchSearch(["wikipedia", "hackernews"], { question: "What is a CRDT and what do people think of it?", query: "crdt", count: 5 }, context, session);
    expect(outcome.errors.map((e) => [e.provider, e.error.kind])).toEqual([["hackernews", "network"]]);
    expect(outcome.sources.map((s) => s.status)).toEqual(["answered", "failed"]);
    expect(outcome.results.length).toBe(5);
    expect(outcome.results.every((r) => r.provider === "wikipedia")).toBe(true);
  });

  it("gives up on a source at its own time limit (8 s by default) and keeps the others' answers", async () => {
    const { clock, context, session } = setup(byHost({ ...hosts, "api.github.com": () => new Promise<HttpResponse>(() => {}) }));
    const pending = dispatchSearch(["github", "stackexchange"], { question: "Why does y-websocket throw an error?", query: "y-websocket error", count: 5 }, context, session);
    await new Promise((r) => setTimeout(r, 10));
    clock.advance(8000);
    const outcome = await pending;
    expect(outcome.errors.map((e) => [e.provider, e.error.kind, e.error.message])).toEqual([["github", "timeout", "GitHub did not answer within 8 s."]]);
    const github = outcome.sources[0];
    expect(github.status === "failed" && github.bounds.timeoutMs).toBe(8000);
    expect(outcome.results.every((r) => r.provider === "stackexchange")).toBe(true);
  });

  it("the per-source limit follows settings, and never exceeds the run's own timeout", async () => {
    const http = byHost(hosts);
    const { context, session } = setup(http);
    context.settings.external.sourceTimeoutMs = 3000;
    const outcome = await dispatchSearch(["wikipedia"], { query: "crdt", count: 5 }, context, session);
    expect(outcome.sources[0].status === "answered" && outcome.sources[0].bounds).toEqual({ timeoutMs: 3000, maxBytes: SOURCE_LIMITS.wikipedia.maxBytes, maxResults: 10, minIntervalMs: 1000 });
    const shorter = await dispatchSearch(["hackernews"], { query: "crdt", count: 5, timeoutMs: 2000 }, context, session);
    expect(shorter.sources[0].status === "answered" && shorter.sources[0].bounds.timeoutMs).toBe(2000);
    expect(http.requests.map((r) => r.timeoutMs)).toEqual([3000, 2000]);
  });

  it("keeps at most 2 × the wanted results from a source and reports that clamp, with the request's own clamps", async () => {
    const flood: Provider = {
      name: "searxng",
      label: "SearXNG",
      capabilities: { search: true, contents: false, freshness: true, domainFilters: false, highlights: false, fullText: false },
      search: async (request) => ({
        provider: "searxng",
        endpoint: "search",
        query: request.query,
        warnings: [],
        results: Array.from({ length: 25 }, (_, i) => ({ url: `https://r${i}.example/`, canonicalUrl: `https://r${i}.example/`, title: `r${i}`, domain: `r${i}.example`, highlights: [], rank: i + 1 })),
      }),
    };
    const clock = fakeClock();
    const context = testContext(scriptedHttp(() => jsonResponse({})), { clock });
    const session = { registry: new Map([["searxng" as const, flood]]), cache: new SearchCache(clock), governor: new RateGovernor(clock) };
    const outcome = await dispatchSearch(["searxng"], { query: "q", count: 50 }, context, session);
    expect(outcome.clamps).toEqual(["count 50 → 10", "SearXNG: 25 results → 20 (at most 2 × the 10 wanted)"]);
    expect(outcome.results).toHaveLength(20);
    expect(outcome.sources[0].status === "answered" && [outcome.sources[0].returned, outcome.sources[0].kept]).toEqual([25, 20]);
  });

  it("spaces each source's calls by its published limit: arXiv 3 s, GitHub 6 s without a token, Hacker News 0.4 s", async () => {
    expect(defaultMinIntervals).toMatchObject({ arxiv: 3000, github: 6000, "github-token": 2000, hackernews: 400, wikipedia: 1000, stackexchange: 100, pubmed: 350, tavily: 600, searxng: 1000, brave: 1000, exa: 100 });
    for (const [source, interval] of [["arxiv", 3000], ["github", 6000], ["hackernews", 400]] as const) {
      const { clock, context, session } = setup(byHost(hosts));
      context.secrets = { get: async () => null };
      for (const query of ["first", "second"]) await dispatchSearch([source], { query, count: 5 }, context, session);
      expect(clock.sleeps, source).toEqual([interval]);
    }
  });

  it("answers a repeated question from the session cache and says so", async () => {
    const http = byHost(hosts);
    const { context, session } = setup(http);
    await dispatchSearch(["wikipedia"], { query: "crdt", count: 5 }, context, session);
    const again = await dispatchSearch(["wikipedia"], { query: "crdt", count: 5 }, context, session);
    expect(http.requests).toHaveLength(1);
    expect(again.sources[0].status === "answered" && again.sources[0].cached).toBe(true);
  });

  it("sends a typed search operator to general search only, and says which keyword sources left it out", async () => {
    const http = scriptedHttp(() => jsonResponse({}));
    const { context, session } = setup(http);
    const question = "site:github.com automerge sync";
    const outcome = await dispatchSearch([...KEYWORD_SOURCES, "searxng"], { question, query: question, count: 5 }, context, session, { route: false });
    const sent = http.requests.map((r) => [new URL(r.url).host, decodeURIComponent(r.url.replace(/\+/g, " ")).includes("site:github.com")]);
    expect(sent.filter(([, operator]) => operator)).toEqual([["localhost:8888", true]]);
    expect(new Set(sent.map(([host]) => host)).size).toBe(KEYWORD_SOURCES.length + 1);
    expect(outcome.clamps).toContain("“site:github.com” left out for Wikipedia, Hacker News, arXiv, GitHub, Stack Exchange, PubMed: they search for words, not with search operators");
  });

  it("asks no keyword source a question of search operators only, and does not say it left them out", async () => {
    const http = scriptedHttp(() => jsonResponse({}));
    const { context, session } = setup(http);
    const outcome = await dispatchSearch([...KEYWORD_SOURCES, "searxng"], { query: "site:github.com", count: 5 }, context, session);
    expect(http.requests.map((r) => new URL(r.url).host)).toEqual(["localhost:8888"]);
    expect(outcome.sources.filter((s) => s.status === "skipped").map((s) => s.route.reason.kind)).toEqual(KEYWORD_SOURCES.map(() => "only_operators"));
    expect(outcome.clamps.filter((c) => c.includes("left out"))).toEqual([]);
  });

  it("with routing off, asks every named source and says it was asked by name", async () => {
    const http = byHost(hosts);
    const { context, session } = setup(http);
    const outcome = await dispatchSearch(["github", "wikipedia"], { query: "pizza", count: 5 }, context, session, { route: false });
    expect(outcome.sources.map((s) => [s.source, s.route.reason.kind])).toEqual([
      ["github", "asked_by_name"],
      ["wikipedia", "asked_by_name"],
    ]);
    expect(outcome.topics).toEqual([]);
  });
});
