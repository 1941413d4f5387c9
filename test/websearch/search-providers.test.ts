import { describe, expect, it } from "vitest";
import type { HttpRequest, HttpResponse } from "../../src/ports";
import { RateGovernor } from "../../src/websearch/rate-governor";
import { SearchCache } from "../../src/websearch/search-cache";
import { createSearchSession, searchProviders } from "../../src/websearch/search-providers";
import { fakeClock, jsonResponse, loadExchange, networkDown, scriptedHttp, testContext, toResponse } from "./helpers";

const llmAnswer = (urls: string[]) =>
  jsonResponse({
    grounding: { generic: urls.map((url, i) => ({ url, title: `Brave ${i + 1}`, snippets: [`brave passage ${i + 1} about ${url}`] })) },
    sources: {},
  });
const exaAnswer = (urls: string[]) =>
  jsonResponse({ requestId: "r1", results: urls.map((url, i) => ({ id: url, url, title: `Exa ${i + 1}`, text: `exa text ${i + 1}`, author: "A. Writer" })) });

function byHost(answers: { brave?: () => HttpResponse | Promise<HttpResponse>; exa?: () => HttpResponse | Promise<HttpResponse> }) {
  return scriptedHttp((req: HttpRequest) => {
    const answer = req.url.includes("brave.com") ? answers.brave : answers.exa;
    if (!answer) throw new Error(`unexpected ${req.url}`);
    return answer();
  });
}

