import { describe, expect, it } from "vitest";
import { defaultSettings } from "../../src/settings";
import { createBraveProvider } from "../../src/websearch/providers/brave";
import { createBraveWebProvider } from "../../src/websearch/providers/brave-web";
import { createExaProvider } from "../../src/websearch/providers/exa";
import { ProviderError } from "../../src/websearch/types";
import { braveKey, exaKey, fakeSecrets, jsonResponse, loadExchange, scriptedHttp, testContext, toResponse } from "./helpers";

const emptyLlm = { grounding: { generic: [], map: [] }, sources: {} };

/** The fields of an Exa search request these tests read. */
interface ExaSearchBody {
  query: string;
  startPublishedDate?: string;
  endPublishedDate?: string;
  contents?: unknown;
}

describe("request shape", () => {
  it("brave asks LLM Context with the key header, the run's budget and the Brave settings", async () => {
    const http = scriptedHttp(() => jsonResponse(emptyLlm));
    const settings = defaultSettings();
    settings.external.brave.country = "DE";
    settings.external.brave.searchLang = "de";
    await createBraveProvider().search({ query: "automerge 2 release notes", count: 4, freshness: "pw", maxTokens: 4096 }, testContext(http, { settings }));

    expect(http.requests).toHaveLength(1);
    const req = http.requests[0];
    const url = new URL(req.url);
    expect(req.method).toBe("GET");
    expect(url.origin + url.pathname).toBe("https://api.search.brave.com/res/v1/llm/context");
    expect(Object.fromEntries(url.searchParams)).toEqual({
      q: "automerge 2 release notes",
      country: "DE",
      search_lang: "de",
      maximum_number_of_urls: "4",
      maximum_number_of_tokens: "4096",
      maximum_number_of_tokens_per_url: "1024",
      freshness: "pw",
    });
    expect(req.headers).toEqual({ Accept: "application/json", "X-Subscription-Token": braveKey });
    expect(req.body).toBeUndefined();
  });

  it("brave-web asks for extra snippets with country, language and safesearch, and honours a proxy base URL", async () => {
    const http = scriptedHttp(() => jsonResponse({ type: "search" }));
    const settings = defaultSettings();
    settings.external.brave.baseUrl = "https://proxy.example.net/brave/";
    settings.external.brave.safesearch = "strict";
    await createBraveWebProvider().search({ query: "yjs", count: 3 }, testContext(http, { settings }));

    const url = new URL(http.requests[0].url);
    expect(url.origin + url.pathname).toBe("https://proxy.example.net/brave/res/v1/web/search");
    expect(url.searchParams.get("q")).toBe("yjs");
    expect(url.searchParams.get("count")).toBe("3");
    expect(url.searchParams.get("extra_snippets")).toBe("true");
    expect(url.searchParams.get("safesearch")).toBe("strict");
    expect(url.searchParams.get("country")).toBe("US");
    expect(url.searchParams.get("search_lang")).toBe("en");
    expect(url.searchParams.has("freshness")).toBe(false);
    expect(http.requests[0].headers?.["X-Subscription-Token"]).toBe(braveKey);
  });

  it("exa posts highlights (and text when enabled), the date window and domain filters with x-api-key", async () => {
    const http = scriptedHttp(() => jsonResponse({ results: [] }));
    const settings = defaultSettings();
    settings.external.exa.includeText = true;
    settings.external.exa.maxTextCharacters = 1500;
    const context = testContext(http, { settings });
    await createExaProvider().search(
      { query: "local-first sync", count: 5, freshness: "pd", includeDomains: ["Automerge.org"], excludeDomains: ["example.com"] },
      context,
    );

    const req = http.requests[0];
    expect(req.method).toBe("POST");
    expect(req.url).toBe("https://api.exa.ai/search");
    expect(req.headers?.["x-api-key"]).toBe(exaKey);
    expect(req.headers?.["Content-Type"]).toBe("application/json");
    expect(JSON.parse(req.body!)).toEqual({
      query: "local-first sync",
      numResults: 5,
      type: "auto",
      contents: { highlights: true, text: { maxCharacters: 1500 } },
      startPublishedDate: new Date(context.clock.now() - 86_400_000).toISOString(),
      includeDomains: ["automerge.org"],
      excludeDomains: ["example.com"],
    });
  });

  it("exa turns a date range into start and end dates and fetches contents for chosen URLs", async () => {
    const http = scriptedHttp((req) => (req.url.endsWith("/contents") ? toResponse(loadExchange("exa/contents-partial.json")) : jsonResponse({ results: [] })));
    const exa = createExaProvider();
    await exa.search({ query: "crdt", count: 2, freshness: "2025-01-01to2025-03-31" }, testContext(http));
    const body = JSON.parse(http.requests[0].body!) as ExaSearchBody;
    expect(body.startPublishedDate).toBe("2025-01-01T00:00:00.000Z");
    expect(body.endPublishedDate).toBe("2025-03-31T23:59:59.999Z");
    expect(body.contents).toEqual({ highlights: true });

    const response = await exa.contents!(["https://automerge.org/docs/hello/", "https://gone.example.com/page"], { query: "crdt", count: 5, maxTokens: 2048 }, testContext(http));
    expect(http.requests[1].url).toBe("https://api.exa.ai/contents");
    expect(JSON.parse(http.requests[1].body!)).toEqual({
      urls: ["https://automerge.org/docs/hello/", "https://gone.example.com/page"],
      text: { maxCharacters: Math.floor((2048 * 4) / 5) },
    });
    expect(response.endpoint).toBe("contents");
    expect(response.results[0].text).toMatch(/^Welcome to Automerge/);
    expect(response.warnings).toContain("Exa could not read https://gone.example.com/page (CRAWL_NOT_FOUND)");
  });

  it("never calls Exa's /answer endpoint", async () => {
    const http = scriptedHttp((req) => (req.url.endsWith("/contents") ? jsonResponse({ results: [] }) : jsonResponse({ results: [] })));
    const exa = createExaProvider();
    await exa.search({ query: "what is automerge", count: 3 }, testContext(http));
    await exa.contents!(["https://automerge.org/"], { query: "what is automerge", count: 3 }, testContext(http));
    expect(http.requests.map((r) => new URL(r.url).pathname)).toEqual(["/search", "/contents"]);
  });

  it("looks a key up only when the provider is actually called, and fails as auth without one", async () => {
    const secrets = fakeSecrets({});
    const http = scriptedHttp(() => jsonResponse(emptyLlm));
    const brave = createBraveProvider();
    expect(secrets.asked).toEqual([]);
    const error = await brave.search({ query: "crdt", count: 3 }, testContext(http, { secrets })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).kind).toBe("auth");
    // The panel shows this message too: it names no environment variable (the CLI adds its own hint).
    expect((error as ProviderError).message).toBe("No Brave API key is set. Add one in Vault Research settings.");
    expect(secrets.asked).toEqual(["brave"]);
    expect(http.requests).toHaveLength(0);
  });
});

