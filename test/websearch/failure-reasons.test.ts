// What a failure was beyond its kind (`ProviderError.reason`): an `http` failure that sent no 5xx
// (a server that only redirected, arXiv refusing the query in its error feed, SearXNG whose engines
// all failed, a bot check in SearXNG's stead, PubMed's ERROR in a 200) was worded "answered with a
// server error" on every surface, and a replayed call no recording answered "could not be reached".
// Each failure site names its reason here; notes/web-outcome.ts words them (web-outcome.test.ts).
import { describe, expect, it } from "vitest";
import { HttpFailure, type HttpResponse } from "../../src/ports";
import { ProviderError, httpFailureReason } from "../../src/websearch/types";
import { braveKey, jsonResponse, scriptedHttp } from "./helpers";
import { failure, fixtureSettings, runSource } from "./providers/source-harness";

const ARXIV_ERROR_FEED = `<?xml version='1.0' encoding='UTF-8'?>
<feed xmlns="http://www.w3.org/2005/Atom"><id>https://arxiv.org/</id><title>arXiv Search Results</title>
<entry><id>https://arxiv.org/api/errors#incorrect_id_format_for_abc</id><title>Error</title><summary>incorrect id format for abc</summary></entry></feed>`;

const page = (status: number, html: string): HttpResponse => ({ status, headers: { "content-type": "text/html" }, text: html });

describe("the reason a status gives an http failure", () => {
  it("is a server error from 500 on, a refusal from 400 on, and an unexpected status below", () => {
    expect([503, 500, 422, 403, 400, 304, 301, 101].map(httpFailureReason)).toEqual(["server_error", "server_error", "refused", "refused", "refused", "unexpected_status", "unexpected_status", "unexpected_status"]);
  });

  it("is set by the status when the failure names none, and kept when it does", () => {
    expect(new ProviderError("brave", "http", "m", { status: 502 }).reason).toBe("server_error");
    expect(new ProviderError("arxiv", "http", "m", { status: 200, reason: "refused" }).reason).toBe("refused");
    // Only the http kind is read from a status: a 401's auth and a 429's rate limit say what they are.
    expect(new ProviderError("brave", "auth", "m", { status: 401 }).reason).toBeUndefined();
  });
});

describe("each failure with no error status names its own reason", () => {
  it("a server that only redirects (to itself for ever, or to another site)", async () => {
    const run = await runSource("wikipedia", scriptedHttp(() => Promise.reject(new HttpFailure("redirect", "en.wikipedia.org kept redirecting (more than 5 times); the request was given up on."))));
    expect(failure(run)).toMatchObject({ kind: "http", reason: "redirects_only" });
    expect(failure(run).status).toBeUndefined();
  });

  it("a replayed call that no recording answers: nothing was tried on the network", async () => {
    const run = await runSource("wikipedia", scriptedHttp(() => Promise.reject(new HttpFailure("replay_miss", "No recorded response in /tmp/r for GET https://en.wikipedia.org/w/rest.php/v1/search/page"))));
    expect(failure(run)).toMatchObject({ kind: "network", reason: "no_recording" });
  });

  it("arXiv refusing the query in its error feed, whatever the status it came with", async () => {
    for (const status of [200, 400]) {
      const run = await runSource("arxiv", scriptedHttp(() => ({ status, headers: { "content-type": "application/atom+xml" }, text: ARXIV_ERROR_FEED })));
      expect(failure(run)).toMatchObject({ kind: "http", reason: "refused", status });
    }
  });

  it("SearXNG answering with no results because its engines did not answer", async () => {
    const run = await runSource("searxng", scriptedHttp(() => jsonResponse({ results: [], unresponsive_engines: [["google", "timeout"]] })));
    expect(failure(run)).toMatchObject({ kind: "http", reason: "engines_failed" });
  });

  it("a bot check's page in SearXNG's stead, with a 200", async () => {
    const run = await runSource("searxng", scriptedHttp(() => page(200, "<html><head><title>Just a moment...</title></head><body>checking</body></html>")));
    expect(failure(run)).toMatchObject({ kind: "http", reason: "blocked", status: 200 });
  });

  it("PubMed saying in a 200 that it could not run the search", async () => {
    const run = await runSource("pubmed", scriptedHttp(() => jsonResponse({ esearchresult: { ERROR: "Search Backend failed: unknown" } })));
    expect(failure(run)).toMatchObject({ kind: "http", reason: "search_failed" });
  });

  it("Stack Exchange refusing a parameter (the site's name), whatever its status", async () => {
    const run = await runSource("stackexchange", scriptedHttp(() => jsonResponse({ error_id: 400, error_name: "bad_parameter", error_message: "site is required" }, 400)));
    expect(failure(run)).toMatchObject({ kind: "http", reason: "refused" });
  });
});

describe("a failure with an error status takes its reason from the status", () => {
  it("a 5xx is a server error, a 4xx no source claimed a refusal, a 3xx unexpected", async () => {
    const answers: [number, string][] = [
      [503, "server_error"],
      [422, "refused"],
      [304, "unexpected_status"],
    ];
    for (const [status, reason] of answers) {
      const run = await runSource("wikipedia", scriptedHttp(() => page(status, "<html><title>x</title></html>")));
      expect(failure(run)).toMatchObject({ kind: "http", status, reason });
    }
  });

  it("Brave's 422 validation error (a recorded capture's body) is a refusal, not a server error", async () => {
    const body = { type: "ErrorResponse", error: { id: "ddab2628", status: 422, code: "VALIDATION", detail: "Unable to validate request parameter(s)", meta: { errors: [{ loc: ["query", "count"], msg: "Input should be greater than or equal to 1" }] } } };
    const run = await runSource("brave-web", scriptedHttp(() => jsonResponse(body, 422)), { secrets: { brave: braveKey }, settings: fixtureSettings() });
    expect(failure(run)).toMatchObject({ kind: "http", status: 422, reason: "refused" });
  });
});
