// websearch.v1's providers_asked, against the dispatcher's report of what left the device. Every source
// not skipped was named: `websearch --json` with Brave and no key printed providers_asked: ["brave"]
// for a search that made no request, under the description "The sources that were sent the query".
import { describe, expect, it } from "vitest";
import { websearchJson, websearchSchema } from "../../../src/cli/json/websearch-json";
import { dispatchSearch } from "../../../src/websearch/dispatcher";
import { createSearchSession } from "../../../src/websearch/search-providers";
import { braveKey, fakeClock, fakeSecrets, jsonResponse, scriptedHttp, testContext } from "../../websearch/helpers";

const request = { query: "automerge release", count: 5, timeoutMs: 8000 };
const braveAnswer = () => jsonResponse({ grounding: { generic: [{ url: "https://automerge.org/", title: "Automerge", snippets: ["A CRDT library."] }] }, sources: {} });

describe("websearch.v1 providers_asked", () => {
  it("names only the sources that were sent the query: not one that refused it unsent (no key)", async () => {
    const http = scriptedHttp(braveAnswer);
    const context = testContext(http, { secrets: fakeSecrets({ brave: braveKey }) });
    const outcome = await dispatchSearch(["exa", "brave"], request, context, createSearchSession({ clock: fakeClock() }), { route: false });

    expect(http.requests.map((r) => new URL(r.url).host)).toEqual(["api.search.brave.com"]);
    const json = websearchJson(request.query, undefined, outcome, undefined);
    expect(json.providers_asked).toEqual(["brave"]);
    expect(json.sources.map((s) => `${s.source}: ${s.status}`)).toEqual(["exa: failed", "brave: answered"]);
  });

  it("names a source answered from the session's cache: the session sent it the same query before", async () => {
    const http = scriptedHttp(braveAnswer);
    const context = testContext(http, { secrets: fakeSecrets({ brave: braveKey }) });
    const session = createSearchSession({ clock: fakeClock() });
    await dispatchSearch(["brave"], request, context, session, { route: false });
    const again = await dispatchSearch(["brave"], request, context, session, { route: false });

    expect(http.requests).toHaveLength(1);
    expect(again.sources).toEqual([expect.objectContaining({ source: "brave", cached: true, sent: false })]);
    expect(websearchJson(request.query, undefined, again, undefined).providers_asked).toEqual(["brave"]);
  });

  it("is [] when nothing left the device, and its description says so", async () => {
    const http = scriptedHttp(braveAnswer);
    const outcome = await dispatchSearch(["brave"], request, testContext(http, { secrets: fakeSecrets({}) }), createSearchSession({ clock: fakeClock() }), { route: false });

    expect(http.requests).toEqual([]);
    expect(websearchJson(request.query, undefined, outcome, undefined).providers_asked).toEqual([]);
    const description = websearchSchema.shape.providers_asked.description;
    expect(description).toContain("[] means nothing left the device");
    expect(description).toContain("is not named");
  });
});
