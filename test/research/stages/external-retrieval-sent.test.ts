// What the trace says left the device, against what the run's Http was given. A source handed the
// query is not a source that sent it: Brave with no key, or a query empty once tidied, refuses it
// before anything is sent. Recorded as each source was handed the query, such a run said
// "external_provider_request | provider: brave" on its timeline, held the query in `queries_sent`
// ("Queries sent:" in its note) and named Brave in research --json's providers_asked, with 0 requests made.
import { describe, expect, it } from "vitest";
import { researchResultJson } from "../../../src/cli/json/research-result-json";
import { renderTraceNote } from "../../../src/notes/trace-note";
import { webOutcomeOfTrace, webOutcomeSentence } from "../../../src/notes/web-outcome";
import { maySkip } from "../../../src/ports";
import { dispatchSearch } from "../../../src/websearch/dispatcher";
import { createSearchSession } from "../../../src/websearch/search-providers";
import { fakeClock } from "../../support/fake-clock";
import { jsonResponse, scriptedHttp } from "../../websearch/helpers";
import { recordingSecrets } from "../../support/fake-secrets";
import { FRESHNESS_QUESTION, sampleVaultHarness } from "../../support/research-harness";

const requestEvents = (result: { trace: { events: { type: string; data?: Record<string, unknown> }[] } }) =>
  result.trace.events.filter((e) => e.type === "external_provider_request").map((e) => e.data);

describe("a query is recorded as sent when a source sends it", () => {
  it("Brave with no key sends nothing, and the trace, its note and providers_asked say nothing left", async () => {
    const h = await sampleVaultHarness({ secrets: recordingSecrets({}) });
    const result = await h.run({ question: "why automerge", mode: "always", providers: ["brave"] });

    expect(h.http.requests).toEqual([]);
    expect(result.trace.queries_sent).toEqual([]);
    expect(requestEvents(result)).toEqual([]);
    expect(researchResultJson(result, {}, undefined).providers_asked).toEqual([]);
    // Its failure stays a failure of its own, in the words every surface uses; never "sent".
    expect(result.trace.errors).toEqual([expect.objectContaining({ stage: "external_retrieval", kind: "auth", provider: "brave" })]);
    // The recall note is made from the run's state, the trace note's outcome from its trace: one sentence.
    expect(result.pack.coverage.recall_note).toContain("Web search failed: Brave has no API key set.");
    const note = renderTraceNote(result.trace);
    expect(note).toContain("Web search failed: Brave has no API key set.");
    expect(note).not.toContain("Queries sent:");
    expect(note).not.toMatch(/\| external_provider_request \|/);
  });

  it("a question blank to a search engine (a non-breaking space) sends nothing and records no query as sent", async () => {
    const h = await sampleVaultHarness();
    const result = await h.run({ question: "\u00a0", mode: "always", providers: ["brave"] });

    expect(result.trace.events.find((e) => e.type === "external_query_built")?.data?.query).toBe("");
    expect(h.http.requests).toEqual([]);
    expect(result.trace.queries_sent).toEqual([]);
    expect(requestEvents(result)).toEqual([]);
    expect(researchResultJson(result, {}, undefined).providers_asked).toEqual([]);
  });

  it("of two sources, only the one that sent the query is named; the one with no key is a failure", async () => {
    const h = await sampleVaultHarness({ secrets: recordingSecrets({ brave: "BSA-sent-check-0123456789" }) });
    const result = await h.run({ question: "why automerge", mode: "always", providers: ["exa", "brave"] });

    expect(h.http.requests.map((r) => new URL(r.url).host)).toEqual(["api.search.brave.com"]);
    expect(result.trace.queries_sent).toEqual(["why automerge"]);
    expect(requestEvents(result)).toEqual([{ provider: "brave", query: "why automerge", count: 5, freshness: "any" }]);
    expect(researchResultJson(result, {}, undefined).providers_asked).toEqual(["brave"]);
    expect(result.trace.errors.map((e) => `${e.provider}: ${e.kind}`)).toEqual(["exa: auth"]);
  });

  it("every query that left is recorded once, each source once per query", async () => {
    // The freshness question sends two queries to Brave.
    const h = await sampleVaultHarness();
    const result = await h.run({ question: FRESHNESS_QUESTION, mode: "always", providers: ["brave"] });
    const sent = h.http.requests.filter((r) => new URL(r.url).host === "api.search.brave.com");

    expect(sent).toHaveLength(2);
    expect(result.trace.queries_sent).toEqual(result.pack.query_plan.provider_queries);
    expect(requestEvents(result).map((d) => `${String(d?.provider)}: ${String(d?.query)}`)).toEqual(result.pack.query_plan.provider_queries.map((q) => `brave: ${q}`));
  });

  it("an answer from the session's cache is a query the session sent: recorded, marked cached", async () => {
    const h = await sampleVaultHarness();
    const searchSession = createSearchSession({ clock: h.clock });
    await h.run({ question: "why automerge", mode: "always", providers: ["brave"] }, { searchSession });
    const before = h.http.requests.length;
    const again = await h.run({ question: "why automerge", mode: "always", providers: ["brave"] }, { searchSession });

    expect(h.http.requests.length).toBe(before);
    expect(again.trace.queries_sent).toEqual(["why automerge"]);
    expect(requestEvents(again)).toEqual([{ provider: "brave", query: "why automerge", count: 5, freshness: "any", cached: true }]);
  });

  it("a stop while the only source waits its rate turn sends nothing; trace note and recall note say the same of it", async () => {
    const controller = new AbortController();
    const clock = fakeClock();
    let stopAtTheWait = false;
    const sleep = clock.sleep.bind(clock);
    clock.sleep = (ms, signal, kind) => {
      if (!stopAtTheWait || !maySkip(signal, kind) || ms === 0) return sleep(ms, signal, kind);
      controller.abort();
      return new Promise(() => undefined);
    };
    const h = await sampleVaultHarness({ clock });
    const searchSession = createSearchSession({ clock });
    // The session's first run takes Brave's turn; the next run's one query must wait a second for it.
    await h.run({ question: "why automerge", mode: "always", providers: ["brave"] }, { searchSession });
    const before = h.http.requests.length;
    stopAtTheWait = true;
    const stopped = await h.run({ question: "why did we choose automerge over yjs", mode: "always", providers: ["brave"], writeTrace: false }, { searchSession, signal: controller.signal });

    expect(stopped.stop_reason).toBe("cancelled");
    expect(h.http.requests.length).toBe(before);
    expect(stopped.trace.queries_sent).toEqual([]);
    expect(requestEvents(stopped)).toEqual([]);
    // The search had started: neither says the web search never started, and both say one thing.
    const fromTrace = webOutcomeSentence(webOutcomeOfTrace(stopped.trace));
    expect(fromTrace).toBe("Web search stopped before Brave answered.");
    expect(stopped.pack.coverage.recall_note).toContain(fromTrace);
  });
});

