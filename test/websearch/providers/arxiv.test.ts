import { describe, expect, it } from "vitest";
import { userAgent } from "../../../src/websearch/provider-http";
import { arxivAbsUrl, arxivSearchQuery } from "../../../src/websearch/providers/arxiv";
import { fakeClock, scriptedHttp } from "../helpers";
import { answer, failure, runSource } from "./source-harness";

const emptyFeed = () => ({ status: 200, headers: { "content-type": "application/atom+xml" }, text: '<feed xmlns="http://www.w3.org/2005/Atom"></feed>' });

describe("arXiv: request", () => {
  it("asks the export API for papers matching every content word, by relevance, for Atom", async () => {
    const http = scriptedHttp(emptyFeed);
    await runSource("arxiv", http, { request: { query: "Which papers describe y-websocket sequence CRDTs?", count: 4 } });
    const url = new URL(http.requests[0].url);
    expect(url.origin + url.pathname).toBe("https://export.arxiv.org/api/query");
    expect(Object.fromEntries(url.searchParams)).toEqual({
      search_query: 'all:papers AND all:describe AND all:"y-websocket" AND all:sequence AND all:CRDTs',
      start: "0",
      max_results: "4",
      sortBy: "relevance",
      sortOrder: "descending",
    });
    expect(http.requests[0].headers).toEqual({ Accept: "application/atom+xml", "User-Agent": userAgent });
  });

  it("turns freshness into a submission-date range", () => {
    const now = fakeClock().now();
    expect(arxivSearchQuery("crdt", { freshness: "pw" }, now)).toBe("all:crdt AND submittedDate:[202602221200 TO 202603011200]");
    expect(arxivSearchQuery("crdt", { freshness: "2024-01-01to2024-12-31" }, now)).toBe("all:crdt AND submittedDate:[202401010000 TO 202412312359]");
  });
});

