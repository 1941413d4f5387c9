// The one wording of a run's web search outcome: each case a row of facts, its outcome, its sentence
// and its timeline summary. Every surface (trace note, recall note, panel, CLI) shows these words.
import { describe, expect, it } from "vitest";
import { webOutcomeOf, webOutcomeOfTrace, webOutcomeSaysMore, webOutcomeSentence, webOutcomeSummary, type WebStageFacts } from "../../src/notes/web-outcome";
import type { ResearchTrace } from "../../src/evidence/trace-types";
import { outsideRow, pack } from "../support/pack-fixtures";

const asked: WebStageFacts = { mode: "always", searched: true, noSource: false, notNeeded: false, rowProviders: [], answered: [], failures: [], cutOff: [], stopped: false };
const facts = (f: Partial<WebStageFacts>): WebStageFacts => ({ ...asked, ...f });

const cases: { name: string; facts: WebStageFacts; sentence: string; summary: string | undefined; saysMore: boolean }[] = [
  { name: "web not allowed (mode never)", facts: facts({ mode: "never", searched: false }), sentence: "Nothing left the device: web search is off for this run.", summary: undefined, saysMore: true },
  {
    name: "allowed but not needed: the vault had enough",
    facts: facts({ mode: "on-weak", searched: false, notNeeded: true }),
    sentence: "Nothing left the device: the vault had enough on this, so the web was not searched.",
    summary: "not needed",
    saysMore: true,
  },
  {
    name: "allowed, but no source is turned on",
    facts: facts({ searched: false, noSource: true }),
    sentence: "Nothing left the device: web search was allowed, but no source is turned on.",
    summary: "no source turned on",
    saysMore: true,
  },
  {
    name: "allowed and wanted, but the run stopped before a query left",
    facts: facts({ searched: false }),
    sentence: "Nothing left the device: the web search never started (the run stopped or ran out of time first).",
    summary: "not reached",
    saysMore: true,
  },
  { name: "every source failed: timeout", facts: facts({ failures: [{ provider: "brave", kind: "timeout" }] }), sentence: "Web search failed: Brave timed out.", summary: "Brave failed", saysMore: true },
  { name: "every source failed: 429 given up", facts: facts({ failures: [{ provider: "exa", kind: "rate_limited" }] }), sentence: "Web search failed: Exa was rate limited.", summary: "Exa failed", saysMore: true },
  {
    name: "every source failed: 401, a key refused (its call left)",
    facts: facts({ failures: [{ provider: "brave", kind: "auth", sent: true }] }),
    sentence: "Web search failed: Brave refused the API key.",
    summary: "Brave failed",
    saysMore: true,
  },
  {
    name: "every source failed: no key set (refused before anything was sent)",
    facts: facts({ failures: [{ provider: "tavily", kind: "auth", sent: false }] }),
    sentence: "Web search failed: Tavily has no API key set.",
    summary: "Tavily failed",
    saysMore: true,
  },
  {
    name: "a key refused, from sources whose credentials are no API key",
    facts: facts({ failures: [{ provider: "github", kind: "auth", sent: true }, { provider: "searxng", kind: "auth", sent: true }] }),
    sentence: "Web search failed: GitHub refused the token; SearXNG asked for a valid user name and password.",
    summary: "GitHub failed; SearXNG failed",
    saysMore: true,
  },
  {
    name: "every source failed of auth, not known whether anything was sent (a trace from before it was recorded)",
    facts: facts({ failures: [{ provider: "brave", kind: "auth" }] }),
    sentence: "Web search failed: Brave could not be used without a valid key.",
    summary: "Brave failed",
    saysMore: true,
  },
  { name: "every source failed: network", facts: facts({ failures: [{ provider: "wikipedia", kind: "network" }] }), sentence: "Web search failed: Wikipedia could not be reached.", summary: "Wikipedia failed", saysMore: true },
  {
    name: "every source failed, each its own way, one of them twice",
    facts: facts({ failures: [{ provider: "hackernews", kind: "http" }, { provider: "wikipedia", kind: "parse" }, { provider: "hackernews", kind: "timeout" }, { provider: "hackernews", kind: "http" }] }),
    sentence: "Web search failed: Hacker News answered with a server error and timed out; Wikipedia sent an answer that could not be read.",
    summary: "Hacker News failed; Wikipedia failed",
    saysMore: true,
  },
  {
    name: "some failed, and others found results",
    facts: facts({ rowProviders: ["brave", "brave", "brave"], answered: ["brave"], failures: [{ provider: "exa", kind: "timeout" }] }),
    sentence: "Web search added 3 outside rows from Brave; Exa timed out.",
    summary: "Brave, 3 results; Exa failed",
    saysMore: true,
  },
  {
    name: "some failed, and the others answered with nothing to add",
    facts: facts({ answered: ["wikipedia"], failures: [{ provider: "hackernews", kind: "http" }] }),
    sentence: "Web search added no outside rows: Wikipedia answered with nothing to add; Hacker News answered with a server error.",
    summary: "Wikipedia, 0 results; Hacker News failed",
    saysMore: true,
  },
  {
    name: "a source that answered one query and failed the other is no source that failed",
    facts: facts({ rowProviders: ["wikipedia"], answered: ["wikipedia"], failures: [{ provider: "wikipedia", kind: "timeout" }] }),
    sentence: "Web search added 1 outside row from Wikipedia; some requests to Wikipedia failed.",
    summary: "Wikipedia, 1 result",
    saysMore: true,
  },
  {
    name: "all answered, and found nothing",
    facts: facts({ answered: ["brave", "exa"] }),
    sentence: "Web search added no outside rows: Brave and Exa answered with nothing to add.",
    summary: "Brave, 0 results; Exa, 0 results",
    saysMore: true,
  },
  {
    name: "all answered with results: the counter says it all",
    facts: facts({ rowProviders: ["brave", "exa", "brave"], answered: ["brave", "exa"] }),
    sentence: "Web search added 3 outside rows from Brave and Exa.",
    summary: "Brave, 2 results; Exa, 1 result",
    saysMore: false,
  },
  {
    name: "stopped by the user mid-stage, one source already answered",
    facts: facts({ rowProviders: ["wikipedia", "wikipedia"], answered: ["wikipedia"], cutOff: ["arxiv", "wikipedia"], stopped: true }),
    sentence: "Web search stopped before arXiv answered; it added 2 outside rows from Wikipedia.",
    summary: "Wikipedia, 2 results; arXiv stopped",
    saysMore: true,
  },
  {
    name: "stopped by the user mid-stage, before any source answered, one having failed",
    facts: facts({ failures: [{ provider: "hackernews", kind: "network" }], cutOff: ["wikipedia", "hackernews"], stopped: true }),
    sentence: "Web search stopped before Wikipedia answered; Hacker News could not be reached.",
    summary: "Hacker News failed; Wikipedia stopped",
    saysMore: true,
  },
  {
    name: "stopped by the user mid-stage, the sources it cut off not known (a trace that names none)",
    facts: facts({ stopped: true }),
    sentence: "Web search stopped before any source answered.",
    summary: "stopped",
    saysMore: true,
  },
  {
    name: "asked, and neither answered nor failed, with no stop: said failed, never found nothing",
    facts: facts({}),
    sentence: "Web search failed: no source answered.",
    summary: "no answer",
    saysMore: true,
  },
  {
    name: "stopped after the sources all answered: the search itself was whole",
    facts: facts({ answered: ["brave"], cutOff: ["brave"], stopped: true }),
    sentence: "Web search added no outside rows: Brave answered with nothing to add.",
    summary: "Brave, 0 results",
    saysMore: true,
  },
  // What a failure was beyond its kind: none of these sent a 5xx, and each read "answered with a server error".
  {
    name: "a server that only redirected, arXiv refusing the query, SearXNG whose engines failed",
    facts: facts({
      failures: [
        { provider: "wikipedia", kind: "http", reason: "redirects_only" },
        { provider: "arxiv", kind: "http", reason: "refused" },
        { provider: "searxng", kind: "http", reason: "engines_failed" },
        { provider: "pubmed", kind: "http", reason: "search_failed" },
      ],
    }),
    sentence:
      "Web search failed: Wikipedia answered only with redirects; arXiv refused the search; SearXNG found nothing, as its search engines did not answer; PubMed could not run the search.",
    summary: "Wikipedia failed; arXiv failed; SearXNG failed; PubMed failed",
    saysMore: true,
  },
  {
    name: "a login page or bot check in SearXNG's stead, and a status that is neither answer nor error",
    facts: facts({ failures: [{ provider: "searxng", kind: "http", reason: "blocked" }, { provider: "hackernews", kind: "http", reason: "unexpected_status" }] }),
    sentence: "Web search failed: SearXNG answered with a login page or a bot check; Hacker News answered with an unexpected status.",
    summary: "SearXNG failed; Hacker News failed",
    saysMore: true,
  },
  {
    name: "a replayed source with no recording, which tried no network",
    facts: facts({ failures: [{ provider: "wikipedia", kind: "network", reason: "no_recording" }] }),
    sentence: "Web search failed: Wikipedia had no recorded answer to replay.",
    summary: "Wikipedia failed",
    saysMore: true,
  },
  {
    name: "one source failing two ways of one kind says both",
    facts: facts({ failures: [{ provider: "searxng", kind: "http", reason: "server_error" }, { provider: "searxng", kind: "http", reason: "engines_failed" }] }),
    sentence: "Web search failed: SearXNG answered with a server error and found nothing, as its search engines did not answer.",
    summary: "SearXNG failed",
    saysMore: true,
  },
];

