// research_result.v1's providers_asked, against what left the device (the requests the run's Http
// was given). Its description said "sent a query to"; a source that refuses the query before
// sending anything (Brave with no key set) was named all the same, as the run's trace names every
// source it hands the query to. The description now says so; these runs hold it to its words.
import { describe, expect, it } from "vitest";
import { researchResultJson, researchResultSchema } from "../../../src/cli/json/research-result-json";
import { recordingSecrets } from "../../support/fake-secrets";
import { FRESHNESS_QUESTION, sampleVaultHarness } from "../../support/research-harness";

describe("providers_asked", () => {
  it("names a source that refused the query unsent (no key), and its description says such a source is named", async () => {
    const h = await sampleVaultHarness({ secrets: recordingSecrets({}) });
    const result = await h.run({ question: FRESHNESS_QUESTION, mode: "always", providers: ["brave"] });
    const json = researchResultJson(result, {}, undefined);

    expect(h.http.requests).toEqual([]);
    expect(json.providers_asked).toEqual(["brave"]);
    expect(json.pack.warnings.map((w) => w.kind)).toContain("provider_auth");
    // The contract read "Web sources the run sent a query to", false of this run.
    expect(researchResultSchema.shape.providers_asked.description).toContain("a source that refused it before sending anything (no key set for it, an empty query) is named too");
  });

  it("names a source that refused an empty query unsent", async () => {
    // Blank to a search engine once tidied; every surface refuses a blank question, the run does not.
    const h = await sampleVaultHarness();
    const result = await h.run({ question: "\u00a0", mode: "always", providers: ["brave"] });
    const json = researchResultJson(result, {}, undefined);

    expect(result.trace.events.find((e) => e.type === "external_query_built")?.data?.query).toBe("");
    expect(h.http.requests).toEqual([]);
    expect(json.providers_asked).toEqual(["brave"]);
  });

  it("names every source that was sent the query, and is [] when nothing left the device", async () => {
    const h = await sampleVaultHarness();
    const sent = researchResultJson(await h.run({ question: FRESHNESS_QUESTION, mode: "always", providers: ["brave"] }), {}, undefined);
    expect(h.http.requests.map((r) => new URL(r.url).host)).toContain("api.search.brave.com");
    expect(sent.providers_asked).toEqual(["brave"]);

    const local = await sampleVaultHarness();
    const none = researchResultJson(await local.run({ question: FRESHNESS_QUESTION, mode: "never", providers: ["brave"] }), {}, undefined);
    expect(local.http.requests).toEqual([]);
    expect(none.providers_asked).toEqual([]);
  });
});
