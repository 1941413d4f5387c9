import { describe, expect, it } from "vitest";
import { userAgent } from "../../../src/websearch/provider-http";
import { fakeClock, jsonResponse, scriptedHttp } from "../helpers";
import { answer, failure, fixtureSettings, runSource } from "./source-harness";

const empty = () => jsonResponse({ items: [], has_more: false, quota_max: 300, quota_remaining: 299 });

describe("Stack Exchange: request", () => {
  it("searches the site from settings by relevance, with question bodies, the question's words and a User-Agent", async () => {
    const http = scriptedHttp(empty);
    const settings = fixtureSettings((s) => (s.external.stackexchange.site = "superuser"));
    await runSource("stackexchange", http, { settings, request: { query: "How do I fix the y-websocket authentication error?", count: 5 } });
    const url = new URL(http.requests[0].url);
    expect(url.origin + url.pathname).toBe("https://api.stackexchange.com/2.3/search/advanced");
    expect(Object.fromEntries(url.searchParams)).toEqual({ order: "desc", sort: "relevance", q: "fix y-websocket authentication error", site: "superuser", pagesize: "5", filter: "withbody" });
    expect(http.requests[0].headers).toEqual({ Accept: "application/json", "User-Agent": userAgent });
  });

  it("turns freshness into fromdate (and todate for a range)", async () => {
    const http = scriptedHttp(empty);
    await runSource("stackexchange", http, { request: { query: "crdt", count: 3, freshness: "py" } });
    expect(new URL(http.requests[0].url).searchParams.get("fromdate")).toBe(String(Math.floor((fakeClock().now() - 365 * 86_400_000) / 1000)));
  });
});

describe("Stack Exchange: answers", () => {
  it("keeps score, answers, accepted answer and tags as signals, and the question's opening as the snippet", async () => {
    const [jwt, invalid, bare] = answer(await runSource("stackexchange", "stackexchange/search-y-websocket.json")).results;
    expect(jwt).toMatchObject({ title: "How do I authenticate y-websocket connections with a JWT?", author: "sample's account", publishedAt: "2024-04-24T23:06:40.000Z" });
    expect(jwt.snippet).toBe("I run y-websocket behind nginx and want to reject clients without a valid token. const wss = new WebSocketServer({ noServer: true }) Where do I check the JWT & close the socket?");
    expect(jwt.signals).toEqual([
      { kind: "votes", value: 14 },
      { kind: "answers", value: 2 },
      { kind: "accepted_answer", value: true },
      { kind: "tags", value: ["yjs", "websocket", "jwt"] },
    ]);
    expect(invalid.title).toBe('Yjs: "Invalid access: Add Yjs type to a document before reading data"');
    expect(invalid.signals).toContainEqual({ kind: "accepted_answer", value: false });
    expect(bare.snippet).toBeUndefined();
  });

  it("keeps every row when one question's date is out of range, with that row's date unset", async () => {
    const question = (id: number, creation_date: number) => ({ question_id: id, title: `Question ${id}`, link: `https://stackoverflow.com/q/${id}`, creation_date });
    const http = scriptedHttp(() => jsonResponse({ items: [question(1, 1_714_000_000), question(2, 1e13), question(3, 1_714_000_000)], quota_max: 300, quota_remaining: 299 }));
    const rows = answer(await runSource("stackexchange", http)).results;
    expect(rows.map((r) => [r.title, r.publishedAt])).toEqual([
      ["Question 1", "2024-04-24T23:06:40.000Z"],
      ["Question 2", undefined],
      ["Question 3", "2024-04-24T23:06:40.000Z"],
    ]);
  });

  it("honours a backoff for the next call and says when the day's quota runs low", async () => {
    const run = await runSource("stackexchange", "stackexchange/backoff.json");
    expect(answer(run).warnings).toEqual(["Stack Exchange asked for a pause of 10 s before the next search", "Stack Exchange: 12 of 300 calls left today for this address"]);
    expect(run.governor.reserve("stackexchange", 5000)).toEqual({ ok: false, retryAfterMs: 10_000 });
  });

  it("maps each error_id: throttle_violation to a rate limit with its wait, bad_parameter to a settings hint, no_method to unsupported", async () => {
    const throttled = await runSource("stackexchange", "stackexchange/throttle-violation-400.json");
    expect(failure(throttled)).toMatchObject({ kind: "rate_limited", status: 400, retryAfterMs: 82_400_000 });
    expect(failure(throttled).message).toBe("Stack Exchange rate limit reached (too many requests from this IP, more requests available in 82400 seconds (throttle_violation 502)); try again in 23 h.");
    expect(throttled.governor.reserve("stackexchange", 60_000).ok).toBe(false);
    expect(failure(await runSource("stackexchange", "stackexchange/bad-site-400.json")).message).toBe("Stack Exchange refused the search: site is required (bad_parameter 400). Check the Stack Exchange site name in settings.");
    expect(failure(await runSource("stackexchange", "stackexchange/no-method-404.json")).kind).toBe("unsupported");
    expect(failure(await runSource("stackexchange", "stackexchange/temporarily-unavailable-503.json")).message).toBe("Stack Exchange answered HTTP 503: The API is temporarily unavailable (temporarily_unavailable 503).");
  });
});
