// research_result.v1's providers_asked, against what left the device (the requests the run's Http
// was given). A source that refuses the query before sending anything (Brave with no key set, a query
// empty once tidied) was named all the same, as the run recorded a request as it handed the query
// over, and the description had been loosened to say so. The run records a request as a source's call
// leaves now; the description says "every source that was sent the query; [] means nothing left".
import { describe, expect, it } from "vitest";
import { providersAsked, researchResultJson, researchResultSchema } from "../../../src/cli/json/research-result-json";
import { recordingSecrets } from "../../support/fake-secrets";
import { FRESHNESS_QUESTION, sampleVaultHarness } from "../../support/research-harness";

describe("providers_asked", () => {
  it("leaves out a source that refused the query unsent (no key), whose failure is in pack.warnings", async () => {
    const h = await sampleVaultHarness({ secrets: recordingSecrets({}) });
    const result = await h.run({ question: FRESHNESS_QUESTION, mode: "always", providers: ["brave"] });
    const json = researchResultJson(result, {}, undefined);

    expect(h.http.requests).toEqual([]);
    expect(json.providers_asked).toEqual([]);
    expect(json.pack.warnings.map((w) => w.kind)).toContain("provider_auth");
  });

  it("leaves out a source that refused an empty query unsent", async () => {
    // Blank to a search engine once tidied; every surface refuses a blank question, the run does not.
    const h = await sampleVaultHarness();
    const result = await h.run({ question: "\u00a0", mode: "always", providers: ["brave"] });
    const json = researchResultJson(result, {}, undefined);

    expect(result.trace.events.find((e) => e.type === "external_query_built")?.data?.query).toBe("");
    expect(h.http.requests).toEqual([]);
    expect(json.providers_asked).toEqual([]);
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

  it("its description promises what the field now holds, and no longer that a source refused unsent is named", () => {
    const description = researchResultSchema.shape.providers_asked.description;
    expect(description).toContain("Every web source that was sent the query");
    expect(description).toContain("[] means nothing left the device");
    expect(description).not.toContain("is named too");
  });

  it("names the sources in the order the run asked them, not the order their calls left", () => {
    const request = (provider: string) => ({ type: "external_provider_request" as const, at: 1, data: { provider } });
    const events = [{ type: "external_sources_routed" as const, at: 0, data: { asked: ["brave", "wikipedia"] } }, request("wikipedia"), request("brave")];
    expect(providersAsked({ events })).toEqual(["brave", "wikipedia"]);
  });
});
