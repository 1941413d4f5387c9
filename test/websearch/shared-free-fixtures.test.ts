// Real answers recorded by others (../shared/provider-fixtures, see its SOURCES.md) for Wikipedia,
// Hacker News and arXiv: every one must parse. They are third-party files, so they stay out of the
// repository; without the folder these tests are skipped, and say so.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import type { ProviderName } from "../../src/websearch/types";
import { scriptedHttp, sharedFixtures } from "./helpers";
import { answer, failure, runSource } from "./providers/source-harness";

const sharedPresent = existsSync(sharedFixtures);
if (!sharedPresent) console.warn(`Skipping real Wikipedia, Hacker News and arXiv captures: ${sharedFixtures} is not present.`);

const folders: Record<string, { source: ProviderName; type: string }> = {
  wikipedia: { source: "wikipedia", type: "application/json" },
  hn: { source: "hackernews", type: "application/json" },
  arxiv: { source: "arxiv", type: "application/atom+xml" },
};

/** The list each JSON answer holds its results in (Wikipedia's pages, Hacker News' hits). */
const wikipediaAnswer = z.object({ pages: z.array(z.unknown()) });
const hackerNewsAnswer = z.object({ hits: z.array(z.unknown()) });

describe.skipIf(!sharedPresent)("real recorded answers of the free sources in ../shared/provider-fixtures", () => {
  const read = (file: string): string => readFileSync(path.join(sharedFixtures, file), "utf8");
  const files = sharedPresent ? Object.keys(folders).flatMap((folder) => readdirSync(path.join(sharedFixtures, folder)).map((f) => `${folder}/${f}`)) : [];
  const run = (file: string) => {
    const { source, type } = folders[file.split("/")[0]];
    const status = Number(/error-(\d{3})/.exec(file)?.[1] ?? 200);
    const http = scriptedHttp(() => ({ status, headers: { "content-type": type }, text: read(file) }));
    return runSource(source, http, { request: { query: "q", count: 10 } });
  };

  /** How many results each real answer holds. */
  const available = (file: string): number => {
    const text = read(file);
    if (file.startsWith("arxiv/")) return (text.match(/<entry>/g) ?? []).length;
    const body: unknown = JSON.parse(text);
    return file.startsWith("wikipedia/") ? wikipediaAnswer.parse(body).pages.length : hackerNewsAnswer.parse(body).hits.length;
  };

  it("finds captures for all three sources", () => {
    expect(new Set(files.map((f) => f.split("/")[0]))).toEqual(new Set(Object.keys(folders)));
  });

  for (const file of files.filter((f) => !f.includes("error-"))) {
    it(`${file} parses, every result plain text with a usable URL`, async () => {
      const response = answer(await run(file));
      expect(response.results).toHaveLength(Math.min(10, available(file)));
      for (const result of response.results) {
        expect(result.url).toMatch(/^https?:\/\//);
        expect(result.title).not.toBe("");
        expect(result.title).not.toMatch(/<\/?em>|&#x27;|&amp;/);
        expect(result.snippet ?? "").not.toMatch(/<\/?(em|p|span)>|&#x27;/);
      }
    });
  }

  it("arXiv's error feed for a bad id is an http failure with arXiv's own words", async () => {
    const error = failure(await run("arxiv/error-400-bad-id.xml"));
    expect(error).toMatchObject({ kind: "http", status: 400 });
    expect(error.message).toBe("arXiv refused the query: incorrect id format for abc.");
  });

  it("arXiv: the 2016 feed (per-element namespaces) gives authors, primary category, journal and the version-free page", async () => {
    const [paper] = answer(await run("arxiv/query-del-maestro-checkerboard-2016.xml")).results;
    expect(paper.url).toBe("https://arxiv.org/abs/cond-mat/0603029");
    expect(paper.title).toBe("From stripe to checkerboard order on the square lattice in the presence of quenched disorder");
    expect(paper.publishedAt).toBe("2006-03-02T02:22:45Z");
    expect(paper.signals).toEqual([
      { kind: "authors", value: ["Adrian Del Maestro", "Bernd Rosenow", "Subir Sachdev"] },
      { kind: "category", value: "cond-mat.str-el" },
      { kind: "journal", value: "Phys. Rev. B 74, 024520 (2006)" },
    ]);
  });

  it("arXiv: the 2026 feed (namespaces on <feed>) gives ten papers, each with authors and a category", async () => {
    const results = answer(await run("arxiv/query-testing-max10.xml")).results;
    expect(results[0].url).toBe("https://arxiv.org/abs/2202.12139");
    for (const result of results) {
      expect(result.signals?.find((s) => s.kind === "authors")).toBeDefined();
      expect(result.signals?.find((s) => s.kind === "category")).toBeDefined();
    }
  });

  it("Wikipedia: pages become article addresses, the description is kept as the summary", async () => {
    const results = answer(await run("wikipedia/search-page-linksto-shell.json")).results;
    expect(results[0]).toMatchObject({ url: "https://en.wikipedia.org/wiki/North_Korea", title: "North Korea", summary: "Country in East Asia", domain: "en.wikipedia.org" });
    expect(results[2].snippet).toMatch(/^macOS \(\/ˌmækoʊˈɛs\/ MAK-oh-ESS\)/);
  });

  it("Hacker News: both formats give points and comments; highlight markup never reaches a title", async () => {
    const [yarn] = answer(await run("hn/search-javascript-title-2021.json")).results;
    expect(yarn).toMatchObject({ url: "https://code.facebook.com/posts/1840075619545360", title: "Yarn – A new package manager for JavaScript", author: "cpojer" });
    expect(yarn.signals).toEqual([{ kind: "points", value: 1714 }, { kind: "comments", value: 469 }]);
    const [ask] = answer(await run("hn/search-theoretical-biologist-2024.json")).results;
    expect(ask.url).toBe("https://news.ycombinator.com/item?id=13133437");
    expect(ask.snippet).toMatch(/^I want to map the dynamics of the blogosphere/);
    expect(ask.snippet).toContain("don't know");
  });
});
