import { describe, expect, it } from "vitest";
import { userAgent } from "../../../src/websearch/provider-http";
import { searxngCategories } from "../../../src/websearch/providers/searxng";
import { jsonResponse, scriptedHttp } from "../helpers";
import { answer, failure, fixtureSettings, runSource } from "./source-harness";

const empty = () => jsonResponse({ results: [] });

describe("SearXNG: request", () => {
  it("asks the instance from settings for JSON, with categories from the question's topics and freshness as a time range", async () => {
    const http = scriptedHttp(empty);
    const settings = fixtureSettings((s) => (s.external.searxng.baseUrl = "https://search.example.net/searx/"));
    await runSource("searxng", http, { settings, request: { query: "Why does my CRDT sync fail?", count: 5, freshness: "pm", topics: ["code", "news"], language: "de" } });
    const url = new URL(http.requests[0].url);
    expect(url.origin + url.pathname).toBe("https://search.example.net/searx/search");
    expect(Object.fromEntries(url.searchParams)).toEqual({ q: "Why does my CRDT sync fail?", format: "json", categories: "general,it,news", pageno: "1", language: "de", time_range: "month" });
    expect(http.requests[0].headers).toEqual({ Accept: "application/json", "User-Agent": userAgent });
  });

  it("maps every topic to a category, general always first", () => {
    expect(searxngCategories([])).toBe("general");
    expect(searxngCategories(["papers", "science", "medicine"])).toBe("general,science");
    expect(searxngCategories(["background"])).toBe("general");
  });

  it("has no date ranges: one is ignored with a warning", async () => {
    const run = await runSource("searxng", scriptedHttp(empty), { request: { query: "crdt", count: 3, freshness: "2024-01-01to2024-02-01" } });
    expect(answer(run).warnings).toContain("SearXNG has only day, week, month and year ranges; “2024-01-01to2024-02-01” was ignored");
  });

  it("without an instance address sends nothing and says where to set one", async () => {
    const http = scriptedHttp(empty);
    const error = failure(await runSource("searxng", http, { settings: fixtureSettings((s) => (s.external.searxng.baseUrl = "")) }));
    expect(error).toMatchObject({ kind: "unsupported" });
    expect(error.message).toMatch(/^No SearXNG instance is set\. Add its address in Vault Research settings/);
    expect(http.requests).toEqual([]);
  });
});

describe("SearXNG: answers", () => {
  it("keeps the engines as a signal and the score, cuts to the count, skips addresses that are not pages and names silent engines", async () => {
    const response = answer(await runSource("searxng", "searxng/search-crdt.json", { request: { query: "q", count: 5 } }));
    const [tech, wiki, blog] = response.results;
    expect(tech).toMatchObject({ url: "https://crdt.tech/", score: 9, signals: [{ kind: "engines", value: ["duckduckgo", "brave", "qwant"] }] });
    expect(tech.snippet).toBe("Resources and community around CRDT technology — papers, blog posts & implementations. (Sample text written for tests.)");
    expect(wiki.domain).toBe("en.wikipedia.org");
    expect(blog).toMatchObject({ canonicalUrl: "https://blog.example.org/2025/interleaving-in-sequence-crdts", publishedAt: "2025-03-28T00:00:00" });
    expect(response.warnings).toEqual(["SearXNG: engines that did not answer: google (timeout), bing (Suspended: access denied)", "1 result with an unusable URL skipped"]);
  });

  it("says plainly when the instance has JSON output turned off — as a 403 or as its HTML page", async () => {
    for (const file of ["searxng/json-disabled-403.json", "searxng/html-page-200.json"]) {
      const error = failure(await runSource("searxng", file));
      expect(error.kind).toBe("unsupported");
      expect(error.message).toMatch(/^SearXNG at http:\/\/localhost:8888 does not answer in JSON \(HTTP (403|200)\): JSON output is turned off on this instance\. Add `json` to `search: formats:` in its settings\.yml and restart it\.$/);
    }
  });

  it("reads the instance's limiter (429) as a rate limit", async () => {
    expect(failure(await runSource("searxng", "searxng/limiter-429.json"))).toMatchObject({ kind: "rate_limited", status: 429 });
  });
});
