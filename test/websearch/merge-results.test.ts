import { describe, expect, it } from "vitest";
import { canonicalizeUrl } from "../../src/websearch/canonical-url";
import { DEFAULT_SOURCE_WEIGHTS, mergeResults, normalisedScores } from "../../src/websearch/merge-results";
import type { ProviderName, ProviderResponse, ProviderResult, SourceSignal } from "../../src/websearch/types";

function result(url: string, rank: number, extra: Partial<ProviderResult> = {}): ProviderResult {
  return { url, canonicalUrl: url.replace(/\?utm_source=\w+$/, "").replace(/\/$/, ""), title: `page ${url}`, domain: new URL(url).hostname, highlights: [], rank, ...extra };
}
function response(provider: ProviderName, results: ProviderResult[]): ProviderResponse {
  return { provider, endpoint: "search", query: "q", results, warnings: [] };
}

describe("score normalisation per source", () => {
  it("is 1/rank where the source gives no scores", () => {
    expect(normalisedScores([result("https://a.example/", 1), result("https://b.example/", 2), result("https://c.example/", 4)])).toEqual([
      { normalised: 1, basis: "rank" },
      { normalised: 0.5, basis: "rank" },
      { normalised: 0.25, basis: "rank" },
    ]);
  });

  it("averages score/best with 1/rank where it does, so GitHub's flat 1.0 scores still fall with rank", () => {
    const flat = normalisedScores([result("https://a.example/", 1, { score: 1 }), result("https://b.example/", 2, { score: 1 })]);
    expect(flat).toEqual([{ normalised: 1, basis: "score_and_rank" }, { normalised: 0.75, basis: "score_and_rank" }]);
    const spread = normalisedScores([result("https://a.example/", 1, { score: 9 }), result("https://b.example/", 2, { score: 0.9 })]);
    expect(spread[1]).toEqual({ normalised: 0.3, basis: "score_and_rank" });
  });

  it("falls back to rank when only some results have a score", () => {
    expect(normalisedScores([result("https://a.example/", 1, { score: 3 }), result("https://b.example/", 2)]).map((s) => s.basis)).toEqual(["rank", "rank"]);
  });
});

describe("merging sources", () => {
  it("folds the same canonical page into one result that remembers who else found it, with its best score", () => {
    const hn = response("hackernews", [result("https://blog.example.org/post", 1, { signals: [{ kind: "points", value: 40 }] }), result("https://github.com/automerge/automerge?utm_source=hn", 2)]);
    const github = response("github", [result("https://github.com/automerge/automerge", 1, { snippet: "A CRDT library", signals: [{ kind: "stars", value: 5400 }] })]);
    const merged = mergeResults([hn, github]);
    const repo = merged.find((r) => r.canonicalUrl === "https://github.com/automerge/automerge")!;
    expect(repo.provider).toBe("github");
    expect(repo.alsoFoundBy).toEqual(["hackernews"]);
    expect(repo.snippet).toBe("A CRDT library");
    expect(repo.merge).toEqual({ value: 0.9, normalised: 1, weight: 0.9, basis: "rank" });
    expect(merged.map((r) => r.rank)).toEqual([1, 2]);
  });

  it("adds the signals a later finder knew and the first did not", () => {
    const stars: SourceSignal = { kind: "stars", value: 5 };
    const engines: SourceSignal = { kind: "engines", value: ["brave"] };
    const merged = mergeResults([response("github", [result("https://github.com/a/b", 1, { signals: [stars] })]), response("searxng", [result("https://github.com/a/b", 1, { signals: [engines, { kind: "stars", value: 99 }] })])]);
    expect(merged[0].signals).toEqual([stars, engines]);
  });

  it("a first finder that sent no title (named by its domain, as Exa's `title: null` is) takes the later finder's", () => {
    const page = "https://en.wikipedia.org/wiki/Conflict-free_replicated_data_type";
    const exa = response("exa", [result(page, 1, { title: "en.wikipedia.org", domain: "en.wikipedia.org" })]);
    const wiki = response("wikipedia", [result(page, 1, { title: "Conflict-free replicated data type", domain: "en.wikipedia.org" })]);
    expect(mergeResults([exa, wiki])[0]).toMatchObject({ provider: "exa", title: "Conflict-free replicated data type", alsoFoundBy: ["wikipedia"] });
    // A real title is the first finder's to keep, and a later finder's domain is no title.
    const titled = response("brave", [result(page, 1, { title: "CRDT - Wikipedia" })]);
    expect(mergeResults([titled, wiki])[0].title).toBe("CRDT - Wikipedia");
    expect(mergeResults([exa, response("hackernews", [result(page, 1, { title: "en.wikipedia.org", domain: "en.wikipedia.org" })])])[0].title).toBe("en.wikipedia.org");
  });

  it("orders by weight × normalised score: Brave's first (1), Wikipedia's first (0.8), Hacker News' first (0.7), Brave's second (0.5)", () => {
    const brave = response("brave", [result("https://b1.example/", 1), result("https://b2.example/", 2)]);
    const hn = response("hackernews", [result("https://h1.example/", 1)]);
    const wiki = response("wikipedia", [result("https://w1.example/", 1)]);
    expect(mergeResults([hn, wiki, brave]).map((r) => r.url)).toEqual(["https://b1.example/", "https://w1.example/", "https://h1.example/", "https://b2.example/"]);
  });

  it("keeps the interleaved order (1st of each, then 2nd of each) between equal scores", () => {
    const brave = response("brave", [result("https://b1.example/", 1), result("https://b2.example/", 2)]);
    const exa = response("exa", [result("https://e1.example/", 1), result("https://e2.example/", 2)]);
    expect(mergeResults([brave, exa]).map((r) => r.url)).toEqual(["https://b1.example/", "https://e1.example/", "https://b2.example/", "https://e2.example/"]);
  });

  it("documents a default weight for every source", () => {
    for (const [name, weight] of Object.entries(DEFAULT_SOURCE_WEIGHTS)) {
      expect(weight, name).toBeGreaterThan(0);
      expect(weight, name).toBeLessThanOrEqual(1);
    }
  });
});

