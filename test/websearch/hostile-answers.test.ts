// What a hostile, broken or flaky server sends, met by every parser: bodies of the wrong shape and
// size, error bodies that echo without end, addresses that show one site and open another, dates no
// page has, and waits no service means. Each case is one that once went wrong.
import { describe, expect, it } from "vitest";
import type { HttpResponse } from "../../src/ports";
import { linkUrl } from "../../src/websearch/canonical-url";
import { maxTitleChars, toPublishedDate } from "../../src/websearch/plain-text";
import { maxMessageChars, retryAfterMs } from "../../src/websearch/provider-http";
import { maxRetryAfterMs } from "../../src/text/retry-after";
import { maxItemsRead } from "../../src/websearch/providers/source-call";
import { answer, failure, runSource } from "./providers/source-harness";
import { jsonResponse, scriptedHttp } from "./helpers";

const SECRET = "sk-test-secret-123";
const secrets = { brave: SECRET, exa: SECRET, tavily: SECRET };
const NOW = Date.parse("2026-03-01T12:00:00Z");

function always(response: HttpResponse) {
  return scriptedHttp(() => response);
}

function junk(n: number): unknown[] {
  return Array.from({ length: n }, (_, i) => (i % 2 === 0 ? 1 : {}));
}

describe("bodies of the wrong shape or size", () => {
  it("a JSON answer that starts with a byte-order mark is read", async () => {
    const body = `\uFEFF${JSON.stringify({ hits: [{ objectID: "1", title: "CRDTs in practice", url: "https://example.com/crdt" }] })}`;
    const run = await runSource("hackernews", always({ status: 200, headers: { "content-type": "application/json" }, text: body }));
    expect(answer(run).results.map((r) => r.url)).toEqual(["https://example.com/crdt"]);
  });

  it("JSON nested a hundred thousand deep is refused before parsing, and says so", async () => {
    const body = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    const error = failure(await runSource("tavily", always({ status: 200, headers: {}, text: body }), { secrets }));
    expect(error.kind).toBe("parse");
    expect(error.message).toContain("nests deeper than");
  });

  it("of a list far longer than any search asks for, only the first items are read, and the rest are counted", async () => {
    const hits = [...junk(150_000), { objectID: "9", title: "Late", url: "https://example.com/late" }];
    const response = answer(await runSource("hackernews", always(jsonResponse({ hits }))));
    expect(response.results).toEqual([]);
    expect(response.warnings).toContain(`${(hits.length - maxItemsRead).toLocaleString("en-US")} stories beyond the first ${maxItemsRead} not read`);
    expect(response.warnings).toContain(`${maxItemsRead} stories that could not be read skipped`);
  });

  it("Exa, Brave and SearXNG read their long lists only as far, too", async () => {
    const exa = answer(await runSource("exa", always(jsonResponse({ results: junk(5000), statuses: junk(5000) })), { secrets }));
    expect(exa.warnings).toContain(`4,900 results beyond the first ${maxItemsRead} not read`);
    const brave = answer(await runSource("brave-web", always(jsonResponse({ mixed: { main: junk(5000) }, web: { results: junk(5000) } })), { secrets }));
    expect(brave.warnings).toEqual(expect.arrayContaining(["4,900 layout slots beyond the first 100 not read", "4,900 web results beyond the first 100 not read"]));
    const searxng = answer(await runSource("searxng", always(jsonResponse({ results: [], unresponsive_engines: junk(5000) }))));
    expect(searxng.warnings).toContain(`4,900 unresponsive engines beyond the first ${maxItemsRead} not read`);
  });

  it("pages Exa could not read are one short warning, however many the answer lists", async () => {
    const statuses = Array.from({ length: 1000 }, (_, i) => ({ id: `https://example.com/${"x".repeat(1000)}${i}`, status: "error", error: { tag: "CRAWL_NOT_FOUND" } }));
    const response = answer(await runSource("exa", always(jsonResponse({ results: [], statuses: statuses.slice(0, 100) })), { secrets }));
    const warning = response.warnings.find((w) => w.startsWith("Exa could not read"));
    expect(warning).toMatch(/and 97 more$/);
    expect(warning!.length).toBeLessThan(700);
  });

  it("a title of half a megabyte is cut to a title's length, in every source that has one", async () => {
    const title = "CRDT ".repeat(100_000);
    const searxng = answer(await runSource("searxng", always(jsonResponse({ results: [{ url: "https://example.com/a", title }] }))));
    const exa = answer(await runSource("exa", always(jsonResponse({ results: [{ url: "https://example.com/a", title }] })), { secrets }));
    const feed = `<feed><entry><id>http://arxiv.org/abs/2401.00001v1</id><title>${title} &lt;b&gt;</title><summary>s</summary></entry></feed>`;
    const arxiv = answer(await runSource("arxiv", always({ status: 200, headers: {}, text: feed })));
    for (const response of [searxng, exa, arxiv]) expect(response.results[0].title.length).toBeLessThanOrEqual(maxTitleChars);
    const short = `<feed><entry><id>http://arxiv.org/abs/2401.00001v1</id><title>Why &lt;b&gt; is bold</title><summary>s</summary></entry></feed>`;
    expect(answer(await runSource("arxiv", always({ status: 200, headers: {}, text: short }))).results[0].title).toBe("Why <b> is bold");
  });

  it("a query Brave says it searched instead is quoted short", async () => {
    const response = answer(await runSource("brave-web", always(jsonResponse({ query: { altered: "crdt ".repeat(100_000) }, web: { results: [] } })), { secrets }));
    const warning = response.warnings.find((w) => w.includes("searched for"))!;
    expect(warning.length).toBeLessThan(250);
  });

  it("PubMed ids that arrive as numbers are read; a list of them the size of the body is not checked whole", async () => {
    const http = scriptedHttp((req) =>
      req.url.includes("/esearch.fcgi")
        ? jsonResponse({ esearchresult: { idlist: [38000001, ...Array.from({ length: 50_000 }, () => null)] } })
        : jsonResponse({ result: { "38000001": { uid: "38000001", title: "A trial", sortpubdate: "2024/03/05 00:00" } } }),
    );
    const response = answer(await runSource("pubmed", http, { request: { query: "vaccine trial", count: 3 } }));
    expect(response.results.map((r) => r.url)).toEqual(["https://pubmed.ncbi.nlm.nih.gov/38000001/"]);
  });
});

