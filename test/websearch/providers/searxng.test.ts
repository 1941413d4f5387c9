import { describe, expect, it } from "vitest";
import { HttpFailure } from "../../../src/ports";
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
    expect(response.warnings).toEqual(["engines that did not answer: google (timeout), bing (Suspended: access denied)", "1 result with an unusable URL skipped"]);
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

describe("SearXNG: the instance address as users type it", () => {
  const at = (baseUrl: string) => fixtureSettings((s) => (s.external.searxng.baseUrl = baseUrl));

  it("asks /search once when the address already ends in /search, or carries a query or a fragment", async () => {
    for (const typed of ["https://search.example.net/searx/search", "https://search.example.net/searx/search/?q=", "https://search.example.net/searx/?", "https://search.example.net/searx#top"]) {
      const http = scriptedHttp(empty);
      await runSource("searxng", http, { settings: at(typed), request: { query: "sequence crdt", count: 5 } });
      const url = new URL(http.requests[0].url);
      expect(url.origin + url.pathname, typed).toBe("https://search.example.net/searx/search");
      expect(url.searchParams.getAll("q"), typed).toEqual(["sequence crdt"]);
      expect(url.hash, typed).toBe("");
    }
  });

  it("logs in to an instance behind basic auth with a header, never with the password in the address or a message", async () => {
    const password = "s3cret-Passw0rd";
    const http = scriptedHttp((req) => {
      // What Node's fetch says of an address that carries a password: the whole address.
      if (new URL(req.url).password !== "") throw new HttpFailure("network", `Request cannot be constructed from a URL that includes credentials: ${req.url}`);
      return { status: 401, headers: { "content-type": "text/html" }, text: `<html><title>401 Authorization Required</title><p>bad login ${password}</p></html>` };
    });
    const error = failure(await runSource("searxng", http, { settings: at(`https://alice:${password}@search.example.net/`) }));
    expect(new URL(http.requests[0].url).origin).toBe("https://search.example.net");
    expect(http.requests[0].headers?.Authorization).toBe(`Basic ${btoa(`alice:${password}`)}`);
    expect(error).toMatchObject({ kind: "auth", status: 401 });
    expect(error.message).toBe("SearXNG at https://search.example.net refused the user name and password in its address (HTTP 401).");
    expect(JSON.stringify(error.toJSON())).not.toContain(password);
  });

  it("says an instance asks for a login, and where to give one, when no user name was given (401)", async () => {
    const http = scriptedHttp(() => ({ status: 401, headers: { "www-authenticate": 'Basic realm="searx"' }, text: "" }));
    const error = failure(await runSource("searxng", http, { settings: at("https://search.example.net") }));
    expect(error).toMatchObject({ kind: "auth", status: 401 });
    expect(error.message).toBe("SearXNG at https://search.example.net asks for a user name and password (HTTP 401). Write the user name in the address (https://name@…) and set the SearXNG password in Vault Research settings (CLI: SEARXNG_PASSWORD).");
  });

  it("logs in with the user name of the address and the password kept as a secret, which no message names", async () => {
    const password = "kept-in-secret-storage";
    const http = scriptedHttp(() => ({ status: 401, headers: { "content-type": "text/plain" }, text: `denied for ${password}` }));
    const error = failure(await runSource("searxng", http, { settings: at("https://alice@search.example.net/"), secrets: { searxng: password } }));
    expect(http.requests[0].headers?.Authorization).toBe(`Basic ${btoa(`alice:${password}`)}`);
    expect(new URL(http.requests[0].url).username).toBe("");
    expect(error.message).toBe("SearXNG at https://search.example.net refused the user name in its address with the SearXNG password from settings (HTTP 401).");
    expect(JSON.stringify(error.toJSON())).not.toContain(password);
  });

  it("sends a kept password exactly: spaces around it are part of it", async () => {
    const http = scriptedHttp(empty);
    await runSource("searxng", http, { settings: at("https://alice@search.example.net/"), secrets: { searxng: " two words " } });
    expect(http.requests[0].headers?.Authorization).toBe(`Basic ${btoa("alice: two words ")}`);
  });

  it("a password in the address (a CLI config) wins over the kept one; a user name with no password says what is missing", async () => {
    const http = scriptedHttp(empty);
    await runSource("searxng", http, { settings: at("https://alice:typed-in-config@search.example.net/"), secrets: { searxng: "kept-one" } });
    expect(http.requests[0].headers?.Authorization).toBe(`Basic ${btoa("alice:typed-in-config")}`);
    const refused = scriptedHttp(() => ({ status: 401, headers: {}, text: "" }));
    const error = failure(await runSource("searxng", refused, { settings: at("https://alice@search.example.net/"), secrets: {} }));
    expect(error.message).toBe("SearXNG at https://search.example.net refused the user name in its address with no password (HTTP 401): set the SearXNG password in Vault Research settings (CLI: SEARXNG_PASSWORD).");
  });
});

describe("SearXNG: answers that are not results", () => {
  it("a bot check's page (200, HTML, not SearXNG's own) is named as such, not as JSON turned off", async () => {
    const http = scriptedHttp(() => ({ status: 200, headers: { "content-type": "text/html" }, text: "<!doctype html><html><head><title>Making sure you&#39;re not a bot!</title></head><body>…</body></html>" }));
    const error = failure(await runSource("searxng", http));
    expect(error).toMatchObject({ kind: "http", status: 200 });
    expect(error.message).toBe("SearXNG at http://localhost:8888 sent a web page titled “Making sure you're not a bot!” instead of JSON (HTTP 200): a login page or a bot check stands in front of its search. Use an instance you run, or one that allows JSON.");
  });

  it("no results because every engine that was asked failed is a failure that says so, not an empty answer", async () => {
    const http = scriptedHttp(() => jsonResponse({ results: [], unresponsive_engines: [["google", "timeout"], ["duckduckgo", "CAPTCHA"]] }));
    const error = failure(await runSource("searxng", http));
    expect(error).toMatchObject({ kind: "http" });
    expect(error.message).toBe("SearXNG at http://localhost:8888 answered, but found nothing because its engines did not answer: google (timeout), duckduckgo (CAPTCHA). Try again later, or turn on other engines in its settings.");
  });

  it("an engine's reason that ends with a stop, or is long, still reads as one aside with its bracket closed", async () => {
    const http = scriptedHttp(() => jsonResponse({ results: [], unresponsive_engines: [["bing", "Suspended: access denied."], ["wiki", `too slow ${"very ".repeat(50)}slow`]] }));
    const error = failure(await runSource("searxng", http));
    expect(error.message).toMatch(/^SearXNG at http:\/\/localhost:8888 answered, but found nothing because its engines did not answer: bing \(Suspended: access denied\), wiki \(too slow very [a-z ]+…\)\. Try again later/);
  });

  it("no results with every engine answering is an empty answer", async () => {
    expect(answer(await runSource("searxng", scriptedHttp(empty))).results).toEqual([]);
  });
});
