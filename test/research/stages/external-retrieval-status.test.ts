// How the web search stage reports itself to the panel: a failed or partly failed search is never
// shown as done, each provider has its own line, and a cancel is not reported as a provider failure.
import { describe, expect, it } from "vitest";
import { errorExchange, replayFile, replayFolder } from "../../support/recording-http";
import { FRESHNESS_QUESTION, sampleVaultHarness } from "../../support/research-harness";

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
    expect(h.progress.filter((e) => e.provider === "brave").at(-1)).toMatchObject({ status: "done", detail: expect.stringMatching(/^\d+ results?$/) });
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
});