describe("arXiv: answers", () => {
  it("reads authors, primary category, journal reference and the version-free abstract page", async () => {
    const [survey, storage, peritext] = answer(await runSource("arxiv", "arxiv/query-sequence-crdts.json")).results;
    expect(survey).toMatchObject({
      url: "https://arxiv.org/abs/2409.99901",
      title: "Interleaving in Sequence CRDTs: A Survey of Anomalies & Fixes",
      domain: "arxiv.org",
      author: "A. Sample, B. Example, C. Placeholder et al.",
      publishedAt: "2024-09-30T12:00:00Z",
    });
    expect(survey.snippet).toMatch(/^We compare how sequence CRDTs/);
    expect(survey.signals).toEqual([
      { kind: "authors", value: ["A. Sample", "B. Example", "C. Placeholder", "D. Fictional"] },
      { kind: "category", value: "cs.DC" },
    ]);
    expect(storage.snippet).toContain("where x < y");
    expect(storage.text).toBeUndefined();
    expect(storage.signals).toContainEqual({ kind: "journal", value: "Proceedings of the Sample Workshop on Local-First Software (2025)" });
    // CDATA is text, not markup: the tag-shaped span goes, the ampersand stays.
    expect(peritext.title).toBe("Peritext & friends: rich text on top of a sequence CRDT");
    expect(peritext.snippet).toContain("keep marks attached");
  });

  it("an empty body is said to be empty, not quoted as “”", async () => {
    for (const text of ["", "  \n"]) {
      const empty = failure(await runSource("arxiv", scriptedHttp(() => ({ status: 200, headers: { "content-type": "application/atom+xml" }, text }))));
      expect(empty).toMatchObject({ kind: "parse", message: "arXiv sent an empty answer where an Atom feed was expected." });
    }
  });

  it("words each real error: the error feed's own reason, 'Rate exceeded.' as a rate limit, a web page as not a feed", async () => {
    const refused = failure(await runSource("arxiv", "arxiv/error-400-malformed-query.json"));
    expect(refused).toMatchObject({ kind: "http", status: 400, message: "arXiv refused the query: max_results must be non-negative." });
    // The feed's reason ending with a full stop of its own gets no second one; told on two lines, it is one line.
    const dotted = scriptedHttp(() => ({
      status: 400,
      headers: { "content-type": "application/atom+xml" },
      text: '<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>http://arxiv.org/api/errors#bad</id><title>Error</title><summary>Malformed query.\n  Check the field prefixes.</summary></entry></feed>',
    }));
    expect(failure(await runSource("arxiv", dotted)).message).toBe("arXiv refused the query: Malformed query. Check the field prefixes.");
    expect(failure(await runSource("arxiv", "arxiv/rate-exceeded-503.json"))).toMatchObject({ kind: "rate_limited", retryAfterMs: 3000 });
    expect(failure(await runSource("arxiv", "arxiv/html-200.json")).message).toBe("arXiv did not send an Atom feed: “arXiv is down for maintenance”.");
  });

  // Read as it came, a feed cut off on its way was a search that found nothing, or found fewer
  // papers than it did, with not a word of it.
  it("a feed cut off on its way keeps the papers before the cut and says so; cut before the first, it is a failure", async () => {
    const feed = (text: string) => scriptedHttp(() => ({ status: 200, headers: { "content-type": "application/atom+xml" }, text }));
    const paper = (id: string) => `<entry><id>http://arxiv.org/abs/${id}v1</id><title>Paper ${id}</title><summary>About ${id}.</summary></entry>`;
    const open = '<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>arXiv Query</title>';
    const partly = answer(await runSource("arxiv", feed(`${open}${paper("2101.00001")}${paper("2101.00002").slice(0, 60)}`)));
    expect(partly.results.map((r) => r.url)).toEqual(["https://arxiv.org/abs/2101.00001"]);
    expect(partly.warnings).toContain("arXiv's feed was cut off; only the paper before the cut was read");
    const none = failure(await runSource("arxiv", feed(`${open}${paper("2101.00001").slice(0, 50)}`)));
    expect(none).toMatchObject({ kind: "parse", status: 200 });
    expect(none.message).toMatch(/^arXiv's feed was cut off before its first paper ended \(\d+ characters\); it could not be read\.$/);
    // A feed that ends says nothing of a cut.
    expect(answer(await runSource("arxiv", feed(`${open}${paper("2101.00001")}</feed>`))).warnings).toEqual([]);
  });
});

describe("arXiv: an entry's address", () => {
  const entry = (id: string) => ({ id, title: "", summary: "", authors: [], links: [], categories: [], arxiv: {} });

  it("drops the version as before: after /abs/ and something, on one line, at the end only", () => {
    expect(arxivAbsUrl(entry("http://arxiv.org/abs/2202.12139v2"))).toBe("https://arxiv.org/abs/2202.12139");
    expect(arxivAbsUrl(entry("https://arxiv.org/abs/2202.12139v1v12"))).toBe("https://arxiv.org/abs/2202.12139v1");
    expect(arxivAbsUrl(entry("https://arxiv.org/abs/v2"))).toBe("https://arxiv.org/abs/v2");
    expect(arxivAbsUrl(entry("https://arxiv.org/abs/x\nv2"))).toBe("https://arxiv.org/abs/x\nv2");
    expect(arxivAbsUrl(entry("/abs/a\n/abs/bv3"))).toBe("/abs/a\n/abs/b");
    expect(arxivAbsUrl(entry("https://arxiv.org/pdf/2202.12139v2"))).toBe("https://arxiv.org/pdf/2202.12139v2");
  });

  // As one pattern, each `/abs/` read the address to its end: 20,000 took 0.6 s, and the
  // 400,000 here (2 MB, twice what an arXiv answer may be) some 4 minutes.
  it("reads an address of 400,000 `/abs/` once", () => {
    expect(arxivAbsUrl(entry("/abs/".repeat(400_000)))).toBe("/abs/".repeat(400_000));
    expect(arxivAbsUrl(entry(`${"/abs/".repeat(400_000)}v1`))).toBe("/abs/".repeat(400_000));
  });
});
