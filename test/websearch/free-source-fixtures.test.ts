// Every recording we wrote for the free sources, SearXNG and Tavily (fixtures/websearch/<source>/,
// each in its service's documented format, error answers included) goes through the real
// provider and gives the outcome written here: a number of results, or an error kind.
import { describe, expect, it } from "vitest";
import type { ProviderErrorKind, ProviderName, SearchRequest } from "../../src/websearch/types";
import { ProviderError } from "../../src/websearch/types";
import { ownFixtureFiles } from "./helpers";
import { runSource } from "./providers/source-harness";

const expectations: Record<string, number | ProviderErrorKind> = {
  "wikipedia/search-crdt.json": 5,
  "wikipedia/empty.json": 0,
  "wikipedia/bad-limit-400.json": "http",
  "wikipedia/too-many-requests-429.json": "rate_limited",
  "wikipedia/blocked-403-html.json": "http",
  "wikipedia/wrong-shape.json": "parse",
  "hackernews/search-crdt.json": 4,
  "hackernews/search-by-date-automerge.json": 1,
  "hackernews/empty.json": 0,
  "hackernews/bad-filter-400.json": "http",
  "hackernews/rate-limited-429.json": "rate_limited",
  "hackernews/gateway-502-html.json": "http",
  "arxiv/query-sequence-crdts.json": 3,
  "arxiv/empty-feed.json": 0,
  "arxiv/error-400-malformed-query.json": "http",
  "arxiv/rate-exceeded-503.json": "rate_limited",
  "arxiv/html-200.json": "parse",
  "github/search-sequence-crdts.json": 3,
  "github/empty.json": 0,
  "github/incomplete-results.json": 1,
  "github/rate-limited-403.json": "rate_limited",
  "github/secondary-rate-limit-403.json": "rate_limited",
  "github/bad-credentials-401.json": "auth",
  "github/validation-failed-422.json": "http",
  "github/unavailable-503.json": "http",
  "stackexchange/search-y-websocket.json": 3,
  "stackexchange/backoff.json": 1,
  "stackexchange/empty.json": 0,
  "stackexchange/throttle-violation-400.json": "rate_limited",
  "stackexchange/bad-site-400.json": "http",
  "stackexchange/no-method-404.json": "unsupported",
  "stackexchange/temporarily-unavailable-503.json": "http",
  "pubmed/search-clinical-notes.json": 2,
  "pubmed/esearch-empty.json": 0,
  "pubmed/esearch-error.json": "http",
  "pubmed/esummary-missing-uid.json": 1,
  "pubmed/rate-limited-429.json": "rate_limited",
  "pubmed/server-error-500-html.json": "http",
  "searxng/search-crdt.json": 3,
  "searxng/empty.json": 0,
  "searxng/json-disabled-403.json": "unsupported",
  "searxng/limiter-429.json": "rate_limited",
  "searxng/html-page-200.json": "unsupported",
  "tavily/search-crdt.json": 2,
  "tavily/empty.json": 0,
  "tavily/invalid-key-401.json": "auth",
  "tavily/rate-limited-429.json": "rate_limited",
  "tavily/plan-limit-432.json": "plan",
  "tavily/payg-limit-433.json": "plan",
  "tavily/bad-request-400.json": "http",
  "tavily/server-error-500.json": "http",
};

/** Recordings of a request other than the default `{ query: "q", count: 5 }`. */
const requests: Record<string, SearchRequest> = {
  "hackernews/search-by-date-automerge.json": { query: "automerge", count: 5, freshness: "pw" },
};

const sources: ProviderName[] = ["wikipedia", "hackernews", "arxiv", "github", "stackexchange", "pubmed", "searxng", "tavily"];

describe("our recordings of the free sources, SearXNG and Tavily", () => {
  const files = sources.flatMap(ownFixtureFiles);

  it("all have an expected outcome", () => {
    expect(files.sort()).toEqual(Object.keys(expectations).sort());
  });

  for (const file of files) {
    const source = file.split("/")[0] as ProviderName;
    it(`${file} → ${String(expectations[file])}`, async () => {
      const { outcome } = await runSource(source, file, { request: requests[file] ?? { query: "q", count: 5 } });
      const expected = expectations[file];
      if (typeof expected === "number") {
        expect(outcome).not.toBeInstanceOf(ProviderError);
        if (outcome instanceof ProviderError) return;
        expect(outcome.provider).toBe(source);
        expect(outcome.results).toHaveLength(expected);
        for (const result of outcome.results) {
          expect(result.canonicalUrl).toMatch(/^https?:\/\//);
          expect(result.title).not.toBe("");
          expect(result.domain).not.toBe("");
          // Plain text only: no tags or entities left from the source's markup.
          for (const text of [result.title, result.snippet ?? "", result.summary ?? ""]) expect(text).not.toMatch(/<\/?(span|em|b|i|p|code)\b|&(amp|quot|#39|#039);/);
        }
      } else {
        expect(outcome).toBeInstanceOf(ProviderError);
        if (!(outcome instanceof ProviderError)) return;
        expect(outcome.kind).toBe(expected);
        expect(outcome.provider).toBe(source);
        expect(outcome.message).not.toBe("");
      }
    });
  }
});