describe("searchProviders", () => {
  it("merges the same page from two providers into one result that remembers who else found it", async () => {
    const http = byHost({
      brave: () => llmAnswer(["https://automerge.org/docs/hello/", "https://crdt.tech/"]),
      exa: () => exaAnswer(["https://automerge.org/docs/hello?utm_source=exa", "https://yjs.dev/"]),
    });
    const { results, errors, responses } = await searchProviders(["brave", "exa"], { query: "automerge", count: 5 }, testContext(http));
    expect(errors).toEqual([]);
    expect(responses.map((r) => r.provider)).toEqual(["brave", "exa"]);
    expect(results.map((r) => [r.canonicalUrl, r.provider, r.alsoFoundBy, r.rank])).toEqual([
      ["https://automerge.org/docs/hello", "brave", ["exa"], 1],
      ["https://crdt.tech/", "brave", [], 2],
      ["https://yjs.dev/", "exa", [], 3],
    ]);
    const merged = results[0];
    expect(merged.providerLabel).toBe("Brave");
    expect(merged.title).toBe("Brave 1");
    expect(merged.text).toBe("exa text 1");
    expect(merged.author).toBe("A. Writer");
    expect(merged.providerRank).toBe(1);
  });

  it("queries providers concurrently and keeps one provider's results when the other fails", async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const slow = (answer: () => HttpResponse) => async () => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((r) => setTimeout(r, 20));
      inFlight--;
      return answer();
    };
    const http = byHost({ brave: slow(networkDown), exa: slow(() => exaAnswer(["https://yjs.dev/"])) });
    const { results, errors } = await searchProviders(["brave", "exa"], { query: "yjs", count: 5 }, testContext(http));
    expect(maxInFlight).toBe(2);
    expect(results.map((r) => r.url)).toEqual(["https://yjs.dev/"]);
    expect(errors).toHaveLength(1);
    expect(errors[0].provider).toBe("brave");
    expect(errors[0].error.kind).toBe("network");
  });

  it("gives up on a provider at its deadline without holding back the others", async () => {
    const http = byHost({ brave: () => new Promise<HttpResponse>(() => {}), exa: () => exaAnswer(["https://yjs.dev/"]) });
    const { results, errors } = await searchProviders(["brave", "exa"], { query: "yjs", count: 5, timeoutMs: 1000 }, testContext(http));
    expect(results).toHaveLength(1);
    expect(errors.map((e) => [e.provider, e.error.kind])).toEqual([["brave", "timeout"]]);
  });

  it("answers a repeated question from the session cache without spending quota", async () => {
    const http = byHost({ exa: () => exaAnswer(["https://yjs.dev/"]) });
    const context = testContext(http);
    const session = createSearchSession(context);
    const first = await searchProviders(["exa"], { query: "yjs", count: 5 }, context, session);
    const again = await searchProviders(["exa"], { query: "yjs", count: 5 }, context, session);
    const different = await searchProviders(["exa"], { query: "yjs", count: 4 }, context, session);
    // A shorter wait asks the same: answered from the cache.
    const hurried = await searchProviders(["exa"], { query: "yjs", count: 5, timeoutMs: 2000 }, context, session);
    expect(hurried.responses[0].cached).toBe(true);
    expect(http.requests).toHaveLength(2);
    expect(first.responses[0].cached).toBeUndefined();
    expect(again.responses[0].cached).toBe(true);
    expect(again.results).toEqual(first.results);
    expect(different.responses[0].cached).toBeUndefined();
    expect(context.events.filter((e) => e.type === "cache_hit")).toHaveLength(2);
  });

  it("does not cache failures", async () => {
    let calls = 0;
    const http = byHost({ exa: () => (++calls === 1 ? networkDown() : exaAnswer(["https://yjs.dev/"])) });
    const context = testContext(http);
    const session = createSearchSession(context);
    expect((await searchProviders(["exa"], { query: "yjs", count: 5 }, context, session)).errors).toHaveLength(1);
    expect((await searchProviders(["exa"], { query: "yjs", count: 5 }, context, session)).results).toHaveLength(1);
  });

  it("names an unknown provider and an empty query as errors instead of throwing", async () => {
    const http = byHost({});
    const unknown = await searchProviders(["bing" as never], { query: "yjs", count: 5 }, testContext(http));
    expect(unknown.errors[0].error.kind).toBe("unsupported");
    const empty = await searchProviders(["exa"], { query: "   ", count: 5 }, testContext(http));
    expect(empty.errors[0].error.message).toBe("The search query is empty.");
    expect(http.requests).toHaveLength(0);
  });

  it("spaces Brave calls a second apart, also across its two endpoints", async () => {
    const clock = fakeClock();
    const http = scriptedHttp((req) =>
      req.url.includes("/llm/context") ? toResponse(loadExchange("brave-llm-context/option-not-in-plan.json")) : jsonResponse({ type: "search" }),
    );
    const context = testContext(http, { clock });
    const session = createSearchSession(context);
    await searchProviders(["brave"], { query: "one", count: 3 }, context, session);
    expect(clock.sleeps).toEqual([1000]);
    await searchProviders(["brave"], { query: "two", count: 3 }, context, session);
    expect(clock.sleeps).toEqual([1000, 1000]);
    expect(context.events.filter((e) => e.type === "rate_wait")).toHaveLength(2);
  });

  it("after a 429 with retry-after, refuses to call again until then when the wait would exceed the deadline", async () => {
    const clock = fakeClock();
    const http = scriptedHttp(() => jsonResponse({ error: "slow down" }, 429, { "retry-after": "60" }));
    const context = testContext(http, { clock });
    const session = createSearchSession(context);
    const first = await searchProviders(["exa"], { query: "a", count: 3, timeoutMs: 5000 }, context, session);
    expect(first.errors[0].error).toMatchObject({ kind: "rate_limited", retryAfterMs: 60_000 });
    clock.advance(10_000);
    const second = await searchProviders(["exa"], { query: "b", count: 3, timeoutMs: 5000 }, context, session);
    expect(second.errors[0].error.kind).toBe("rate_limited");
    expect(second.errors[0].error.message).toBe("Exa asked us to slow down; the next call is allowed in 50 s, later than this search may wait.");
    expect(second.errors[0].error.retryAfterMs).toBe(50_000);
    expect(http.requests).toHaveLength(1);
    clock.advance(50_000);
    await searchProviders(["exa"], { query: "c", count: 3, timeoutMs: 5000 }, context, session);
    expect(http.requests).toHaveLength(2);
  });

  it("a source refused for this session's own pacing does not say the provider asked for a pause", async () => {
    const clock = fakeClock();
    const http = scriptedHttp(() => jsonResponse({ results: [] }));
    const context = testContext(http, { clock });
    const session = { ...createSearchSession(context), governor: new RateGovernor(clock, { exa: 6000 }) };
    session.governor.reserve("exa", 10_000); // two calls of other runs: the next turn is 12 s away
    session.governor.reserve("exa", 10_000);
    const refused = await searchProviders(["exa"], { query: "a", count: 3, timeoutMs: 5000 }, context, session);
    expect(refused.errors[0].error).toMatchObject({ kind: "rate_limited", retryAfterMs: 12_000 });
    expect(refused.errors[0].error.message).toBe("Exa's calls are spaced to the rate it allows, and this session's earlier calls come first; the next one is allowed in 12 s, later than this search may wait.");
    expect(http.requests).toHaveLength(0);
  });
});

