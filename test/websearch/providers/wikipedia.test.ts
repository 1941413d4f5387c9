import { describe, expect, it } from "vitest";
import { userAgent } from "../../../src/websearch/provider-http";
import { jsonResponse, scriptedHttp } from "../helpers";
import { answer, failure, fixtureSettings, runSource } from "./source-harness";

describe("Wikipedia: request", () => {
  it("asks the REST search of the wiki in the settings' language with the question's words and a descriptive User-Agent", async () => {
    const http = scriptedHttp(() => jsonResponse({ pages: [] }));
    const settings = fixtureSettings((s) => (s.external.wikipedia.language = "de"));
    await runSource("wikipedia", http, { settings, request: { query: "What is a conflict-free replicated data type?", count: 4 } });
    const [req] = http.requests;
    const url = new URL(req.url);
    expect(req.method).toBe("GET");
    expect(url.origin + url.pathname).toBe("https://de.wikipedia.org/w/rest.php/v1/search/page");
    expect(Object.fromEntries(url.searchParams)).toEqual({ q: "conflict-free replicated data type", limit: "4" });
    expect(req.headers).toEqual({ Accept: "application/json", "User-Agent": userAgent, "Api-User-Agent": userAgent });
    expect(req.headers?.["User-Agent"]).toMatch(/^VaultResearch\/\d+\.\d+\.\d+ \(.*https:\/\//);
    expect(req.body).toBeUndefined();
  });

  it("has no date or domain filters: asked for, they are ignored with a warning, not sent", async () => {
    const http = scriptedHttp(() => jsonResponse({ pages: [] }));
    const run = await runSource("wikipedia", http, { request: { query: "crdt", count: 3, freshness: "pw", includeDomains: ["example.org"] } });
    expect(answer(run).warnings).toEqual(["Wikipedia has no date filter; freshness “pw” was ignored", "Wikipedia has no domain filters; include/exclude domains were ignored"]);
    expect(new URL(http.requests[0].url).searchParams.has("freshness")).toBe(false);
  });
});

describe("Wikipedia: answers", () => {
  it("strips the search-match spans from excerpts, keeps the description as the summary and builds article addresses", async () => {
    const results = answer(await runSource("wikipedia", "wikipedia/search-crdt.json")).results;
    expect(results[0]).toMatchObject({
      url: "https://en.wikipedia.org/wiki/Conflict-free_replicated_data_type",
      title: "Conflict-free replicated data type",
      domain: "en.wikipedia.org",
      summary: "Data structure replicated across many computers",
      snippet: "In distributed computing, a conflict-free replicated data type (CRDT) is a data structure that is replicated across several computers",
    });
    expect(results[2].snippet).toContain("high availability & guarantees");
    expect(results[3].snippet).toContain("user's data");
    expect(results[3].summary).toBeUndefined();
    expect(results[4].url).toBe("https://en.wikipedia.org/wiki/AC/DC_(disambiguation)");
    expect(results[4].snippet).toBeUndefined();
  });

  it("words each real error: the REST error's own message, a rate limit with its wait, a blocked client as http", async () => {
    const bad = failure(await runSource("wikipedia", "wikipedia/bad-limit-400.json"));
    expect(bad.message).toBe('Wikipedia answered HTTP 400: Invalid value "500" for integer parameter "limit": must be between 1 and 100 (paramvalidator-outofrange-minmax)');
    expect(failure(await runSource("wikipedia", "wikipedia/too-many-requests-429.json"))).toMatchObject({ kind: "rate_limited", retryAfterMs: 30_000 });
    const blocked = failure(await runSource("wikipedia", "wikipedia/blocked-403-html.json"));
    expect(blocked).toMatchObject({ kind: "http", status: 403 });
    expect(blocked.message).toBe("Wikipedia answered HTTP 403: Wikimedia Error");
  });
});