describe("webOutcomeSentence and webOutcomeSummary", () => {
  for (const c of cases) {
    it(c.name, () => {
      const outcome = webOutcomeOf(c.facts);
      expect(webOutcomeSentence(outcome)).toBe(c.sentence);
      expect(webOutcomeSummary(outcome)).toBe(c.summary);
      expect(webOutcomeSaysMore(outcome)).toBe(c.saysMore);
    });
  }
});

describe("webOutcomeOfTrace", () => {
  function traceOf(t: Partial<ResearchTrace>): ResearchTrace {
    return { schema: "research_trace.v1", run_id: "r", started_at: "", question: "q", mode: "always", providers: ["brave", "exa"], freshness: "any", queries_sent: [], stop_reason: "enough_evidence", timings_ms: {}, events: [], errors: [], pack: pack("q", []), ...t };
  }

  it("reads answers, failures and the sources a stop cut off from the trace", () => {
    const p = pack("q", [], [outsideRow("brave", "https://a.example/1", "A", "a")]);
    p.coverage.external_freshness = [{ provider: "brave", requested: "any" }];
    const trace = traceOf({
      queries_sent: ["q"],
      pack: p,
      errors: [{ stage: "external_retrieval", kind: "network", message: "down", provider: "tavily" }],
      events: [{ type: "external_provider_response", at: 5, data: { provider: "exa", stopped: "cancelled" } }],
    });
    expect(webOutcomeSentence(webOutcomeOfTrace(trace))).toBe("Web search stopped before Exa answered; it added 1 outside row from Brave; Tavily could not be reached.");
  });

  it("tells a key not set from a key refused by the failure's timeline event (`sent`), and says either when it has none", () => {
    const failed = (sent?: boolean) => ({ type: "external_provider_response", at: 5, data: { provider: "brave", ...(sent === undefined ? {} : { sent }), error: "auth", message: "m" } });
    const errors = [{ stage: "external_retrieval" as const, kind: "auth", message: "m", provider: "brave" }];
    const sentence = (sent?: boolean) => webOutcomeSentence(webOutcomeOfTrace(traceOf({ errors, events: [failed(sent)] })));
    expect(sentence(false)).toBe("Web search failed: Brave has no API key set.");
    expect(sentence(true)).toBe("Web search failed: Brave refused the API key.");
    expect(sentence()).toBe("Web search failed: Brave could not be used without a valid key.");
  });

  it("says what an http failure was from its timeline event's reason, and by its kind alone when it has none", () => {
    const failed = (reason?: string) => ({ type: "external_provider_response", at: 5, data: { provider: "searxng", sent: true, error: "http", ...(reason === undefined ? {} : { reason }), message: "m" } });
    const errors = [{ stage: "external_retrieval" as const, kind: "http", message: "m", provider: "searxng" }];
    const sentence = (reason?: string) => webOutcomeSentence(webOutcomeOfTrace(traceOf({ errors, events: [failed(reason)] })));
    expect(sentence("redirects_only")).toBe("Web search failed: SearXNG answered only with redirects.");
    expect(sentence("engines_failed")).toBe("Web search failed: SearXNG found nothing, as its search engines did not answer.");
    expect(sentence("server_error")).toBe("Web search failed: SearXNG answered with a server error.");
    // A trace kept before reasons were recorded.
    expect(sentence()).toBe("Web search failed: SearXNG answered with a server error.");
  });

  it("tells a policy that found the vault enough from no source turned on and from a run stopped first", () => {
    const skipped = { type: "external_search_skipped", at: 3, data: { reason: "The vault has enough evidence; the web was not searched.", mode: "on-weak" } };
    expect(webOutcomeOfTrace(traceOf({ mode: "on-weak", events: [skipped] })).kind).toBe("not_needed");
    const noSource = pack("q", []);
    noSource.warnings.push({ kind: "no_provider", message: "External search was allowed but no provider is enabled in settings." });
    expect(webOutcomeOfTrace(traceOf({ events: [{ ...skipped, data: { reason: "no provider is enabled" } }], pack: noSource })).kind).toBe("no_source");
    expect(webOutcomeOfTrace(traceOf({ stop_reason: "cancelled" })).kind).toBe("not_reached");
    expect(webOutcomeOfTrace(traceOf({ mode: "never" })).kind).toBe("not_allowed");
  });
});
