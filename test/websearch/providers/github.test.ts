import { describe, expect, it } from "vitest";
import { userAgent } from "../../../src/websearch/provider-http";
import { githubQuery } from "../../../src/websearch/providers/github";
import { fakeClock, jsonResponse, scriptedHttp } from "../helpers";
import { answer, failure, GITHUB_TOKEN, runSource } from "./source-harness";

const empty = () => jsonResponse({ total_count: 0, incomplete_results: false, items: [] });

describe("GitHub: request", () => {
  it("searches repositories with the question's words, GitHub's media type, API version and a User-Agent, and no token when none is set", async () => {
    const http = scriptedHttp(empty);
    await runSource("github", http, { request: { query: "Which libraries implement sequence CRDTs?", count: 5 }, secrets: {} });
    const [req] = http.requests;
    const url = new URL(req.url);
    expect(url.origin + url.pathname).toBe("https://api.github.com/search/repositories");
    expect(Object.fromEntries(url.searchParams)).toEqual({ q: "libraries implement sequence CRDTs", per_page: "5" });
    expect(req.headers).toEqual({ Accept: "application/vnd.github+json", "User-Agent": userAgent, "X-GitHub-Api-Version": "2022-11-28" });
  });

  it("sends the optional token as a Bearer token, and spaces calls by the token's higher limit", async () => {
    const http = scriptedHttp(empty);
    const first = await runSource("github", http, { secrets: { github: GITHUB_TOKEN } });
    expect(http.requests[0].headers?.Authorization).toBe(`Bearer ${GITHUB_TOKEN}`);
    expect(first.governor.reserve("github-token", 10_000)).toEqual({ ok: true, waitMs: 2000 });
    const anonymous = await runSource("github", scriptedHttp(empty), { secrets: {} });
    expect(anonymous.governor.reserve("github", 10_000)).toEqual({ ok: true, waitMs: 6000 });
  });

  it("asks only for recently pushed repositories when freshness asks for recent results", () => {
    expect(githubQuery("crdt editor", { freshness: "pm" }, fakeClock().now())).toBe("crdt editor pushed:>=2026-01-29");
    expect(githubQuery("crdt", { freshness: "2024-01-01to2024-06-30" }, fakeClock().now())).toBe("crdt pushed:2024-01-01..2024-06-30");
  });
});

describe("GitHub: answers", () => {
  it("keeps stars, language, last push and archived as signals, the description as the snippet, topics as a highlight", async () => {
    const [automerge, yjs, sketch] = answer(await runSource("github", "github/search-sequence-crdts.json")).results;
    expect(automerge).toMatchObject({ url: "https://github.com/automerge/automerge", title: "automerge/automerge", domain: "github.com", score: 1, highlights: ["Topics: crdt, local-first"] });
    expect(automerge.signals).toEqual([
      { kind: "stars", value: 5400 },
      { kind: "language", value: "Rust" },
      { kind: "last_push", value: "2025-09-18T10:00:00Z" },
    ]);
    expect(yjs.snippet).toBe("Shared data types for building collaborative software & editors. (Sample description written for tests.)");
    expect(sketch.snippet).toBeUndefined();
    expect(sketch.signals).toContainEqual({ kind: "archived" });
  });

  it("says when GitHub stopped its search early", async () => {
    expect(answer(await runSource("github", "github/incomplete-results.json")).warnings).toContain("GitHub's search stopped early; results may be incomplete");
  });

  it("reads a used-up limit from x-ratelimit-reset (a Unix time), holds later calls until then and suggests a token", async () => {
    // The recording's reset is 1758369642: 42 s after this clock's "now".
    const run = await runSource("github", "github/rate-limited-403.json", { secrets: {}, now: 1758369600_000 });
    const error = failure(run);
    const wait = 42_000;
    expect(error).toMatchObject({ kind: "rate_limited", status: 403, retryAfterMs: wait });
    expect(error.message).toBe("GitHub rate limit reached; try again in 42 s. A GitHub token in settings raises the limit from 10 to 30 searches a minute.");
    expect(error.message).not.toContain("192.0.2.10");
    expect(run.governor.reserve("github", wait - 1)).toEqual({ ok: false, retryAfterMs: wait });
  });

  it("words the secondary limit (retry-after), a bad token, a validation error and an outage", async () => {
    expect(failure(await runSource("github", "github/secondary-rate-limit-403.json"))).toMatchObject({ kind: "rate_limited", retryAfterMs: 60_000 });
    const bad = failure(await runSource("github", "github/bad-credentials-401.json", { secrets: { github: GITHUB_TOKEN } }));
    expect(bad).toMatchObject({ kind: "auth", message: "GitHub rejected the token (Bad credentials). Check it in Vault Research settings, or remove it: search works without one." });
    // Words that end a sentence of their own lose that full stop inside our brackets.
    const dotted = scriptedHttp(() => ({ status: 401, headers: { "content-type": "application/json" }, text: JSON.stringify({ message: "Bad credentials." }) }));
    expect(failure(await runSource("github", dotted, { secrets: { github: GITHUB_TOKEN } })).message).toBe("GitHub rejected the token (Bad credentials). Check it in Vault Research settings, or remove it: search works without one.");
    expect(failure(await runSource("github", "github/validation-failed-422.json")).message).toBe("GitHub answered HTTP 422: Validation Failed — q: The search is longer than 256 characters.");
    expect(failure(await runSource("github", "github/unavailable-503.json"))).toMatchObject({ kind: "http", status: 503 });
  });
});
