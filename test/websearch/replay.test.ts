import { describe, expect, it } from "vitest";
import { HttpFailure } from "../../src/ports";
import { createReplayHttp, maskSecretHeaders, maskSecretParams, parseReplayFile, type ReplayLogEntry } from "../../src/websearch/replay";
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

  it("answers from a recording of the very same request when the folder holds one, before the first of that path", async () => {
    const recorded = parseReplayFile([
      { method: "GET", url: "https://api.search.brave.com/res/v1/web/search?q=automerge&count=5", body: { first: true } },
      { method: "GET", url: "https://api.search.brave.com/res/v1/web/search?q=yjs+awareness&count=5", body: { second: true } },
    ]);
    if (!recorded.ok) throw new Error(recorded.message);
    const http = createReplayHttp(recorded.exchanges);
    const asked = (q: string) => http.request({ method: "GET", url: `https://api.search.brave.com/res/v1/web/search?count=5&q=${q}` }).then((r) => JSON.parse(r.text) as unknown);
    expect(await asked("yjs%20awareness")).toEqual({ second: true });
    expect(await asked("automerge")).toEqual({ first: true });
    // No recording of this query: the first of the path, as before.
    expect(await asked("peritext")).toEqual({ first: true });
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

  it("neither answers nor logs a request already cancelled, as a real adapter never sends one", async () => {
    const log: ReplayLogEntry[] = [];
    const http = createReplayHttp(exchanges.exchanges, { onRequest: (e) => log.push(e) });
    const signal = AbortSignal.abort();
    const refused = await http.request({ method: "GET", url: "https://api.search.brave.com/res/v1/llm/context?q=crdt", signal }).catch((e: unknown) => e);
    expect((refused as HttpFailure).kind).toBe("aborted");
    expect(log).toEqual([]);
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

describe("what the replay log masks", () => {
  it("masks parameters named as credentials however they are spelt", () => {
    for (const name of ["api_key", "apikey", "apiKey", "APIKEY", "key", "access_token", "accessToken", "token", "auth", "sig", "signature", "client_secret", "password", "X-Goog-Api-Key", "session_id", "jwt"]) {
      expect(maskSecretParams(`https://a.example/s?q=crdt&${name}=s3cr3t-value`), name).toBe(`https://a.example/s?q=crdt&${name}=***`);
    }
  });

  it("leaves parameters that only look like credentials, so the log still shows what was asked", () => {
    for (const name of ["max_tokens", "maximum_number_of_tokens", "maxTokens", "keywords", "keyword", "sort"]) {
      const url = `https://a.example/s?q=crdt&${name}=500`;
      expect(maskSecretParams(url), name).toBe(url);
    }
  });

  it("masks a user name and password in the URL", () => {
    expect(maskSecretParams("https://me:hunter2@search.example/search?q=crdt")).toBe("https://***:***@search.example/search?q=crdt");
  });

  it("masks headers named as credentials, and keeps the others", () => {
    const headers = { Authorization: "Bearer x", "X-Goog-Api-Key": "k", "X-Auth": "a", "X-Signature": "s", Cookie: "c", "Ocp-Apim-Subscription-Key": "k", Accept: "application/json", "X-Max-Tokens": "500" };
    expect(maskSecretHeaders(headers)).toEqual({ Authorization: "***", "X-Goog-Api-Key": "***", "X-Auth": "***", "X-Signature": "***", Cookie: "***", "Ocp-Apim-Subscription-Key": "***", Accept: "application/json", "X-Max-Tokens": "500" });
  });
});
