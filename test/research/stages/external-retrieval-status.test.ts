// How the web search stage reports itself to the panel: a failed or partly failed search is never
// shown as done, each provider has its own line, a rate wait is said as it starts and as it ends, and
// a cancel is not reported as a provider failure, nor loses what the sources that answered found,
// nor hides a failure that came before it.
import { describe, expect, it } from "vitest";
import path from "node:path";
import { errorExchange, REPO_ROOT, replayFile, replayFolder } from "../../support/recording-http";
import { FRESHNESS_QUESTION, sampleVaultHarness } from "../../support/research-harness";
import { fakeClock } from "../../support/fake-clock";
import { stringMatching } from "../../support/typed-matchers";
import { researchResultJson, researchResultSchema } from "../../../src/cli/json/research-result-json";
import { HttpFailure, maySkip } from "../../../src/ports";
import { sourceFailedHow, webOutcomeOfTrace, webOutcomeSentence } from "../../../src/notes/web-outcome";

const BRAVE_LLM_CONTEXT = "https://api.search.brave.com/res/v1/llm/context";
const rateLimited = () => [errorExchange("GET", BRAVE_LLM_CONTEXT, 429, JSON.stringify({ error: { code: "RATE_LIMITED" } }), { "content-type": "application/json" })];

describe("external retrieval status", () => {
  it("every provider failing ends the stage as failed, with the reason in words", async () => {
    const h = await sampleVaultHarness({ exchanges: rateLimited() });
    await h.run({ question: FRESHNESS_QUESTION, mode: "always", providers: ["brave"] });
    const stage = h.progress.filter((e) => e.stage === "external_retrieval" && !e.provider);
    expect(stage.at(-1)).toMatchObject({ status: "failed", detail: "No web results: Brave was rate limited" });
    expect(h.progress.filter((e) => e.provider === "brave").at(-1)).toMatchObject({ status: "failed", detail: "was rate limited" });
  });

  // A second table of failure words here said "Brave: server error" and "no key, or the key was
  // refused" on the progress lines, where the trace note and the recall note of the same run said
  // "Brave answered with a server error" and "could not be used without a valid key".
  it("says how each source failed in the words of the run's outcome sentence, for every kind", async () => {
    const keyRefused = () => [errorExchange("GET", BRAVE_LLM_CONTEXT, 401, JSON.stringify({ error: { code: "SUBSCRIPTION_TOKEN_INVALID" } }), { "content-type": "application/json" })];
    const serverError = () => [errorExchange("GET", BRAVE_LLM_CONTEXT, 502, "<html><body>Bad Gateway</body></html>")];
    const unreadable = () => [errorExchange("GET", BRAVE_LLM_CONTEXT, 200, "<html><body>not json</body></html>", { "content-type": "text/html" })];
    for (const [exchanges, kind] of [[keyRefused(), "auth"], [rateLimited(), "rate_limited"], [serverError(), "http"], [unreadable(), "parse"]] as const) {
      const h = await sampleVaultHarness({ exchanges: [...exchanges] });
      const result = await h.run({ question: FRESHNESS_QUESTION, mode: "always", providers: ["brave"], writeTrace: false });
      expect(result.trace.errors.map((e) => e.kind)).toContain(kind);
      const line = h.progress.filter((e) => e.provider === "brave" && e.status === "failed").at(-1)?.detail;
      // Each of these calls left (Brave answered it), which is what tells a key refused from none set.
      expect(line).toBe(sourceFailedHow(kind, { provider: "brave", sent: true }));
      if (kind === "auth") expect(line).toBe("refused the API key");
      const stage = h.progress.filter((e) => e.stage === "external_retrieval" && !e.provider).at(-1)?.detail;
      expect(stage).toBe(`No web results: Brave ${line}`);
      // The recall note (and the trace note, the panel, the CLI text: notes/web-outcome.ts) say the same words.
      expect(result.pack.coverage.recall_note).toContain(`Web search failed: Brave ${line}.`);
    }
  });

  it("one of two providers failing ends the stage as partial; the other has its count", async () => {
    const h = await sampleVaultHarness({ exchanges: [...replayFolder(), ...replayFile("exa/server-error-500-html.json")] });
    await h.run({ question: FRESHNESS_QUESTION, mode: "always", providers: ["brave", "exa"] });
    const stage = h.progress.filter((e) => e.stage === "external_retrieval" && !e.provider);
    expect(stage.at(-1)?.status).toBe("partial");
    expect(h.progress.filter((e) => e.provider === "exa").at(-1)).toMatchObject({ status: "failed", detail: "answered with a server error" });
    expect(h.progress.filter((e) => e.provider === "brave").at(-1)).toMatchObject({ status: "done", detail: stringMatching(/^\d+ results?$/) });
  });

  it("a cancel during the search leaves no provider error behind", async () => {
    const controller = new AbortController();
    const h = await sampleVaultHarness({ httpOptions: { beforeAnswer: () => controller.abort() } });
    const result = await h.run({ question: FRESHNESS_QUESTION, mode: "always", providers: ["brave"] }, { signal: controller.signal });
    expect(result.stop_reason).toBe("cancelled");
    expect(result.trace.errors.filter((e) => e.stage === "external_retrieval")).toEqual([]);
    // And, trace notes being on, why there is none: Stop writes nothing into the vault.
    expect(result.pack.warnings.map((w) => w.kind)).toEqual(["cancelled", "trace_not_written"]);
  });

  it("a source that must wait its turn says so as it waits, and the trace keeps the wait beside its answer", async () => {
    // The freshness question sends two queries; Brave allows one request a second.
    const h = await sampleVaultHarness();
    const result = await h.run({ question: FRESHNESS_QUESTION, mode: "always", providers: ["brave"] });
    const brave = h.progress.filter((e) => e.provider === "brave").map((e) => `${e.status}: ${e.detail}`);
    expect(brave).toEqual([
      "started: Asking Brave",
      stringMatching(/^done: /),
      "started: Asking Brave",
      "started: Waiting 1 s for Brave's rate limit",
      // The wait's end is said as well: from here on, any wait is Brave's answer's, not its rate limit's.
      "started: Waiting for Brave's answer (after 1 s for its rate limit)",
      stringMatching(/^done: /),
    ]);
    const answers = result.trace.events.filter((e) => e.type === "external_provider_response");
    expect(answers.map((e) => e.data?.rate_wait_ms)).toEqual([undefined, 1000]);
    expect(answers[1].data?.rate_wait).toBe("pacing");
  });

  it("a stop during a rate wait ends the wait at once, says the source stopped while waiting, and the trace keeps the part waited", async () => {
    const controller = new AbortController();
    const clock = fakeClock();
    // Brave's second query must wait its turn; this wait never ends by itself, and Stop is pressed during it.
    const sleep = clock.sleep.bind(clock);
    clock.sleep = (ms, signal, kind) => {
      if (!maySkip(signal, kind) || ms === 0) return sleep(ms, signal, kind);
      clock.advance(250);
      controller.abort();
      return new Promise(() => undefined);
    };
    const h = await sampleVaultHarness({ clock });
    const result = await h.run({ question: FRESHNESS_QUESTION, mode: "always", providers: ["brave"] }, { signal: controller.signal });
    expect(result.stop_reason).toBe("cancelled");
    const brave = h.progress.filter((e) => e.provider === "brave").map((e) => `${e.status}: ${e.detail}`);
    expect(brave.slice(-2)).toEqual(["started: Waiting 1 s for Brave's rate limit", "stopped: stopped while it waited its rate turn"]);
    const answers = result.trace.events.filter((e) => e.type === "external_provider_response").map((e) => e.data);
    // Cut off before its call left: its row says it was sent nothing.
    expect(answers.at(-1)).toEqual({ provider: "brave", sent: false, stopped: "cancelled", rate_wait_ms: 250, rate_wait: "pacing", rate_wait_cut: "cancelled" });
    // The stop is no fault of Brave's.
    expect(result.trace.errors).toEqual([]);
  });

  it("a source given up on by its own deadline while it waited its rate turn timed out: the trace says so, not that it was stopped", async () => {
    const clock = fakeClock();
    // Brave's second query waits its turn; the wait outlasts Brave's 8 s, and no one presses Stop.
    const sleep = clock.sleep.bind(clock);
    clock.sleep = (ms, signal, kind) => {
      if (!maySkip(signal, kind) || ms === 0) return sleep(ms, signal, kind);
      clock.advance(8000);
      return new Promise(() => undefined);
    };
    const h = await sampleVaultHarness({ clock });
    const result = await h.run({ question: FRESHNESS_QUESTION, mode: "always", providers: ["brave"] });
    expect(h.progress.filter((e) => e.provider === "brave").at(-1)).toMatchObject({ status: "failed", detail: "timed out" });
    const answers = result.trace.events.filter((e) => e.type === "external_provider_response").map((e) => e.data);
    expect(answers.at(-1)).toMatchObject({ provider: "brave", error: "timeout", rate_wait_ms: 8000, rate_wait: "pacing" });
    expect(answers.at(-1)).not.toHaveProperty("rate_wait_cut");
  });

  it("a stop while one source is slow to answer says and traces the one that answered, and says the slow one stopped", async () => {
    const { h, result } = await stoppedWhileArxivIsSlow();
    expect(result.stop_reason).toBe("cancelled");
    const lines = h.progress.filter((e) => e.provider).map((e) => `${e.provider} ${e.status}: ${e.detail}`);
    expect(lines).toEqual(["wikipedia started: Asking Wikipedia", "arxiv started: Asking arXiv", "wikipedia done: 3 results", "arxiv stopped: stopped before it answered"]);
    const answers = result.trace.events.filter((e) => e.type === "external_provider_response").map((e) => e.data);
    // arXiv's call had left when the stop came: sent, and stopped.
    expect(answers).toEqual([expect.objectContaining({ provider: "wikipedia", results: 3 }), { provider: "arxiv", sent: true, stopped: "cancelled" }]);
    expect(result.trace.errors).toEqual([]);
  });

  it("a stop while one source is slow to answer keeps what the others found, labelled outside vault: the stopped run's pack so far", async () => {
    const { result } = await stoppedWhileArxivIsSlow();
    // The panel says "What was found before stopping is below"; Wikipedia's results had come back.
    expect(result.pack.external_evidence.map((r) => r.label)).toEqual(Array(3).fill("Outside vault · Wikipedia · ephemeral"));
    expect(result.pack.evidence.every((r) => r.kind === "note")).toBe(true);
    expect(result.pack.coverage.external_by_provider).toEqual([{ key: "wikipedia", count: 3 }]);
  });

  it("a source that failed before a stop is still a failure of the stopped run: a warning in its pack, named in its recall note", async () => {
    // Exa fails the first query (HTTP 500) and the second; Stop is pressed while Brave answers the second.
    const controller = new AbortController();
    let braveAsked = 0;
    const h = await sampleVaultHarness({
      exchanges: [...replayFolder(), ...replayFile("exa/server-error-500-html.json")],
      httpOptions: {
        beforeAnswer: async (req) => {
          if (!req.url.includes("brave") || ++braveAsked < 2) return;
          setTimeout(() => controller.abort(), 0);
          await new Promise((_, reject) => req.signal?.addEventListener("abort", () => reject(new Error("aborted"))));
        },
      },
    });
    const result = await h.run({ question: FRESHNESS_QUESTION, mode: "always", providers: ["brave", "exa"] }, { signal: controller.signal });
    expect(result.stop_reason).toBe("cancelled");
    // The panel said so on Exa's line, twice; the pack said nothing, and the trace note's "see Warnings below" pointed at none.
    expect(h.progress.filter((e) => e.provider === "exa" && e.status === "failed").map((e) => e.detail)).toEqual(["answered with a server error", "answered with a server error"]);
    expect(result.pack.warnings.map((w) => w.kind)).toEqual(["provider_http", "cancelled", "trace_not_written"]);
    expect(result.pack.coverage.recall_note).toMatch(/Web search added 4 outside rows from Brave; Exa answered with a server error\.$/);
    // Brave's first answer is kept, labelled, and the stopped run's JSON holds to its schema.
    expect(result.pack.external_evidence.map((r) => r.label)).toEqual(Array(4).fill("Outside vault · Brave · ephemeral"));
    const json = researchResultSchema.safeParse(JSON.parse(JSON.stringify(researchResultJson(result, {}, undefined))));
    expect(json.success ? [] : json.error.issues).toEqual([]);
  });

  it("a source that could not reach its server before a stop is said to have failed, not to have been stopped", async () => {
    const controller = new AbortController();
    const h = await sampleVaultHarness({
      httpOptions: {
        beforeAnswer: async (req) => {
          if (req.url.includes("exa")) throw new HttpFailure("network", "getaddrinfo ENOTFOUND api.exa.ai");
          setTimeout(() => controller.abort(), 0);
          await new Promise((_, reject) => req.signal?.addEventListener("abort", () => reject(new Error("aborted"))));
        },
      },
    });
    // One query: Exa's lookup fails at once, Brave is slow and Stop is pressed while it is awaited.
    const result = await h.run({ question: "What is Automerge?", mode: "always", providers: ["brave", "exa"] }, { signal: controller.signal });
    expect(result.stop_reason).toBe("cancelled");
    const lines = h.progress.filter((e) => e.provider && e.status !== "started").map((e) => `${e.provider} ${e.status}: ${e.detail}`);
    expect(lines).toEqual(["brave stopped: stopped before it answered", "exa failed: could not be reached"]);
    expect(result.trace.errors).toEqual([{ stage: "external_retrieval", kind: "network", message: "Could not reach Exa: getaddrinfo ENOTFOUND api.exa.ai", provider: "exa" }]);
    expect(result.pack.warnings.map((w) => w.kind)).toEqual(["provider_network", "cancelled", "trace_not_written"]);
    // Brave was stopped, not failed: "Web search failed: Exa did not answer" left it out.
    expect(result.pack.coverage.recall_note).toMatch(/ Web search stopped before Brave answered; Exa could not be reached\.$/);
  });

  it("a stop keeps the warning of what the dispatcher bounded in the query it stopped, as a finished search does", async () => {
    // Sixty words: the query that left was cut to fifty, and Wikipedia answered it before arXiv was stopped.
    const long = `What is the history of CRDT research? ${Array.from({ length: 60 }, (_, i) => `w${i}`).join(" ")}`;
    const { result } = await stoppedWhileArxivIsSlow(long);
    expect(result.pack.external_evidence).toHaveLength(3);
    expect(result.pack.warnings.filter((w) => w.kind === "search_clamped").map((w) => w.message)).toEqual([stringMatching(/^query shortened to 50 words/)]);
  });

  it("a wait the provider asked for (a 429's Retry-After) is said as the provider's", async () => {
    const retryIn3s = errorExchange("GET", BRAVE_LLM_CONTEXT, 429, JSON.stringify({ error: { code: "RATE_LIMITED" } }), { "content-type": "application/json", "retry-after": "3" });
    const h = await sampleVaultHarness({ exchanges: [retryIn3s] });
    const result = await h.run({ question: FRESHNESS_QUESTION, mode: "always", providers: ["brave"] });
    expect(h.progress.filter((e) => e.provider === "brave").map((e) => e.detail)).toContain("Waiting 3 s: Brave asked us to slow down");
    const failures = result.trace.events.filter((e) => e.type === "external_provider_response");
    expect(failures.map((e) => e.data?.rate_wait)).toEqual([undefined, "provider_asked"]);
  });

  it("the stage's opening line names the sources asked, not every one enabled, and says which the question does not fit", async () => {
    const h = await sampleVaultHarness({ exchanges: replayFolder(path.join(REPO_ROOT, "fixtures/replay/free-sources-demo")) });
    const free = ["wikipedia", "hackernews", "arxiv", "github", "stackexchange"] as const;
    await h.run({ question: "TypeError: cannot read properties of undefined in yjs observeDeep", mode: "always", providers: [...free] });
    const opening = h.progress.find((e) => e.stage === "external_retrieval" && e.status === "started" && !e.provider);
    expect(opening?.detail).toBe("Searching the web with GitHub and Stack Exchange (not asked, as the question does not fit them: Wikipedia, Hacker News and arXiv)");
    expect(new Set(h.progress.filter((e) => e.stage === "external_retrieval" && e.provider).map((e) => e.provider))).toEqual(new Set(["github", "stackexchange"]));
  });

  it("the stage's closing line counts one web result in the singular (it said '1 web results')", async () => {
    const h = await sampleVaultHarness({ exchanges: oneHackerNewsHit() });
    // One query (the question does not ask about the current state), one source, one hit.
    await h.run({ question: "What do people think of sequence CRDTs?", mode: "always", providers: ["hackernews"] });
    const closing = h.progress.filter((e) => e.stage === "external_retrieval" && !e.provider).at(-1);
    expect(closing).toMatchObject({ status: "done", detail: "1 web result from 1 answer" });
  });
});

