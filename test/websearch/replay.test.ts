import { describe, expect, it } from "vitest";
import { HttpFailure } from "../../src/ports";
import { createReplayHttp, parseReplayFile, type ReplayLogEntry } from "../../src/websearch/replay";
import { searchProviders } from "../../src/websearch/search-providers";
import { braveKey, exaKey, testContext } from "./helpers";

const exchanges = parseReplayFile([
  { method: "get", url: "https://api.search.brave.com/res/v1/llm/context?q=recorded", status: 200, headers: { "X-Custom": "1" }, body: { grounding: { generic: [] }, sources: {} } },
  { method: "GET", url: "https://api.search.brave.com/res/v1/llm/context", body: "second, never used" },
  { method: "POST", url: "https://api.exa.ai/search", status: 429, headers: { "Retry-After": "2" }, body: "{\"error\":\"slow\"" },
]);

describe("replay Http", () => {
  if (!exchanges.ok) throw new Error(exchanges.message);

  it("answers from the first exchange whose method and origin+path match, whatever the query string", async () => {
    const http = createReplayHttp(exchanges.exchanges);
    const response = await http.request({ method: "GET", url: "https://api.search.brave.com/res/v1/llm/context?q=something+else&count=3" });
    expect(response.status).toBe(200);
    expect(response.headers).toEqual({ "x-custom": "1", "content-type": "application/json" });
    expect(JSON.parse(response.text)).toEqual({ grounding: { generic: [] }, sources: {} });
  });

  it("sends string bodies as they were recorded, broken JSON included", async () => {
    const http = createReplayHttp(exchanges.exchanges);
    const response = await http.request({ method: "POST", url: "https://api.exa.ai/search", body: "{}" });
    expect(response).toEqual({ status: 429, headers: { "retry-after": "2" }, text: "{\"error\":\"slow\"" });
  });

  it("fails an unmatched request with replay_miss naming the URL (method and path both count)", async () => {
    const http = createReplayHttp(exchanges.exchanges, { sourceName: "fixtures/replay/x" });
    const wrongMethod = await http.request({ method: "POST", url: "https://api.search.brave.com/res/v1/llm/context" }).catch((e: unknown) => e);
    expect(wrongMethod).toBeInstanceOf(HttpFailure);
    expect((wrongMethod as HttpFailure).kind).toBe("replay_miss");
    expect((wrongMethod as HttpFailure).message).toBe(
      "No recorded response in fixtures/replay/x for POST https://api.search.brave.com/res/v1/llm/context (replay never uses the network).",
    );
    const wrongPath = await http.request({ method: "GET", url: "https://api.search.brave.com/res/v1/web/search?q=x" }).catch((e: unknown) => e);
    expect((wrongPath as HttpFailure).message).toContain("GET https://api.search.brave.com/res/v1/web/search ");
  });

  it("logs every request with secret headers and key-like parameters masked", async () => {
    const log: ReplayLogEntry[] = [];
    const http = createReplayHttp(exchanges.exchanges, { onRequest: (e) => log.push(e) });
    await http.request({ method: "GET", url: "https://api.search.brave.com/res/v1/llm/context?q=crdt&api_key=abc", headers: { "X-Subscription-Token": braveKey, Accept: "application/json" } });
    await http.request({ method: "POST", url: "https://api.exa.ai/search", headers: { "x-api-key": exaKey }, body: JSON.stringify({ query: "crdt" }) });
    await http.request({ method: "GET", url: "https://nowhere.example/" }).catch(() => undefined);
    expect(log).toEqual([
      {
        method: "GET",
        url: "https://api.search.brave.com/res/v1/llm/context?q=crdt&api_key=***",
        headers: { "X-Subscription-Token": "***", Accept: "application/json" },
        matched: true,
      },
      { method: "POST", url: "https://api.exa.ai/search", headers: { "x-api-key": "***" }, body: { query: "crdt" }, matched: true },
      { method: "GET", url: "https://nowhere.example/", headers: {}, matched: false },
    ]);
    expect(JSON.stringify(log)).not.toContain(braveKey);
    expect(JSON.stringify(log)).not.toContain(exaKey);
  });

  it("refuses a recorded body over the caller's byte cap", async () => {
    const http = createReplayHttp(exchanges.exchanges);
    const error = await http.request({ method: "GET", url: "https://api.search.brave.com/res/v1/llm/context", maxBytes: 10 }).catch((e: unknown) => e);
    expect((error as HttpFailure).kind).toBe("too_large");
  });

  it("turns a miss into a network error for that provider only", async () => {
    const http = createReplayHttp(exchanges.exchanges);
    const { errors, responses } = await searchProviders(["brave", "brave-web"], { query: "crdt", count: 3 }, testContext(http));
    expect(responses.map((r) => r.provider)).toEqual(["brave"]);
    expect(errors[0].provider).toBe("brave-web");
    expect(errors[0].error.kind).toBe("network");
    expect(errors[0].error.message).toContain("https://api.search.brave.com/res/v1/web/search");
  });
});

describe("parseReplayFile", () => {
  it("names the exchange and field that are wrong", () => {
    expect(parseReplayFile([{ method: "GET", url: "https://a.example/" }, { method: "DELETE", url: "https://a.example/" }])).toMatchObject({ ok: false });
    const bad = parseReplayFile({ method: "GET", url: "not a url" });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.message).toMatch(/^url:/);
    expect(parseReplayFile({ method: "GET", url: "https://a.example/" })).toMatchObject({ ok: true, exchanges: [{ status: 200, headers: {} }] });
  });
});
