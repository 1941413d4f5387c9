import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { HttpFailure, type HttpResponse } from "../../src/ports";
import { createBraveProvider } from "../../src/websearch/providers/brave";
import { createBraveWebProvider } from "../../src/websearch/providers/brave-web";
import { createExaProvider } from "../../src/websearch/providers/exa";
import { aside, bodyExcerpt, maxResponseBytes, saidWithCode } from "../../src/websearch/provider-http";
import { ProviderError, type Provider, type ProviderLogEvent, type ProviderResponse } from "../../src/websearch/types";
import { braveKey, exaKey, jsonResponse, loadExchange, networkDown, scriptedHttp, testContext, toResponse } from "./helpers";
import { runSource } from "./providers/source-harness";

async function failure(provider: Provider, answer: () => HttpResponse | Promise<HttpResponse>, timeoutMs?: number): Promise<ProviderError> {
  const http = scriptedHttp(answer);
  const outcome = await provider.search({ query: "crdt", count: 3, ...(timeoutMs ? { timeoutMs } : {}) }, testContext(http)).catch((e: unknown) => e);
  if (!(outcome instanceof ProviderError)) throw new Error(`expected a ProviderError, got ${JSON.stringify(outcome)}`);
  return outcome;
}

describe("each error kind maps from its real-world trigger", () => {
  it("auth: Brave's 422 SUBSCRIPTION_TOKEN_INVALID (not a 401) and Exa's 401 INVALID_API_KEY", async () => {
    const brave = await failure(createBraveWebProvider(), () => toResponse(loadExchange("brave-web/token-invalid-422.json")));
    expect(brave.kind).toBe("auth");
    expect(brave.status).toBe(422);
    expect(brave.message).toContain("SUBSCRIPTION_TOKEN_INVALID");
    const exa = await failure(createExaProvider(), () => toResponse(loadExchange("exa/invalid-key-401.json")));
    expect(exa.kind).toBe("auth");
    expect(exa.message).toContain("INVALID_API_KEY");
  });

  it("rate_limited: 429 with retry-after carries the wait; without it, no invented number", async () => {
    const withHeader = await failure(createBraveWebProvider(), () => toResponse(loadExchange("brave-web/rate-limited-with-retry-after.json")));
    expect(withHeader).toMatchObject({ kind: "rate_limited", retryAfterMs: 3000, status: 429 });
    const without = await failure(createBraveWebProvider(), () => toResponse(loadExchange("brave-web/rate-limited-without-retry-after.json")));
    expect(without.kind).toBe("rate_limited");
    expect(without.retryAfterMs).toBeUndefined();
    const exa = await failure(createExaProvider(), () => toResponse(loadExchange("exa/rate-limited-429.json")));
    expect(exa).toMatchObject({ kind: "rate_limited", retryAfterMs: 2000 });
  });

  it("rate_limited: Brave's x-ratelimit-reset gives the wait of the exhausted window", async () => {
    const error = await failure(createBraveWebProvider(), () =>
      jsonResponse({ error: { code: "RATE_LIMITED" } }, 429, { "x-ratelimit-remaining": "1, 0", "x-ratelimit-reset": "1, 86400" }),
    );
    expect(error.retryAfterMs).toBe(86_400_000);
  });

  it("plan: OPTION_NOT_IN_PLAN on Brave web search, no credits on Exa", async () => {
    const brave = await failure(createBraveWebProvider(), () => toResponse(loadExchange("brave-llm-context/option-not-in-plan.json")));
    expect(brave.kind).toBe("plan");
    const exa = await failure(createExaProvider(), () => toResponse(loadExchange("exa/no-credits-402.json")));
    expect(exa.kind).toBe("plan");
  });

  it("unsupported: a 404 from a proxy that does not know the endpoint", async () => {
    const error = await failure(createBraveWebProvider(), () => toResponse(loadExchange("brave-llm-context/not-found-404.json")));
    expect(error.kind).toBe("unsupported");
    expect(error.message).toContain("404 Not Found");
  });

  it("timeout: an answer that never comes is given up after the deadline", async () => {
    const error = await failure(createExaProvider(), () => new Promise<HttpResponse>(() => {}), 1000);
    expect(error.kind).toBe("timeout");
    expect(error.message).toBe("Exa did not answer within 1 s.");
  });

  it("timeout: a late answer after the deadline is discarded and logged", async () => {
    const events: ProviderLogEvent[] = [];
    let deliver: (r: HttpResponse) => void = () => {};
    const http = scriptedHttp(() => new Promise<HttpResponse>((resolve) => (deliver = resolve)));
    const error = await createExaProvider()
      .search({ query: "crdt", count: 3, timeoutMs: 1000 }, testContext(http, { log: (e) => events.push(e) }))
      .catch((e: unknown) => e);
    expect((error as ProviderError).kind).toBe("timeout");
    deliver(jsonResponse({ results: [] }));
    await new Promise((r) => setTimeout(r, 0));
    expect(events.map((e) => e.type)).toContain("late_answer_discarded");
  });

  it("timeout: an adapter's own timeout failure", async () => {
    const error = await failure(createBraveWebProvider(), () => {
      throw new HttpFailure("timeout", "timed out");
    });
    expect(error.kind).toBe("timeout");
  });

  it("http: a 502 HTML page becomes its title, not a page of markup", async () => {
    const error = await failure(createBraveWebProvider(), () => toResponse(loadExchange("brave-web/gateway-502-html.json")));
    expect(error).toMatchObject({ kind: "http", status: 502 });
    expect(error.message).toBe("Brave Web answered HTTP 502: 502 Bad Gateway");
    const exa = await failure(createExaProvider(), () => toResponse(loadExchange("exa/server-error-500-html.json")));
    expect(exa.message).toBe("Exa answered HTTP 500: Internal Server Error");
  });

  it("http: an error page of unclosed <title> or <script> tags still gives its text, in one pass", () => {
    // Big enough that the old lazy patterns, looking for a closer from every opener, ran for minutes.
    const page = (tail: string): HttpResponse => ({ status: 502, headers: { "content-type": "text/html" }, text: `<html><body>Service unavailable${tail}` });
    expect(bodyExcerpt(page("<title>".repeat(500_000)), "")).toBe("Service unavailable");
    expect(bodyExcerpt(page("<script>".repeat(500_000)), "")).toBe("Service unavailable");
  });

  it("parse: truncated JSON, an HTML page with status 200, and a wrong shape name what went wrong", async () => {
    const truncated = await failure(createBraveWebProvider(), () => toResponse(loadExchange("brave-web/truncated-json.json")));
    expect(truncated.kind).toBe("parse");
    expect(truncated.message).toMatch(/not valid JSON .*cut off/);
    const page = await failure(createBraveWebProvider(), () => toResponse(loadExchange("brave-web/challenge-200-html.json")));
    expect(page.message).toContain("web page instead of JSON: “Just a moment...”");
    const shape = await failure(createBraveWebProvider(), () => toResponse(loadExchange("brave-web/wrong-shape.json")));
    expect(shape.message).toContain("at web.results");
    const exa = await failure(createExaProvider(), () => toResponse(loadExchange("exa/truncated-json.json")));
    expect(exa.kind).toBe("parse");
  });

  it("parse: a body over the size cap is refused before parsing", async () => {
    const huge = { status: 200, headers: {}, text: `{"results":[${'"x",'.repeat(maxResponseBytes / 4)}"x"]}` };
    const error = await failure(createExaProvider(), () => huge);
    expect(error.kind).toBe("parse");
    expect(error.message).toMatch(/over the 2 MB limit; it was not read/);
    const fromAdapter = await failure(createExaProvider(), () => {
      throw new HttpFailure("too_large", "body exceeded maxBytes");
    });
    expect(fromAdapter.message).toMatch(/over the 2 MB limit/);
  });

  it("network: no connection at all", async () => {
    const error = await failure(createBraveWebProvider(), networkDown);
    expect(error.kind).toBe("network");
    expect(error.message).toContain("ENOTFOUND");
  });

  // Reached every time: "Could not reach Brave Web: … kept redirecting", and the panel said it could not be reached.
  it("http, not network: a server that kept redirecting, or redirected to another site, answered", async () => {
    for (const said of ["127.0.0.1:8888 kept redirecting (more than 5 times); the request was given up on.", "127.0.0.1:8888 redirected to another site (localhost:8888); the request was not sent there."]) {
      const error = await failure(createBraveWebProvider(), () => {
        throw new HttpFailure("redirect", said);
      });
      expect(error.kind).toBe("http");
      expect(error.message).toBe(`Brave Web answered, but ${said}`);
      expect(error.message).not.toMatch(/could not reach/i);
    }
  });
});

