// A provider failure never destroys local results (DESIGN.md, "External search policy"): the
// recorded error answers below (HTML 5xx pages, 429s) go through the real providers and parsers,
// and the run must keep the vault rows, say what failed, and stop with the matching reason.
import { describe, expect, it } from "vitest";
import type { RecordedExchange } from "../../src/websearch/replay";
import { errorExchange, replayFile, replayFolder } from "../support/recording-http";
import { FRESHNESS_QUESTION, sampleVaultHarness, UNKNOWN_QUESTION } from "../support/research-harness";
import type { ProviderName } from "../../src/settings";
import { renderTraceNote } from "../../src/notes/trace-note";

const WEAK_QUESTION = "How do I configure y-websocket authentication with JWT tokens?";
const BRAVE_LLM_CONTEXT = "https://api.search.brave.com/res/v1/llm/context";

const failures: { name: string; provider: ProviderName; exchanges: () => RecordedExchange[] }[] = [
  {
    name: "Brave answers with a 502 HTML gateway page",
    provider: "brave",
    exchanges: () => [errorExchange("GET", BRAVE_LLM_CONTEXT, 502, "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>")],
  },
  {
    name: "Brave answers 429 (rate limited)",
    provider: "brave",
    exchanges: () => [errorExchange("GET", BRAVE_LLM_CONTEXT, 429, JSON.stringify({ type: "ErrorResponse", error: { code: "RATE_LIMITED", detail: "Request rate limit exceeded for plan.", status: 429 } }), { "content-type": "application/json", "retry-after": "1" })],
  },
  { name: "Exa answers a 500 HTML page", provider: "exa", exchanges: () => replayFile("exa/server-error-500-html.json") },
  { name: "Exa answers 429", provider: "exa", exchanges: () => replayFile("exa/rate-limited-429.json") },
];

