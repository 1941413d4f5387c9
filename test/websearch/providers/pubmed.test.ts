import { describe, expect, it } from "vitest";
import { userAgent } from "../../../src/websearch/provider-http";
import { jsonResponse, scriptedHttp } from "../helpers";
import { answer, failure, runSource } from "./source-harness";

describe("PubMed: requests", () => {
  it("esearch finds ids by relevance, then esummary fetches them; both name the tool and wait their turn", async () => {
    const run = await runSource("pubmed", "pubmed/search-clinical-notes.json", { request: { query: "How are collaborative clinical notes merged?", count: 5 } });
    const [search, summary] = run.http.requests;
    const searchUrl = new URL(search.url);
    expect(searchUrl.origin + searchUrl.pathname).toBe("https://eutils.ncbi.nlm.nih.gov/entrez/eutils/esearch.fcgi");
    expect(Object.fromEntries(searchUrl.searchParams)).toEqual({ db: "pubmed", term: "collaborative clinical notes merged", retmax: "5", retmode: "json", sort: "relevance", tool: "vault-research" });
    const summaryUrl = new URL(summary.url);
    expect(summaryUrl.pathname).toBe("/entrez/eutils/esummary.fcgi");
    expect(Object.fromEntries(summaryUrl.searchParams)).toEqual({ db: "pubmed", id: "90000001,90000002", retmode: "json", tool: "vault-research" });
    for (const req of [search, summary]) expect(req.headers).toEqual({ Accept: "application/json", "User-Agent": userAgent });
    // Three calls a second without an API key: the second waits its 350 ms.
    expect(run.clock.sleeps).toEqual([350]);
  });

  it("turns freshness into a publication-date window", async () => {
    const http = scriptedHttp(() => jsonResponse({ esearchresult: { idlist: [] } }));
    await runSource("pubmed", http, { request: { query: "vaccine", count: 3, freshness: "2024-01-01to2024-06-30" } });
    const params = new URL(http.requests[0].url).searchParams;
    expect([params.get("datetype"), params.get("mindate"), params.get("maxdate")]).toEqual(["pdat", "2024/01/01", "2024/06/30"]);
  });

  it("makes no second call when nothing matched", async () => {
    const run = await runSource("pubmed", "pubmed/esearch-empty.json");
    expect(run.http.requests).toHaveLength(1);
    expect(answer(run).warnings).toEqual(["PubMed ignored “the”"]);
  });
});

describe("PubMed: answers", () => {
  it("keeps esearch's order, the article page, authors and journal as signals, and the sortable date", async () => {
    const [first, second] = answer(await runSource("pubmed", "pubmed/search-clinical-notes.json")).results;
    expect(first).toMatchObject({
      url: "https://pubmed.ncbi.nlm.nih.gov/90000001/",
      title: "Offline-first clinical note taking with replicated documents: a sample study.",
      author: "Sample A, Example B, Placeholder C et al.",
      publishedAt: "2024-03-05",
    });
    expect(first.signals).toEqual([
      { kind: "authors", value: ["Sample A", "Example B", "Placeholder C", "Fictional D"] },
      { kind: "journal", value: "Journal of Sample Medical Informatics" },
    ]);
    expect(second.publishedAt).toBe("2023-11-01");
  });

  it("skips an id NCBI could not summarise, and says so", async () => {
    const response = answer(await runSource("pubmed", "pubmed/esummary-missing-uid.json"));
    expect(response.results.map((r) => r.url)).toEqual(["https://pubmed.ncbi.nlm.nih.gov/90000001/"]);
    expect(response.warnings).toContain("1 article without a summary skipped");
  });

  it("words esearch's ERROR and the 429 without repeating the address NCBI puts in it", async () => {
    expect(failure(await runSource("pubmed", "pubmed/esearch-error.json")).message).toBe("PubMed could not run the search: Invalid query: term contains unbalanced parentheses.");
    // Words that end with their own full stop get no second one.
    const dotted = scriptedHttp(() => jsonResponse({ esearchresult: { ERROR: "Empty term and query_key - nothing todo." } }));
    expect(failure(await runSource("pubmed", dotted)).message).toBe("PubMed could not run the search: Empty term and query_key - nothing todo.");
    const limited = failure(await runSource("pubmed", "pubmed/rate-limited-429.json"));
    expect(limited).toMatchObject({ kind: "rate_limited", retryAfterMs: 1000 });
    expect(limited.message).not.toContain("192.0.2.10");
  });
});