describe("RateGovernor", () => {
  it("queues concurrent callers of one quota one interval apart and leaves other quotas alone", () => {
    const clock = fakeClock();
    const governor = new RateGovernor(clock, { brave: 1000, exa: 100 });
    expect(governor.reserve("brave", 5000)).toMatchObject({ ok: true, waitMs: 0 });
    expect(governor.reserve("brave", 5000)).toMatchObject({ ok: true, waitMs: 1000 });
    expect(governor.reserve("brave", 5000)).toMatchObject({ ok: true, waitMs: 2000 });
    expect(governor.reserve("exa", 5000)).toMatchObject({ ok: true, waitMs: 0 });
    expect(governor.reserve("brave", 1500)).toEqual({ ok: false, retryAfterMs: 3000 });
    clock.advance(3000);
    expect(governor.reserve("brave", 0)).toMatchObject({ ok: true, waitMs: 0 });
  });

  it("a clock set back an hour keeps the spacing and the back-off, and does not refuse every call for the hour", () => {
    const clock = fakeClock();
    const governor = new RateGovernor(clock, { brave: 1000, exa: 100 });
    expect(governor.reserve("brave", 5000)).toMatchObject({ ok: true, waitMs: 0 });
    governor.backOff("exa", 2000);
    clock.set(clock.now() - 3_600_000);
    expect(governor.reserve("brave", 5000)).toMatchObject({ ok: true, waitMs: 1000 });
    expect(governor.reserve("exa", 5000)).toMatchObject({ ok: true, waitMs: 2000 });
  });

  it("a clock stepped forward a day keeps the spacing and the back-off: the waiting calls do not all go at once", () => {
    const clock = fakeClock();
    const governor = new RateGovernor(clock, { arxiv: 3000, exa: 100 });
    expect(governor.reserve("arxiv", 10_000)).toMatchObject({ ok: true, waitMs: 0 });
    expect(governor.reserve("arxiv", 10_000)).toMatchObject({ ok: true, waitMs: 3000 });
    governor.backOff("exa", 2000);
    clock.set(clock.now() + 24 * 3_600_000);
    expect(governor.reserve("arxiv", 10_000)).toMatchObject({ ok: true, waitMs: 6000 });
    expect(governor.pausedByProvider("exa")).toBe(true);
    expect(governor.reserve("exa", 5000)).toMatchObject({ ok: true, waitMs: 2000 });
  });

  it("on a clock with wall time only, set back an hour, keeps the spacing without refusing every call for the hour", () => {
    let wall = Date.parse("2026-03-01T12:00:00Z");
    const governor = new RateGovernor({ now: () => wall, sleep: async () => undefined }, { brave: 1000 });
    expect(governor.reserve("brave", 5000)).toMatchObject({ ok: true, waitMs: 0 });
    wall -= 3_600_000;
    expect(governor.reserve("brave", 5000)).toMatchObject({ ok: true, waitMs: 1000 });
  });

  it("takes back a turn no call used, unless a later call has claimed the one after it", () => {
    const clock = fakeClock();
    const governor = new RateGovernor(clock, { github: 6000 });
    governor.reserve("github", 10_000);
    const unused = governor.reserve("github", 10_000);
    expect(unused).toMatchObject({ ok: true, waitMs: 6000 });
    governor.giveBack("github", unused);
    expect(governor.reserve("github", 10_000)).toMatchObject({ ok: true, waitMs: 6000 });
    // Now a call is queued behind the one given back: its turn stays where it was.
    const second = governor.reserve("github", 20_000);
    const third = governor.reserve("github", 20_000);
    governor.giveBack("github", second);
    expect(third).toMatchObject({ ok: true, waitMs: 18_000 });
    expect(governor.reserve("github", 30_000)).toMatchObject({ ok: true, waitMs: 24_000 });
  });

  it("says whether the provider asked for the pause or this session's own pacing holds the quota", () => {
    const clock = fakeClock();
    const governor = new RateGovernor(clock, { github: 6000 });
    governor.reserve("github", 10_000);
    expect(governor.pausedByProvider("github")).toBe(false);
    governor.backOff("github", 60_000);
    expect(governor.pausedByProvider("github")).toBe(true);
    clock.advance(60_000);
    expect(governor.pausedByProvider("github")).toBe(false);
  });
});