describe("a provider failure keeps local answers", () => {
  for (const failure of failures) {
    it(`${failure.name}: vault rows remain, a visible warning, stop_reason external_failed_local_used`, async () => {
      const h = await sampleVaultHarness({ exchanges: failure.exchanges() });
      const local = await (await sampleVaultHarness()).run({ question: WEAK_QUESTION, mode: "never", writeTrace: false });
      expect(local.pack.evidence.length).toBeGreaterThan(0);

      const result = await h.run({ question: WEAK_QUESTION, mode: "on-weak", providers: [failure.provider] });

      expect(h.http.requests.length).toBeGreaterThan(0);
      expect(result.stop_reason).toBe("external_failed_local_used");
      // The same vault rows as a run that never looked outside.
      expect(result.pack.evidence.map((r) => r.source_key)).toEqual(local.pack.evidence.map((r) => r.source_key));
      expect(result.pack.external_evidence).toEqual([]);
      const warning = result.pack.warnings.find((w) => w.kind.startsWith("provider_"));
      expect(warning?.message).toMatch(failure.provider === "exa" ? /^Exa failed/ : /^Brave failed/);
      expect(warning?.message).toMatch(/Vault results are kept/);
      expect(result.trace.errors.some((e) => e.stage === "external_retrieval" && e.provider === failure.provider)).toBe(true);
      // The answer is still written from the vault.
      expect(result.answer?.text.length).toBeGreaterThan(0);
      expect(result.verification?.passed).toBe(true);
      expect(result.citations?.every((c) => c.origin === "vault")).toBe(true);
      // And the warning reaches the trace note the user reads.
      const note = h.store.text(result.trace_path!);
      expect(note).toContain(warning!.kind);
    });
  }

  it("a source that fails each of the run's queries the same way is said to fail once; the trace keeps each failure", async () => {
    const h = await sampleVaultHarness({ exchanges: replayFile("exa/server-error-500-html.json") });
    const result = await h.run({ question: FRESHNESS_QUESTION, mode: "always", providers: ["exa"] });
    expect(result.trace.queries_sent.length).toBe(2);
    expect(result.trace.errors.filter((e) => e.stage === "external_retrieval" && e.provider === "exa")).toHaveLength(2);
    expect(result.pack.warnings.filter((w) => /^Exa failed/.test(w.message))).toHaveLength(1);
  });

  it("one provider failing does not spoil the other's rows, and is still reported", async () => {
    const h = await sampleVaultHarness({ exchanges: [...replayFolder(), ...replayFile("exa/server-error-500-html.json")] });
    const result = await h.run({ question: WEAK_QUESTION, mode: "on-weak", providers: ["brave", "exa"] });

    expect(result.pack.external_evidence.length).toBeGreaterThan(0);
    expect(result.pack.external_evidence.every((r) => r.provider === "brave")).toBe(true);
    expect(result.pack.evidence.length).toBeGreaterThan(0);
    expect(result.pack.warnings.some((w) => w.kind.startsWith("provider_") && /^Exa failed/.test(w.message))).toBe(true);
    expect(result.stop_reason).not.toBe("external_failed_local_used");
  });

  it("with nothing local and mode always, stops with external_required_failed and says why", async () => {
    const h = await sampleVaultHarness({ exchanges: replayFile("exa/server-error-500-html.json") });
    const result = await h.run({ question: UNKNOWN_QUESTION, mode: "always", providers: ["exa"] });

    expect(result.pack.evidence).toEqual([]);
    expect(result.pack.external_evidence).toEqual([]);
    expect(result.stop_reason).toBe("external_required_failed");
    expect(result.answer).toBeUndefined();
    const why = result.pack.warnings.find((w) => w.kind === "external_required_failed");
    expect(why?.message).toMatch(/vault has nothing/);
    // The reason names the provider and what went wrong with it.
    expect(why?.message).toMatch(/Exa failed \(\w+\)/);
    // Neither it nor the source's own warning (its kind kept for the pack's readers) promises vault results that do not exist.
    expect(result.pack.warnings.map((w) => w.kind)).toEqual(["provider_http", "external_required_failed"]);
    for (const w of result.pack.warnings) expect(w.message).not.toMatch(/vault results are kept/i);
    expect(h.store.text(result.trace_path!)).toMatch(/stop_reason: external_required_failed/);
  });

  it("with nothing local, a source that fails beside one that answers promises no vault results", async () => {
    const h = await sampleVaultHarness({ exchanges: [...replayFolder(), ...replayFile("exa/server-error-500-html.json")] });
    // No note of the sample vault matches a word of it (the espresso question matches a few, weakly).
    const result = await h.run({ question: "How do penguins regulate body temperature?", mode: "always", providers: ["brave", "exa"] });

    // The vault search found nothing (rows the web's pages fold into come later, from notes that cite them).
    expect(result.trace.events.find((e) => e.type === "local_retrieval")?.data?.detail).toMatch(/^0 of \d+ notes matched/);
    expect(result.pack.external_evidence.length).toBeGreaterThan(0);
    const exa = result.pack.warnings.filter((w) => /^Exa failed/.test(w.message));
    expect(exa).toHaveLength(1);
    expect(exa[0].message).not.toMatch(/vault results are kept/i);
  });

  it("a failure's warning is its own sentence before 'Vault results are kept.' (it read 'HTTP 503: Service Unavailable Vault results are kept.')", async () => {
    const h = await sampleVaultHarness({ exchanges: [...HN_503(), ...replayFile("wikipedia/search-crdt.json")] });
    const result = await h.run({ question: HISTORY_AND_LATEST, mode: "always", providers: ["hackernews", "wikipedia"] });
    const warnings = result.pack.warnings.filter((w) => w.kind === "provider_http").map((w) => w.message);
    expect(warnings).toEqual(["Hacker News failed (http): Hacker News answered HTTP 503: Service Unavailable. Vault results are kept."]);
    expect(h.store.text(result.trace_path!)).toContain("- Hacker News failed (http): Hacker News answered HTTP 503: Service Unavailable. Vault results are kept.\n");
  });

  it("with nothing local, every source's failure is a sentence of its own in the reason the run stopped", async () => {
    const h = await sampleVaultHarness({ exchanges: [...HN_503(), ...WIKIPEDIA_500()] });
    const result = await h.run({ question: UNKNOWN_QUESTION, mode: "always", providers: ["hackernews", "wikipedia"], writeTrace: false });
    expect(result.stop_reason).toBe("external_required_failed");
    const why = result.pack.warnings.find((w) => w.kind === "external_required_failed")?.message;
    expect(why).toMatch(/^External search was needed because the vault has nothing on this, and it failed\. Hacker News failed \(http\): Hacker News answered HTTP 503: Service Unavailable\. Wikipedia failed \(http\): .*[^.]\.$/);
  });

  it("with nothing local, no provider enabled and mode always, stops with external_required_failed", async () => {
    const h = await sampleVaultHarness({ settings: (s) => (s.external.providers = []) });
    const result = await h.run({ question: UNKNOWN_QUESTION, mode: "always" });

    expect(h.http.requests).toEqual([]);
    expect(result.stop_reason).toBe("external_required_failed");
    expect(result.pack.warnings.find((w) => w.kind === "external_required_failed")?.message).toMatch(/no provider is enabled/i);
  });
});

