// What the dispatcher bounded in a run's web search (search operators a keyword source cannot
// honour, results cut per source, the query shortened) is said in the pack's warnings, and so in
// --json and the trace note; before, only the websearch command showed it.
import { describe, expect, it } from "vitest";
import { replayFile } from "../../support/recording-http";
import { sampleVaultHarness } from "../../support/research-harness";

const OPERATOR_QUESTION = "site:github.com y-websocket JWT authentication error";

describe("the search's clamps reach the pack", () => {
  it("an operator GitHub cannot honour is a warning, once", async () => {
    const h = await sampleVaultHarness({
      exchanges: [...replayFile("searxng/search-crdt.json"), ...replayFile("github/search-sequence-crdts.json")],
      settings: (s) => (s.external.searxng.baseUrl = "http://localhost:8888"),
    });
    const result = await h.run({ question: OPERATOR_QUESTION, mode: "always", providers: ["searxng", "github"], count: 1 });

    // The premise: both sources answered.
    const answered = result.trace.events.filter((e) => e.type === "external_provider_response" && !e.data?.error).map((e) => e.data?.provider);
    expect(new Set(answered)).toEqual(new Set(["searxng", "github"]));

    const clamps = result.pack.warnings.filter((w) => w.kind === "search_clamped").map((w) => w.message);
    expect(clamps).toEqual(["“site:github.com” left out for GitHub: they search for words, not with search operators"]);
    expect(h.store.text(result.trace_path!)).toContain("left out for GitHub");
  });
});