describe("SearchCache", () => {
  const response = (query: string) => ({ provider: "exa" as const, endpoint: "search", query, results: [], warnings: [] });

  it("forgets answers after their time to live", () => {
    const clock = fakeClock();
    const cache = new SearchCache(clock, { ttlMs: 1000 });
    cache.set("a", response("a"));
    clock.advance(999);
    expect(cache.get("a")?.query).toBe("a");
    clock.advance(1);
    expect(cache.get("a")).toBeUndefined();
  });

  it("evicts the least recently used answer when full", () => {
    const cache = new SearchCache(fakeClock(), { maxEntries: 2 });
    cache.set("a", response("a"));
    cache.set("b", response("b"));
    cache.get("a");
    cache.set("c", response("c"));
    expect(cache.get("b")).toBeUndefined();
    expect(cache.get("a")?.query).toBe("a");
    expect(cache.get("c")?.query).toBe("c");
  });

  it("a clock set back does not keep an answer fresh for the hour it went back", () => {
    const clock = fakeClock();
    const cache = new SearchCache(clock, { ttlMs: 1000 });
    cache.set("a", response("a"));
    clock.set(clock.now() - 3_600_000);
    expect(cache.get("a")).toBeUndefined();
    cache.set("b", response("b"));
    clock.advance(999);
    expect(cache.get("b")?.query).toBe("b");
  });

  it("hands out copies, so a caller cannot change what is cached", () => {
    const cache = new SearchCache(fakeClock());
    cache.set("a", response("a"));
    cache.get("a")!.warnings.push("changed");
    expect(cache.get("a")!.warnings).toEqual([]);
  });
});

describe("Exa's highlights", () => {
  const withHighlights = (highlights: string[]) =>
    byHost({ exa: () => jsonResponse({ requestId: "r1", results: [{ id: "https://yjs.dev/", url: "https://yjs.dev/", title: "Yjs", highlights }] }) });

  it("split at a line of dots between line breaks, as before", async () => {
    const first = "Yjs is a CRDT framework for shared editing.";
    const second = "Providers sync documents over WebSocket or WebRTC.";
    const { results } = await searchProviders(["exa"], { query: "yjs", count: 5 }, testContext(withHighlights([`${first}  \n \n...\t\n${second}`])));
    expect(results[0].highlights).toEqual([first, second]);
  });

  it("read a highlight of 400,000 line breaks with no dots between them once", async () => {
    // Tried from each line break, the old separator's `\s*` read the rest of the run: minutes.
    const { results, errors } = await searchProviders(["exa"], { query: "yjs", count: 5 }, testContext(withHighlights([`Yjs is a CRDT framework.${"\n".repeat(400_000)}It syncs documents.`])));
    expect(errors).toEqual([]);
    expect(results[0].highlights?.[0]).toContain("Yjs is a CRDT framework.");
  });
});
