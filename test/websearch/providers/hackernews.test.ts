import { describe, expect, it } from "vitest";
import { userAgent } from "../../../src/websearch/provider-http";
import { fakeClock, jsonResponse, scriptedHttp } from "../helpers";
import { answer, failure, runSource } from "./source-harness";

const emptyHits = () => jsonResponse({ hits: [] });

describe("Hacker News: request", () => {
  it("searches stories by relevance with the question's words", async () => {
    const http = scriptedHttp(emptyHits);
    await runSource("hackernews", http, { request: { query: "What do developers think of sequence CRDTs?", count: 5 } });
    const url = new URL(http.requests[0].url);
    expect(url.origin + url.pathname).toBe("https://hn.algolia.com/api/v1/search");
    expect(Object.fromEntries(url.searchParams)).toEqual({ query: "developers sequence CRDTs", tags: "story", hitsPerPage: "5" });
    expect(http.requests[0].headers).toEqual({ Accept: "application/json", "User-Agent": userAgent });
  });

  it("for the past day or week searches by date, newest first, from the start of the window", async () => {
    for (const freshness of ["pd", "pw"] as const) {
      const http = scriptedHttp(emptyHits);
      await runSource("hackernews", http, { request: { query: "automerge", count: 3, freshness } });
      const url = new URL(http.requests[0].url);
      const days = freshness === "pd" ? 1 : 7;
      expect(url.pathname).toBe("/api/v1/search_by_date");
      expect(url.searchParams.get("numericFilters")).toBe(`created_at_i>${Math.floor((fakeClock().now() - days * 86_400_000) / 1000)}`);
    }
  });

  it("for a month, a year or a date range keeps relevance and filters on the dates", async () => {
    const http = scriptedHttp(emptyHits);
    await runSource("hackernews", http, { request: { query: "automerge", count: 3, freshness: "2025-01-01to2025-01-31" } });
    const url = new URL(http.requests[0].url);
    expect(url.pathname).toBe("/api/v1/search");
    expect(url.searchParams.get("numericFilters")).toBe(`created_at_i>${Date.parse("2025-01-01T00:00:00Z") / 1000},created_at_i<${Math.floor(Date.parse("2025-01-31T23:59:59.999Z") / 1000)}`);
  });
});

describe("Hacker News: answers", () => {
  it("keeps points and comments as signals and points a story without a link at its discussion", async () => {
    const results = answer(await runSource("hackernews", "hackernews/search-crdt.json")).results;
    expect(results[0]).toMatchObject({ url: "https://github.com/automerge/automerge", author: "sampleauthor1", publishedAt: "2025-06-02T14:03:11Z" });
    expect(results[0].signals).toEqual([{ kind: "points", value: 412 }, { kind: "comments", value: 118 }]);
    expect(results[1].url).toBe("https://news.ycombinator.com/item?id=90000102");
    expect(results[1].snippet).toBe("We sync notes between a phone and a laptop. Is a sequence CRDT overkill compared with last-writer-wins per paragraph? What broke for you in production? & did interleaving ever show up?");
    // No title and no link: the discussion page, named by its site.
    expect(results[3]).toMatchObject({ url: "https://news.ycombinator.com/item?id=90000104", title: "news.ycombinator.com", signals: [] });
  });

  it("words Algolia's errors: its message for a bad filter, a rate limit with its wait", async () => {
    expect(failure(await runSource("hackernews", "hackernews/bad-filter-400.json")).message).toBe("Hacker News answered HTTP 400: Invalid syntax for numeric value: 'created_at_i>soon'");
    expect(failure(await runSource("hackernews", "hackernews/rate-limited-429.json"))).toMatchObject({ kind: "rate_limited", retryAfterMs: 60_000, message: "Hacker News rate limit reached; try again in 60 s." });
  });
});