describe("the trace and its note of a source that refused the query unsent, and of one that refused the key", () => {
  const timelineRow = (note: string, type: string) => note.split("\n").find((l) => l.includes(`| ${type} |`));

  it("Brave with no key: the web was still asked for, and the note says why", async () => {
    const h = await sampleVaultHarness({ secrets: recordingSecrets({}) });
    const note = renderTraceNote((await h.run({ question: "why automerge", mode: "always", providers: ["brave"] })).trace);

    // Shown only when a query had left: this run lost why it had gone to the web at all.
    expect(note).toContain("Web search failed: Brave has no API key set. How each failed is under Warnings below.\n\nWhy the web was asked: External search is set to always for this run.");
  });

  it("Brave with no key: its timeline row says it was sent nothing, and its note's outcome says no key is set", async () => {
    const h = await sampleVaultHarness({ secrets: recordingSecrets({}) });
    const result = await h.run({ question: "why automerge", mode: "always", providers: ["brave"] });

    expect(h.http.requests).toEqual([]);
    const failure = result.trace.events.find((e) => e.type === "external_provider_response")?.data;
    expect(failure).toMatchObject({ provider: "brave", sent: false, error: "auth" });
    const note = renderTraceNote(result.trace);
    // It read "external_provider_response | provider: brave; error: auth": a response from a source sent nothing.
    expect(timelineRow(note, "external_provider_response")).toContain("| provider: brave; sent: false; error: auth; message: No Brave API key is set.");
    expect(webOutcomeSentence(webOutcomeOfTrace(result.trace))).toBe("Web search failed: Brave has no API key set.");
    const outside = note.slice(note.indexOf("## Outside vault"), note.indexOf("## Warnings"));
    expect(outside).toContain("Web search failed: Brave has no API key set.");
    expect(outside).not.toContain("could not be used without a valid key");
  });

  it("Brave refusing the key (401): sent, and said as a key refused, not as none set", async () => {
    const h = await sampleVaultHarness({ secrets: recordingSecrets({ brave: "BSA-refused-key-0123456789" }) });
    const refusing = scriptedHttp(() => jsonResponse({ type: "ErrorResponse", error: { code: "SUBSCRIPTION_TOKEN_INVALID", status: 401 } }, 401));
    const result = await h.run({ question: "why automerge", mode: "always", providers: ["brave"] }, { http: refusing });

    expect(refusing.requests.length).toBeGreaterThan(0);
    expect(result.trace.events.find((e) => e.type === "external_provider_response")?.data).toMatchObject({ provider: "brave", sent: true, error: "auth" });
    const note = renderTraceNote(result.trace);
    expect(note).toContain("Web search failed: Brave refused the API key.");
    expect(timelineRow(note, "external_provider_response")).toContain("| provider: brave; sent: true; error: auth;");
    expect(note).toContain("Why the web was asked: External search is set to always for this run.");
  });
});

describe("the dispatcher's report says which sources sent the query", () => {
  it("sent for a source whose call left; not for one refused unsent, nor for an answer from the cache", async () => {
    const h = await sampleVaultHarness({ secrets: recordingSecrets({ brave: "BSA-sent-check-0123456789" }) });
    const session = createSearchSession({ clock: h.clock });
    const context = { http: h.http, secrets: h.secrets, clock: h.clock, settings: h.settings };
    const request = { query: "why automerge", count: 5, timeoutMs: 8000 };

    const first = await dispatchSearch(["brave", "exa"], request, context, session, { route: false });
    expect(first.sources.map((s) => `${s.source}: ${s.status}, ${"sent" in s ? s.sent : "-"}`)).toEqual(["brave: answered, true", "exa: failed, false"]);
    const cached = await dispatchSearch(["brave"], request, context, session, { route: false });
    expect(cached.sources).toEqual([expect.objectContaining({ source: "brave", status: "answered", cached: true, sent: false })]);
  });
});