describe("Brave LLM Context fallback", () => {
  it("falls back to web search when the plan lacks LLM Context, says so, and skips the failed call next time", async () => {
    const http = scriptedHttp((req) =>
      req.url.includes("/llm/context")
        ? toResponse(loadExchange("brave-llm-context/option-not-in-plan.json"))
        : toResponse(loadExchange("brave-web/crdt-news-videos.json")),
    );
    const brave = createBraveProvider();
    const context = testContext(http);
    const first = await brave.search({ query: "yjs vs automerge", count: 3 }, context);
    expect(first).toMatchObject({ provider: "brave", endpoint: "web/search" });
    expect(first.results).toHaveLength(3);
    expect(first.warnings[0]).toBe("Brave LLM Context was not used (it is not in this key's plan); results come from Brave Web Search instead");
    expect(context.events.some((e) => e.type === "fallback")).toBe(true);

    const second = await brave.search({ query: "another question", count: 3 }, context);
    expect(second.endpoint).toBe("web/search");
    expect(http.requests.map((r) => new URL(r.url).pathname)).toEqual(["/res/v1/llm/context", "/res/v1/web/search", "/res/v1/web/search"]);
  });

  it("tries LLM Context again once the key is changed: a plan without it is the key's, not the address's", async () => {
    const keys: { brave: string } = { brave: "BSA-old-plan-key-0001" };
    const http = scriptedHttp((req) =>
      !req.url.includes("/llm/context")
        ? toResponse(loadExchange("brave-web/crdt-news-videos.json"))
        : toResponse(loadExchange(keys.brave.includes("old") ? "brave-llm-context/option-not-in-plan.json" : "brave-llm-context/local-first-crdt.json")),
    );
    const brave = createBraveProvider();
    const context = testContext(http, { secrets: { get: async (name) => (name === "brave" ? keys.brave : null) } });
    await brave.search({ query: "yjs vs automerge", count: 3 }, context);
    await brave.search({ query: "yjs vs automerge", count: 3 }, context);
    keys.brave = "BSA-new-plan-key-0002";
    await brave.search({ query: "yjs vs automerge", count: 3 }, context);
    expect(http.requests.map((r) => new URL(r.url).pathname)).toEqual(["/res/v1/llm/context", "/res/v1/web/search", "/res/v1/web/search", "/res/v1/llm/context"]);
  });

  it("does not fall back on errors that web search would share (a bad key)", async () => {
    const http = scriptedHttp(() => toResponse(loadExchange("brave-web/token-invalid-422.json")));
    const error = await createBraveProvider().search({ query: "crdt", count: 3 }, testContext(http)).catch((e: unknown) => e);
    expect((error as ProviderError).kind).toBe("auth");
    expect(http.requests).toHaveLength(1);
  });
});