describe("the same page under another address", () => {
  const at = (url: string, rank = 1): ProviderResult => ({ url, canonicalUrl: canonicalizeUrl(url)!, title: url, domain: new URL(url).hostname, highlights: [], rank });
  const pairs: [string, string][] = [
    ["https://example.com/post", "http://example.com/post"],
    ["https://example.com/post", "https://www.example.com/post/"],
    ["https://example.com/post", "https://example.com/post#comments"],
    ["https://example.com/post", "https://example.com/post?utm_source=hn&utm_medium=rss"],
    ["https://en.wikipedia.org/wiki/CRDT", "https://en.m.wikipedia.org/wiki/CRDT"],
    ["https://example.com/post", "https://m.example.com/post"],
    ["https://www.theguardian.com/tech/crdts", "https://amp.theguardian.com/tech/crdts"],
    ["https://example.com/2024/post/", "https://example.com/2024/post/amp/"],
    ["https://example.com/why-crdts-matter", "https://example.com/why-crdts-matter/amp"],
    ["https://example.com/post", "https://example.com/post?amp=1"],
    ["https://example.com/post", "https://example-com.cdn.ampproject.org/c/s/example.com/post"],
  ];

  it.each(pairs)("%s and %s are one row, labelled by its first finder and also found by the other", (first, second) => {
    const merged = mergeResults([response("brave", [at(first)]), response("hackernews", [at(second)])]);
    expect(merged).toHaveLength(1);
    expect(merged[0]).toMatchObject({ url: first, provider: "brave", providerLabel: "Brave", alsoFoundBy: ["hackernews"] });
  });

  it("tells apart what only looks alike: another path, another meaningful parameter, another site", () => {
    for (const [a, b] of [
      ["https://example.com/post", "https://example.com/posts"],
      ["https://example.com/item?id=1", "https://example.com/item?id=2"],
      ["https://m.example.com/post", "https://n.example.com/post"],
      ["https://example.com/amp-guide", "https://example.com/guide"],
      ["https://example.com/amp/", "https://example.com/"],
      ["https://github.com/acme/amp", "https://github.com/acme"],
      ["https://calc.example/ohms?amp=2", "https://calc.example/ohms?amp=10"],
    ]) {
      expect(mergeResults([response("brave", [at(a)]), response("exa", [at(b)])]), `${a} ${b}`).toHaveLength(2);
    }
  });

  it("keeps the page's own address when its first finder sent the AMP copy, the mobile edition or http", () => {
    for (const [first, second] of [
      ["https://amp.theguardian.com/tech/crdts", "https://www.theguardian.com/tech/crdts"],
      ["https://example-com.cdn.ampproject.org/c/s/example.com/post", "https://example.com/post"],
      ["https://example.com/why-crdts-matter/amp/", "https://example.com/why-crdts-matter"],
      ["https://en.m.wikipedia.org/wiki/CRDT", "https://en.wikipedia.org/wiki/CRDT"],
      ["http://example.com/post", "https://example.com/post"],
    ]) {
      const [row] = mergeResults([response("hackernews", [at(first)]), response("brave", [at(second)])]);
      expect(row, first).toMatchObject({ url: second, canonicalUrl: canonicalizeUrl(second), domain: new URL(second).hostname, provider: "hackernews", alsoFoundBy: ["brave"] });
    }
  });

  it("keeps the clean address when its first finder sent one with click tracking (utm_*, fbclid), and the tracked one when it is all there is", () => {
    const tracked = "https://example.com/post?utm_source=feed&fbclid=IwAR0abc";
    const [row] = mergeResults([response("searxng", [at(tracked)]), response("brave", [at("https://www.example.com/post/")])]);
    expect(row).toMatchObject({ url: "https://www.example.com/post/", provider: "searxng", alsoFoundBy: ["brave"] });
    const [kept] = mergeResults([response("brave", [at("https://example.com/post")]), response("searxng", [at(tracked)])]);
    expect(kept.url).toBe("https://example.com/post");
    const [only] = mergeResults([response("searxng", [at(tracked)])]);
    expect(only.url).toBe(tracked);
  });
});
