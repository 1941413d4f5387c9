import { describe, expect, it } from "vitest";
import { userAgent } from "../../../src/websearch/provider-http";
import { jsonResponse, scriptedHttp } from "../helpers";
import { answer, failure, fixtureSettings, runSource, TAVILY_KEY } from "./source-harness";

const empty = () => jsonResponse({ results: [] });

describe("Tavily: request", () => {
  it("posts the query with the depth from settings, the key as a Bearer token, and never asks for the answer, raw content or images", async () => {
    const http = scriptedHttp(empty);
    const settings = fixtureSettings((s) => (s.external.tavily.searchDepth = "advanced"));
    await runSource("tavily", http, { settings, request: { query: "latest automerge release", count: 4, freshness: "pw", includeDomains: ["automerge.org"], excludeDomains: ["example.com"], topics: ["news"] } });
    const [req] = http.requests;
    expect(req.method).toBe("POST");
    expect(req.url).toBe("https://api.tavily.com/search");
    expect(req.headers).toEqual({ Accept: "application/json", "User-Agent": userAgent, "Content-Type": "application/json", Authorization: `Bearer ${TAVILY_KEY}` });
    expect(JSON.parse(req.body!)).toEqual({
      query: "latest automerge release",
      search_depth: "advanced",
      max_results: 4,
      topic: "news",
      include_answer: false,
      include_raw_content: false,
      include_images: false,
      time_range: "week",
      include_domains: ["automerge.org"],
      exclude_domains: ["example.com"],
    });
  });

  it("sends a date range as start and end dates", async () => {
    const http = scriptedHttp(empty);
    await runSource("tavily", http, { request: { query: "crdt", count: 3, freshness: "2025-01-01to2025-03-31" } });
    expect(JSON.parse(http.requests[0].body!)).toMatchObject({ start_date: "2025-01-01", end_date: "2025-03-31", topic: "general", search_depth: "basic" });
  });

  it("without a key sends nothing and says no key is set (naming no CLI variable)", async () => {
    const http = scriptedHttp(empty);
    const error = failure(await runSource("tavily", http, { secrets: {} }));
    expect(error).toMatchObject({ kind: "auth", message: "No Tavily API key is set. Add one in Vault Research settings." });
    expect(http.requests).toEqual([]);
  });
});

describe("Tavily: answers", () => {
  it("keeps results with their scores and passages, and drops the generated answer it sent anyway", async () => {
    const response = answer(await runSource("tavily", "tavily/search-crdt.json"));
    expect(response.requestId).toBe("00000000-0000-4000-8000-000000000abc");
    expect(response.results.map((r) => [r.url, r.score])).toEqual([
      ["https://crdt.tech/", 0.91],
      ["https://blog.example.org/2025/interleaving-in-sequence-crdts", 0.78],
    ]);
    expect(response.results[0].snippet).toBe("Resources & community around CRDT technology. (Sample text written for tests.)");
    expect(response.results[1].publishedAt).toBe("2025-03-28");
    expect(JSON.stringify(response.results)).not.toContain("generated answer");
    expect(response.warnings).toEqual(["Tavily sent a generated answer; it was dropped (a model's summary is not evidence)", "1 result that could not be read skipped"]);
  });

  it("maps 401 to auth, 429 to a rate limit, 432 and 433 to plan limits", async () => {
    // Tavily's words end with a full stop of their own: it is dropped inside the brackets, not doubled as "key.). Check".
    expect(failure(await runSource("tavily", "tavily/invalid-key-401.json")).message).toBe("Tavily rejected the API key (Unauthorized: missing or invalid API key). Check the key in Vault Research settings.");
    expect(failure(await runSource("tavily", "tavily/rate-limited-429.json"))).toMatchObject({ kind: "rate_limited", retryAfterMs: 20_000 });
    expect(failure(await runSource("tavily", "tavily/plan-limit-432.json")).message).toBe("Tavily refused the search: the plan's usage limit is reached (This request exceeds your plan's set usage limit. Please upgrade your plan or contact support@tavily.com).");
    expect(failure(await runSource("tavily", "tavily/payg-limit-433.json")).message).toMatch(/^Tavily refused the search: the pay-as-you-go limit is reached/);
    expect(failure(await runSource("tavily", "tavily/bad-request-400.json")).message).toBe("Tavily answered HTTP 400: Invalid topic. Must be 'general', 'news' or 'finance'.");
  });
});
