// How the web search stage reports itself to the panel: a failed or partly failed search is never
// shown as done, each provider has its own line, and a cancel is not reported as a provider failure.
import { describe, expect, it } from "vitest";
import path from "node:path";
import { errorExchange, REPO_ROOT, replayFile, replayFolder } from "../../support/recording-http";
import { FRESHNESS_QUESTION, sampleVaultHarness } from "../../support/research-harness";
import { stringMatching } from "../../support/typed-matchers";

const BRAVE_LLM_CONTEXT = "https://api.search.brave.com/res/v1/llm/context";
const rateLimited = () => [errorExchange("GET", BRAVE_LLM_CONTEXT, 429, JSON.stringify({ error: { code: "RATE_LIMITED" } }), { "content-type": "application/json" })];

describe("external retrieval status", () => {
  it("every provider failing ends the stage as failed, with the reason in words", async () => {
    const h = await sampleVaultHarness({ exchanges: rateLimited() });
    await h.run({ question: FRESHNESS_QUESTION, mode: "always", providers: ["brave"] });
    const stage = h.progress.filter((e) => e.stage === "external_retrieval" && !e.provider);
    expect(stage.at(-1)).toMatchObject({ status: "failed", detail: "No web results: Brave rate limited" });
    expect(h.progress.filter((e) => e.provider === "brave").at(-1)).toMatchObject({ status: "failed", detail: "rate limited" });
  });

  it("one of two providers failing ends the stage as partial; the other has its count", async () => {
    const h = await sampleVaultHarness({ exchanges: [...replayFolder(), ...replayFile("exa/server-error-500-html.json")] });
    await h.run({ question: FRESHNESS_QUESTION, mode: "always", providers: ["brave", "exa"] });
    const stage = h.progress.filter((e) => e.stage === "external_retrieval" && !e.provider);
    expect(stage.at(-1)?.status).toBe("partial");
    expect(h.progress.filter((e) => e.provider === "exa").at(-1)).toMatchObject({ status: "failed", detail: "server error" });
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
    expect(brave).toEqual(["started: Asking Brave", stringMatching(/^done: /), "started: Asking Brave", "started: Waiting 1 s for Brave's rate limit", stringMatching(/^done: /)]);
    const answers = result.trace.events.filter((e) => e.type === "external_provider_response");
    expect(answers.map((e) => e.data?.rate_wait_ms)).toEqual([undefined, 1000]);
    expect(answers[1].data?.rate_wait).toBe("pacing");
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
});