/** Hacker News answering any search with the first story of its CRDT recording only. */
function oneHackerNewsHit() {
  return replayFile("hackernews/search-crdt.json").map((x) => {
    const body = x.body as { hits: unknown[] };
    return { ...x, url: "https://hn.algolia.com/api/v1/search", body: { ...body, hits: body.hits.slice(0, 1), nbHits: 1 } };
  });
}

/** Wikipedia and arXiv asked; Wikipedia answers, arXiv does not until the run is stopped, just after it was asked. */
async function stoppedWhileArxivIsSlow(question = "What is the history of CRDT research?") {
  const controller = new AbortController();
  const h = await sampleVaultHarness({
    exchanges: replayFolder(path.join(REPO_ROOT, "fixtures/replay/free-sources-demo")),
    httpOptions: {
      beforeAnswer: async (req) => {
        if (!req.url.includes("arxiv")) return;
        setTimeout(() => controller.abort(), 0);
        await new Promise((_, reject) => req.signal?.addEventListener("abort", () => reject(new Error("aborted"))));
      },
    },
  });
  const result = await h.run({ question, mode: "always", providers: ["wikipedia", "arxiv"] }, { signal: controller.signal });
  return { h, result };
}

// An `http` failure sent no 5xx when SearXNG's engines all failed, when arXiv refused the query in
// its error feed, or when the replayed run had no recording: each was said "answered with a server
// error" (or "could not be reached") on the progress line, in the recall note and in the trace.
describe("what a failure with no server error was, said alike on every surface of the run", () => {
  const SEARXNG = "https://searx.example.org/search";
  const ARXIV = "https://export.arxiv.org/api/query";
  const enginesFailed = () => [
    errorExchange("GET", SEARXNG, 200, JSON.stringify({ results: [], unresponsive_engines: [["google", "timeout"], ["bing", "CAPTCHA"]] }), { "content-type": "application/json" }),
  ];
  const arxivRefused = () => [
    errorExchange("GET", ARXIV, 400, '<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><entry><id>http://arxiv.org/api/errors#incorrect_id_format_for_abc</id><title>Error</title><summary>incorrect id format for abc</summary></entry></feed>', { "content-type": "application/atom+xml" }),
  ];
  const cases = [
    { name: "SearXNG whose engines did not answer", provider: "searxng", exchanges: enginesFailed(), says: "found nothing, as its search engines did not answer", reason: "engines_failed" },
    { name: "arXiv refusing the query in its error feed", provider: "arxiv", exchanges: arxivRefused(), says: "refused the search", reason: "refused" },
    { name: "a replayed source with no recording", provider: "wikipedia", exchanges: enginesFailed(), says: "had no recorded answer to replay", reason: "no_recording" },
  ] as const;
  for (const c of cases) {
    it(c.name, async () => {
      const h = await sampleVaultHarness({ exchanges: [...c.exchanges], settings: (s) => void (s.external.searxng.baseUrl = "https://searx.example.org") });
      const result = await h.run({ question: "Which papers describe sequence CRDTs?", mode: "always", providers: [c.provider], writeTrace: false });
      const label = { searxng: "SearXNG", arxiv: "arXiv", wikipedia: "Wikipedia" }[c.provider];
      expect(h.progress.filter((e) => e.provider === c.provider && e.status === "failed").at(-1)?.detail).toBe(c.says);
      expect(h.progress.filter((e) => e.stage === "external_retrieval" && !e.provider).at(-1)?.detail).toBe(`No web results: ${label} ${c.says}`);
      expect(result.pack.coverage.recall_note).toContain(`Web search failed: ${label} ${c.says}.`);
      expect(webOutcomeSentence(webOutcomeOfTrace(result.trace))).toBe(`Web search failed: ${label} ${c.says}.`);
      expect(result.trace.events.find((e) => e.type === "external_provider_response")?.data).toMatchObject({ provider: c.provider, reason: c.reason });
    });
  }
});