describe("keys never leak", () => {
  it("a key echoed back by a proxy appears in no error, warning, result or log line", async () => {
    const echo = (key: string) => (): HttpResponse => ({
      status: 500,
      headers: { "content-type": "text/plain" },
      text: `upstream rejected token ${key} for https://api.example/?key=${key}`,
    });
    const outputs: string[] = [];
    for (const [provider, key] of [
      [createBraveProvider(), braveKey],
      [createBraveWebProvider(), braveKey],
      [createExaProvider(), exaKey],
    ] as const) {
      const events: ProviderLogEvent[] = [];
      const error = await provider.search({ query: "crdt", count: 3 }, testContext(scriptedHttp(echo(key)), { log: (e) => events.push(e) })).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProviderError);
      outputs.push(JSON.stringify(error), (error as Error).message, String((error as Error).stack), JSON.stringify(events));
      expect((error as Error).message).toContain("[key hidden]");
    }

    const echoInResults = (): HttpResponse =>
      jsonResponse({ results: [{ url: `https://example.org/?q=${exaKey}`, title: `title ${exaKey}`, highlights: [`text ${exaKey}`] }] });
    const events: ProviderLogEvent[] = [];
    const ok: ProviderResponse = await createExaProvider().search({ query: "crdt", count: 3 }, testContext(scriptedHttp(echoInResults), { log: (e) => events.push(e) }));
    expect(ok.results[0].title).toBe("title [key hidden]");
    outputs.push(JSON.stringify(ok), JSON.stringify(events));

    for (const output of outputs) {
      expect(output).not.toContain(braveKey);
      expect(output).not.toContain(exaKey);
    }
  });
});