/** A question about the current state that Hacker News (news) and Wikipedia (background) both fit. */
const HISTORY_AND_LATEST = "What is the history of Automerge and its latest release?";
const HN_503 = () => [errorExchange("GET", "https://hn.algolia.com/api/v1/search", 503, "<html><body>Service Unavailable</body></html>")];
const WIKIPEDIA_500 = () => [errorExchange("GET", "https://en.wikipedia.org/w/rest.php/v1/search/page", 500, "<html><body>Internal error</body></html>")];
/** The brief's line on a question about the current state, from its "may be out of date" on. */
const freshnessLine = (text: string | undefined) => /^This question asks about the current state: .*?(may be out of date.*)$/m.exec(text ?? "")?.[1];

describe("a web search that failed reads as failed, never as 'found nothing' or 'not used'", () => {
  it("every source failing: the recall note says the search failed (it said 'Web search added 0 outside rows.'), and the brief in the same words (it said 'the outside-vault search failed: no web source answered.')", async () => {
    for (const [providers, exchanges] of [
      [["hackernews"], HN_503()],
      [["hackernews", "wikipedia"], [...HN_503(), ...WIKIPEDIA_500()]],
    ] as const) {
      const h = await sampleVaultHarness({ exchanges: [...exchanges] });
      const result = await h.run({ question: HISTORY_AND_LATEST, mode: "always", providers: [...providers], writeTrace: false });
      expect(result.stop_reason).toBe("external_failed_local_used");
      // It names the sources that did not answer, as typed data of the run, not read back from warnings.
      const named = providers.length === 1 ? "Hacker News answered with a server error" : "Hacker News answered with a server error; Wikipedia answered with a server error";
      expect(result.pack.coverage.recall_note).toMatch(new RegExp(`^Searched \\d+ notes; \\d+ matched\\. Web search failed: ${named}\\.$`));
      expect(freshnessLine(result.answer?.text)).toBe(`may be out of date. Web search failed: ${named}.`);
      // The trace note of the same run says it so too.
      expect(renderTraceNote(result.trace)).toContain(`Web search failed: ${named}.`);
    }
  });

  it("some sources failing: the recall note names those that failed (it said 'Wikipedia answered, but some requests failed')", async () => {
    const h = await sampleVaultHarness({ exchanges: [...HN_503(), ...replayFile("wikipedia/search-crdt.json")] });
    const result = await h.run({ question: HISTORY_AND_LATEST, mode: "always", providers: ["hackernews", "wikipedia"] });
    const rows = result.pack.external_evidence.length;
    expect(rows).toBeGreaterThan(0);
    const said = `Web search added ${rows} outside rows from Wikipedia; Hacker News answered with a server error.`;
    expect(result.pack.coverage.recall_note).toMatch(new RegExp(`${said}$`));
    // The trace note says it in the same words.
    expect(h.store.text(result.trace_path!)).toContain(`${said} How each failed is under Warnings below.`);
  });

  it("sources that answered with nothing, beside one that failed: both are said", async () => {
    const h = await sampleVaultHarness({ exchanges: [...HN_503(), ...replayFile("wikipedia/empty.json")] });
    const result = await h.run({ question: HISTORY_AND_LATEST, mode: "always", providers: ["hackernews", "wikipedia"], writeTrace: false });
    expect(result.pack.coverage.recall_note).toMatch(/Web search added no outside rows: Wikipedia answered with nothing to add; Hacker News answered with a server error\.$/);
    expect(freshnessLine(result.answer?.text)).toBe("may be out of date. Web search added no outside rows: Wikipedia answered with nothing to add; Hacker News answered with a server error.");
  });

  it("a search that ran and found nothing, and one not run, each read as what happened", async () => {
    const h = await sampleVaultHarness({ exchanges: replayFile("hackernews/empty.json") });
    const empty = await h.run({ question: HISTORY_AND_LATEST, mode: "always", providers: ["hackernews"], writeTrace: false });
    expect(empty.pack.coverage.recall_note).toMatch(/Web search added no outside rows: Hacker News answered with nothing to add\.$/);
    expect(freshnessLine(empty.answer?.text)).toBe("may be out of date. Web search added no outside rows: Hacker News answered with nothing to add.");

    const never = await h.run({ question: HISTORY_AND_LATEST, mode: "never", writeTrace: false });
    expect(never.pack.coverage.recall_note).toMatch(/Nothing left the device: web search is off for this run\.$/);
    expect(freshnessLine(never.answer?.text)).toBe("may be out of date. Nothing left the device: web search is off for this run.");

    const noSource = await (await sampleVaultHarness({ settings: (s) => (s.external.providers = []) })).run({ question: HISTORY_AND_LATEST, mode: "always", writeTrace: false });
    expect(noSource.pack.coverage.recall_note).toMatch(/Nothing left the device: web search was allowed, but no source is turned on\.$/);
    expect(freshnessLine(noSource.answer?.text)).toBe("may be out of date. Nothing left the device: web search was allowed, but no source is turned on.");
  });
});
