// A page met under another address of the same page (http and https, `www.`, `m.`, an AMP copy) is
// still that page: the vault's note keeps it, and the run's two queries make one row of it.
import { describe, expect, it } from "vitest";
import { buildOutsideEvidence } from "../../src/research/stages/outside-evidence";
import { planQuestion } from "../../src/research/stages/plan";
import type { ProviderName } from "../../src/settings";
import { canonicalizeUrl } from "../../src/websearch/canonical-url";
import type { MergedResult } from "../../src/websearch/search-providers";
import { FRESHNESS_QUESTION, sampleVaultHarness } from "../support/research-harness";

const HELLO_NOTE = "Reading/Automerge - Hello (getting started).md";
const options = { count: 5, tokenBudget: 8192, now: Date.UTC(2026, 0, 1) };

/** A web result as the dispatcher merges one query's answers. */
function found(provider: ProviderName, url: string, rank: number): MergedResult {
  const canonicalUrl = canonicalizeUrl(url) ?? url;
  const merge = { value: 1 / rank, normalised: 1 / rank, weight: 1, basis: "rank" as const };
  return { url, canonicalUrl, title: `Page ${rank}`, domain: new URL(url).hostname, snippet: "Automerge release notes.", highlights: [], rank, provider, providerLabel: provider, alsoFoundBy: [], providerRank: rank, merge };
}

describe("the same page under another address", () => {
  it("a note whose source is https://automerge.org/docs/hello/ holds http://www.automerge.org/docs/hello: no outside row", async () => {
    const h = await sampleVaultHarness();
    const outside = await buildOutsideEvidence([found("brave", "http://www.automerge.org/docs/hello", 1)], planQuestion(FRESHNESS_QUESTION), [], h.index, h.store, options);

    expect(outside.rows).toEqual([]);
    expect(outside.decisions).toEqual([{ url: "http://www.automerge.org/docs/hello", provider: "brave", kind: "local_source", note_path: HELLO_NOTE }]);
    expect(outside.vaultRows.find((r) => r.note_path === HELLO_NOTE)?.also_found_by).toEqual(["brave"]);
  });

  it("the mobile edition of a note's page is that note's too", async () => {
    const h = await sampleVaultHarness();
    const outside = await buildOutsideEvidence([found("exa", "https://m.automerge.org/docs/hello/", 1)], planQuestion(FRESHNESS_QUESTION), [], h.index, h.store, options);
    expect(outside.rows).toEqual([]);
    expect(outside.vaultRows.map((r) => r.note_path)).toContain(HELLO_NOTE);
  });

  it("one query's https page and the other's http://www. copy are one row, also found by the second finder", async () => {
    const h = await sampleVaultHarness();
    const results = [found("brave", "https://example.org/post", 1), found("exa", "http://www.example.org/post/", 1)];
    const outside = await buildOutsideEvidence(results, planQuestion(FRESHNESS_QUESTION), [], h.index, h.store, options);

    expect(outside.rows.map((r) => r.url)).toEqual(["https://example.org/post"]);
    expect(outside.rows[0].also_found_by).toEqual(["exa"]);
    expect(outside.decisions).toEqual([{ url: "http://www.example.org/post/", provider: "exa", kind: "duplicate" }]);
  });

  it("when the first query met a lesser address of the page, the row takes the second's: https, not mobile, not AMP, no tracking", async () => {
    const h = await sampleVaultHarness();
    const pairs: [string, string][] = [
      ["http://example.org/post", "https://example.org/post"],
      ["https://m.example.org/post", "https://example.org/post"],
      ["https://example.org/post?amp=1", "https://example.org/post"],
      ["https://example.org/post?utm_source=feed&fbclid=abc", "https://example.org/post"],
    ];
    for (const [lesser, better] of pairs) {
      const outside = await buildOutsideEvidence([found("brave", lesser, 1), found("exa", better, 1)], planQuestion(FRESHNESS_QUESTION), [], h.index, h.store, options);
      expect(outside.rows.map((r) => [r.url, r.domain, r.provider, r.also_found_by])).toEqual([[better, "example.org", "brave", ["exa"]]]);
      expect(outside.decisions).toEqual([{ url: better, provider: "exa", kind: "duplicate" }]);
    }
  });

  it("a first address as good as the second's is kept", async () => {
    const h = await sampleVaultHarness();
    const outside = await buildOutsideEvidence([found("brave", "https://example.org/post", 1), found("exa", "https://m.example.org/post?utm_source=x", 1)], planQuestion(FRESHNESS_QUESTION), [], h.index, h.store, options);
    expect(outside.rows.map((r) => r.url)).toEqual(["https://example.org/post"]);
  });

  it("another page of the same site is not folded", async () => {
    const h = await sampleVaultHarness();
    const results = [found("brave", "https://automerge.org/docs/hello-world/", 1), found("exa", "https://example.org/a", 1), found("exa", "https://example.org/b", 2)];
    const outside = await buildOutsideEvidence(results, planQuestion(FRESHNESS_QUESTION), [], h.index, h.store, options);
    expect(outside.rows).toHaveLength(3);
    expect(outside.decisions).toEqual([]);
  });
});

describe("who else found a page, in the label table's words", () => {
  it("three other finders read as a list, and Brave's two endpoints as one Brave", async () => {
    const h = await sampleVaultHarness();
    const three = { ...found("brave", "https://example.org/post", 1), alsoFoundBy: ["exa", "tavily", "wikipedia"] as ProviderName[] };
    const twoBraves = { ...found("exa", "https://example.org/other", 2), alsoFoundBy: ["brave", "brave-web"] as ProviderName[] };
    const outside = await buildOutsideEvidence([three, twoBraves], planQuestion(FRESHNESS_QUESTION), [], h.index, h.store, options);
    const said = (url: string) => outside.rows.find((r) => r.url === url)?.retrieval.signals.find((s) => s.name === "several_providers")?.detail;

    expect(said("https://example.org/post")).toBe("also found by Exa, Tavily and Wikipedia");
    expect(said("https://example.org/other")).toBe("also found by Brave");
  });
});