describe("clamps", () => {
  it("reports every clamp as a warning instead of changing the request silently", async () => {
    const http = scriptedHttp(() => jsonResponse(emptyLlm));
    const response = await createBraveProvider().search(
      { query: "crdt", count: 50, maxTokens: 100_000, maxContentChars: 10, timeoutMs: 10 },
      testContext(http),
    );
    expect(response.warnings).toEqual(["count 50 → 10", "maxContentChars 10 → 200", "maxTokens 100000 → 32768", "timeoutMs 10 → 1000"]);
    const url = new URL(http.requests[0].url);
    expect(url.searchParams.get("maximum_number_of_urls")).toBe("10");
    expect(url.searchParams.get("maximum_number_of_tokens")).toBe("32768");
    expect(http.requests[0].timeoutMs).toBe(1000);
  });

  it("shortens a query longer than providers accept and says so", async () => {
    const http = scriptedHttp(() => jsonResponse({ results: [] }));
    const long = Array.from({ length: 80 }, (_, i) => `word${i}`).join(" ");
    const response = await createExaProvider().search({ query: long, count: 3 }, testContext(http));
    expect((JSON.parse(http.requests[0].body!) as ExaSearchBody).query.split(" ")).toHaveLength(50);
    expect(response.warnings[0]).toMatch(/^query shortened to 50 words/);
  });

  it("cuts page text to the per-result budget and marks it truncated", async () => {
    const http = scriptedHttp(() => toResponse(loadExchange("exa/search-legacy-crdt.json")));
    const response = await createExaProvider().search({ query: "sync engines", count: 2, maxContentChars: 500 }, testContext(http));
    const long = response.results.find((r) => r.domain === "example.org")!;
    expect(long.text!.length).toBeLessThanOrEqual(500);
    expect(long.truncated).toBe(true);
  });

  it("names a Brave result by the host of its own address, whatever its source entry claims", async () => {
    const answer = {
      grounding: { generic: [{ url: "https://www.evil.example/page", title: "A page", snippets: ["text"] }], map: [] },
      sources: { "https://www.evil.example/page": { title: "A page", hostname: "../../Inbox/bank.example", age: null } },
    };
    const response = await createBraveProvider().search({ query: "crdt", count: 3 }, testContext(scriptedHttp(() => jsonResponse(answer))));
    expect(response.results.map((r) => r.domain)).toEqual(["evil.example"]);
  });

  it("warns that Brave has no domain filters rather than dropping them silently", async () => {
    const http = scriptedHttp(() => jsonResponse(emptyLlm));
    const response = await createBraveProvider().search({ query: "crdt", count: 3, includeDomains: ["automerge.org"] }, testContext(http));
    expect(response.warnings).toContain("Brave has no domain filters; include/exclude domains were ignored");
  });
});