describe("a server's words inside a sentence of ours", () => {
  // One home each (STYLE.md): the Retry-After cap is text/retry-after.ts's, the aside's rule text/asides.ts's.
  it("are worded by text/'s rules, of which provider-http keeps no copy of its own", () => {
    const source = readFileSync(path.join(__dirname, "../../src/websearch/provider-http.ts"), "utf8");
    expect(source).not.toMatch(/\bconst maxRetryAfterMs\b|\bfunction withoutFinalStops\b/);
    expect(source).toMatch(/from "\.\.\/text\/asides"/);
  });

  it("an aside keeps no full stop of its own, and is nothing when the server said nothing", () => {
    expect(`Tavily rejected the API key${aside("Unauthorized: missing or invalid API key.")}.`).toBe("Tavily rejected the API key (Unauthorized: missing or invalid API key).");
    expect(aside("Why not?")).toBe(" (Why not?)");
    expect(aside("cut short…")).toBe(" (cut short…)");
    for (const none of [undefined, "", " . ", "\n"]) expect(aside(none)).toBe("");
  });

  it("words followed by their code lose the stop that stood before the bracket; without a code they stay as said", () => {
    expect(saidWithCode("The title is invalid.", "badtitle")).toBe("The title is invalid (badtitle)");
    expect(saidWithCode("The title is invalid.", undefined)).toBe("The title is invalid.");
    expect(saidWithCode("The title is invalid.", "")).toBe("The title is invalid.");
  });

  it("a server's words of a million dots and a letter are read in one pass, not once for every dot", () => {
    const hostile = `${".".repeat(1_000_000)}x`;
    // Linear work finishes at once; a pattern retried from every dot would run for hours, and this test with it.
    expect(saidWithCode(hostile, "code").endsWith("x (code)")).toBe(true);
    expect(saidWithCode(`${hostile}.. `, "code").endsWith("x (code)")).toBe(true);
  });
});

describe("an error a source sends where its answer should be, or under a status that is no key's", () => {
  // Brave Web Search's blocks are all optional: its error envelope sent with a 200 (a proxy in front
  // of Brave answers so) read as an answer with no results, and the run said "answered with nothing to add".
  it("Brave's error envelope in a 200 is the error it names, on both endpoints", async () => {
    const tokenInvalid = { type: "ErrorResponse", error: { code: "SUBSCRIPTION_TOKEN_INVALID", detail: "The provided subscription token is invalid.", status: 422 } };
    for (const provider of [createBraveWebProvider(), createBraveProvider()]) {
      expect(await failure(provider, () => jsonResponse(tokenInvalid))).toMatchObject({ kind: "auth", status: 422 });
    }
    const unnamed = await failure(createBraveWebProvider(), () => jsonResponse({ type: "ErrorResponse", error: { code: "SOMETHING", detail: "Not today" } }));
    expect(unnamed).toMatchObject({ kind: "http", status: 200, reason: "refused" });
    expect(unnamed.message).toBe("Brave Web answered HTTP 200: Not today (SOMETHING)");
  });

  it("a Brave answer with no error in it is still an answer, an `error: null` too", async () => {
    const http = scriptedHttp(() => jsonResponse({ type: "search", error: null, web: { results: [{ url: "https://a.example/", title: "A" }] } }));
    const answer = await createBraveWebProvider().search({ query: "crdt", count: 3 }, testContext(http));
    expect(answer.results.map((r) => r.url)).toEqual(["https://a.example/"]);
  });

  // Exa's 403s name what they refuse: read as a key refused, the run said "Exa refused the API key"
  // of a query its content filter turned away.
  it("Exa's 403 for what was asked (content filter, robots rules) is a refusal of the search, not of the key", async () => {
    for (const tag of ["PROHIBITED_CONTENT", "ROBOTS_FILTER_FAILED", "CONTENT_FILTER_ERROR"]) {
      const error = await failure(createExaProvider(), () => jsonResponse({ requestId: "r", error: "Refused", tag }, 403));
      expect(error).toMatchObject({ kind: "http", status: 403, reason: "refused" });
      expect(error.message).toContain(tag);
    }
    // A 403 with no tag of Exa's is still read as the key's.
    expect(await failure(createExaProvider(), () => jsonResponse({}, 403))).toMatchObject({ kind: "auth", status: 403 });
  });
});

describe("an answer of the wrong shape that holds an error's words", () => {
  // Sent with a 200 (a proxy in front of the service, or the service itself), the error was said only
  // as "an unexpected shape at results", and what it said was wrong was not told.
  it("says what the body said, quoted short and with no key", async () => {
    const said = async (provider: string, body: unknown) => {
      const run = await runSource(provider as never, scriptedHttp(() => jsonResponse(body)), { secrets: { exa: exaKey, tavily: "tvly-leakcheck-0123456789SAMPLE" } });
      return (run.outcome as ProviderError).message;
    };
    expect(await said("tavily", { detail: { error: "Unauthorized: missing or invalid API key." } })).toBe(
      "Tavily's search answer has an unexpected shape at results: Invalid input: expected array, received undefined; it said “Unauthorized: missing or invalid API key.”.",
    );
    expect(await said("exa", { requestId: "r", error: `Invalid API key ${exaKey}`, tag: "INVALID_API_KEY" })).toContain("; it said “Invalid API key [key hidden]”.");
    expect(await said("github", { message: "x".repeat(5000) })).toMatch(/; it said “x{100,160}…”\.$/);
    // An answer of the wrong shape with no such words is said as before.
    expect(await said("github", { items: "none" })).toBe("GitHub's search answer has an unexpected shape at items: Invalid input: expected array, received string.");
  });
});