describe("error bodies that say too much", () => {
  it("a megabyte of `detail` becomes a message of bounded length that names the provider, never the key", async () => {
    const detail = `bad key ${SECRET} `.repeat(60_000);
    const error = failure(await runSource("tavily", always(jsonResponse({ detail: { error: detail } }, 401)), { secrets }));
    expect(error.kind).toBe("auth");
    expect(error.message.startsWith("Tavily rejected the API key")).toBe(true);
    expect(error.message.length).toBeLessThanOrEqual(maxMessageChars);
    expect(error.message).not.toContain(SECRET);
    expect(error.message).not.toContain("sk-test");
  });

  it("an HTTP 500 whose JSON error is huge is quoted briefly", async () => {
    const error = failure(await runSource("exa", always(jsonResponse({ error: "x".repeat(1_000_000), tag: "INTERNAL_ERROR" }, 500)), { secrets }));
    expect(error).toMatchObject({ kind: "http", status: 500 });
    expect(error.message.length).toBeLessThanOrEqual(maxMessageChars);
  });
});

describe("addresses in results", () => {
  it("credentials never reach the link, and the label names the host it opens", async () => {
    const response = answer(
      await runSource("searxng", always(jsonResponse({ results: [{ url: "https://docs.example.com:pw@evil.example/login", title: "Docs" }] }))),
    );
    expect(response.results[0]).toMatchObject({ url: "https://evil.example/login", domain: "evil.example", canonicalUrl: "https://evil.example/login" });
  });

  it("an address with a line break or spaces links to what the parser reads, never to the raw text", async () => {
    const sent = "https://example.com/a b\n)[x](javascript:alert(1)";
    const response = answer(await runSource("searxng", always(jsonResponse({ results: [{ url: sent, title: "T" }] }))));
    expect(response.results[0].url).toBe("https://example.com/a%20b)[x](javascript:alert(1)");
    expect(response.results[0].url).not.toMatch(/\s/);
  });

  it("javascript:, data:, file:, relative and protocol-relative addresses are skipped, and counted", async () => {
    const urls = ["javascript:alert(1)", "data:text/html,<script>1</script>", "file:///etc/passwd", "/relative/page", "//evil.example/x", " JAVASCRIPT:alert(1)", `https://example.com/${"a".repeat(10_000)}`];
    const response = answer(await runSource("searxng", always(jsonResponse({ results: [...urls.map((url) => ({ url, title: "x" })), { url: "https://example.com/ok", title: "ok" }] }))));
    expect(response.results.map((r) => r.url)).toEqual(["https://example.com/ok"]);
    expect(response.warnings).toContain(`${urls.length} results with an unusable URL skipped`);
  });

  it("linkUrl keeps a clean address exactly as sent (IDN and all)", () => {
    expect(linkUrl("https://bücher.de/Straße?q=1#top")).toBe("https://bücher.de/Straße?q=1#top");
    expect(linkUrl("https://user@example.com/")).toBe("https://example.com/");
  });
});

describe("dates, counts and waits out of range", () => {
  it("dates no page has are dropped, not written out malformed", () => {
    expect(toPublishedDate("5000 years ago", NOW)).toBeUndefined();
    expect(toPublishedDate("April 27, 0001", NOW)).toBeUndefined();
    expect(toPublishedDate("2999-01-01", NOW)).toBeUndefined();
    expect(toPublishedDate("April 27, 2023", NOW)).toBe("2023-04-27");
    expect(toPublishedDate("2 days ago", NOW)).toBe("2026-02-27");
  });

  it("a Stack Exchange creation date a million years out leaves the result undated", async () => {
    const item = (id: number, creation_date: number) => ({ question_id: id, title: `Q${id}`, link: `https://stackoverflow.com/q/${id}`, creation_date });
    const response = answer(await runSource("stackexchange", always(jsonResponse({ items: [item(1, 1e12), item(2, 1_700_000_000)] }))));
    expect(response.results[0].publishedAt).toBeUndefined();
    expect(response.results[1].publishedAt).toBe("2023-11-14T22:13:20.000Z");
  });

  it("a count sent as a string is read; a negative, fractional or endless one is dropped — never the result it came with", async () => {
    const hits = [
      { objectID: "1", title: "One", url: "https://example.com/1", points: "12", num_comments: -3 },
      { objectID: "2", title: "Two", url: "https://example.com/2", points: 1.5, num_comments: { n: 4 } },
    ];
    const hn = answer(await runSource("hackernews", always(jsonResponse({ hits }))));
    expect(hn.results.map((r) => r.signals)).toEqual([[{ kind: "points", value: 12 }], []]);
    const tavily = answer(await runSource("tavily", always({ status: 200, headers: {}, text: '{"results":[{"url":"https://example.com/t","score":"0.9"},{"url":"https://example.com/u","score":1e999}]}' }), { secrets }));
    expect(tavily.results.map((r) => r.score)).toEqual([0.9, undefined]);
    const github = answer(await runSource("github", always(jsonResponse({ items: [{ full_name: "a/b", html_url: "https://github.com/a/b", stargazers_count: 1e300 }] }))));
    expect(github.results[0].signals).toEqual([]);
  });

  it("a null in a list of words or passages, or a title sent as null, loses that item — never the result it came with", async () => {
    const exa = answer(await runSource("exa", always(jsonResponse({ results: [{ url: "https://example.com/a", title: "A", highlights: ["A passage long enough to be kept.", null], highlightScores: [null] }] })), { secrets }));
    expect(exa.results.map((r) => r.highlights)).toEqual([["A passage long enough to be kept."]]);
    expect(exa.warnings).toEqual([]);
    const brave = answer(await runSource("brave-web", always(jsonResponse({ web: { results: [{ url: "https://example.com/b", title: null, description: "d", extra_snippets: ["more", null] }] } })), { secrets }));
    expect(brave.results).toMatchObject([{ url: "https://example.com/b", title: "example.com", highlights: ["more"] }]);
    const github = answer(await runSource("github", always(jsonResponse({ items: [{ full_name: "a/b", html_url: "https://github.com/a/b", topics: ["crdt", null] }] }))));
    expect(github.results[0].highlights).toEqual(["Topics: crdt"]);
    const stackexchange = answer(await runSource("stackexchange", always(jsonResponse({ items: [{ question_id: 1, title: "T", link: "https://stackoverflow.com/q/1", tags: ["yjs", 7] }] }))));
    expect(stackexchange.results[0].signals).toContainEqual({ kind: "tags", value: ["yjs"] });
  });

  it("Brave's warning about a result it could not read does not say the result had no URL when it had one", async () => {
    const brave = answer(await runSource("brave-web", always(jsonResponse({ web: { results: [{ url: "https://example.com/b", title: "B", description: { html: "?" } }, { title: "no address" }] } })), { secrets }));
    expect(brave.results).toEqual([]);
    expect(brave.warnings).toEqual(["1 web result without a URL skipped", "1 web result that could not be read skipped"]);
  });

  it("a Retry-After no service means is believed for a day at most", () => {
    expect(retryAfterMs({ "retry-after": "99999999999" }, NOW)).toBe(maxRetryAfterMs);
    expect(retryAfterMs({ "retry-after": "Tue, 01 Jan 2999 00:00:00 GMT" }, NOW)).toBe(maxRetryAfterMs);
    expect(retryAfterMs({ "retry-after": "120" }, NOW)).toBe(120_000);
  });

  it("a long wait is said in hours or minutes, rounded up, never in tens of thousands of seconds", async () => {
    const day = await runSource("tavily", always(jsonResponse({ detail: "slow down" }, 429, { "retry-after": "86400" })), { secrets });
    expect(failure(day).message).toBe("Tavily rate limit reached; try again in 24 h.");
    const minutes = await runSource("tavily", always(jsonResponse({ detail: "slow down" }, 429, { "retry-after": "601" })), { secrets });
    expect(failure(minutes).message).toBe("Tavily rate limit reached; try again in 11 min.");
  });

  it("a Retry-After already past, or too short to show, says try again now; a negative or wordy one says shortly", async () => {
    const said = async (retryAfter: string) => failure(await runSource("tavily", always(jsonResponse({ detail: "slow down" }, 429, { "retry-after": retryAfter })), { secrets, now: NOW })).message;
    expect(await said("Wed, 21 Oct 2015 07:28:00 GMT")).toBe("Tavily rate limit reached; try again now.");
    expect(await said("0.0001")).toBe("Tavily rate limit reached; try again now.");
    expect(await said("0.5")).toBe("Tavily rate limit reached; try again in 0.5 s.");
    expect(await said("-5")).toBe("Tavily rate limit reached; try again shortly.");
    expect(await said("soon")).toBe("Tavily rate limit reached; try again shortly.");
  });

  it("after an absurd Retry-After the source is asked again the next day, not never", async () => {
    let calls = 0;
    const http = scriptedHttp(() => (++calls === 1 ? jsonResponse({ detail: "slow down" }, 429, { "retry-after": "99999999999" }) : jsonResponse({ results: [] })));
    const run = await runSource("tavily", http, { secrets });
    expect(failure(run)).toMatchObject({ kind: "rate_limited", retryAfterMs: maxRetryAfterMs });
    run.clock.advance(maxRetryAfterMs + 1);
    const { createProviderRegistry } = await import("../../src/websearch/registry");
    const { testContext, fakeSecrets } = await import("./helpers");
    const again = await createProviderRegistry()
      .get("tavily")!
      .search({ query: "q", count: 3 }, testContext(http, { clock: run.clock, governor: run.governor, secrets: fakeSecrets(secrets) }));
    expect(again.results).toEqual([]);
    expect(http.requests).toHaveLength(2);
  });
});
