// Which of a source's fields are HTML and which are plain text decides what a result says: a
// page's title as Exa, Brave or Hacker News send it is the text itself (the captures in
// ../shared/provider-fixtures carry a bare `&` and `'` in titles, and HTML only in Brave's
// descriptions and Hacker News' story text), so what looks like a tag in it is part of the title.
import { describe, expect, it } from "vitest";
import type { HttpResponse } from "../../src/ports";
import { answer, runSource } from "./providers/source-harness";
import { jsonResponse, scriptedHttp } from "./helpers";

const SECRET = "sk-test-secret-123";
const secrets = { brave: SECRET, exa: SECRET, tavily: SECRET };
const MDN_TITLE = "<dialog>: The Dialog element - HTML | MDN";
const url = "https://developer.mozilla.org/en-US/docs/Web/HTML/Element/dialog";

function always(response: HttpResponse) {
  return scriptedHttp(() => response);
}

describe("titles and descriptions sent as plain text keep what looks like a tag", () => {
  it("Exa, Brave, Hacker News, Tavily and SearXNG keep <dialog> in a page's title", async () => {
    const exa = answer(await runSource("exa", always(jsonResponse({ results: [{ url, title: MDN_TITLE }] })), { secrets }));
    const braveWeb = answer(await runSource("brave-web", always(jsonResponse({ web: { results: [{ url, title: MDN_TITLE, description: "The <strong>&lt;dialog&gt;</strong> element" }] } })), { secrets }));
    const brave = answer(await runSource("brave", always(jsonResponse({ grounding: { generic: [{ url, title: MDN_TITLE, snippets: ["s"] }] }, sources: {} })), { secrets }));
    const hn = answer(await runSource("hackernews", always(jsonResponse({ hits: [{ objectID: "1", title: "Why Vec<T> is faster than LinkedList<T>", url }] }))));
    const tavily = answer(await runSource("tavily", always(jsonResponse({ results: [{ url, title: MDN_TITLE }] })), { secrets }));
    const searxng = answer(await runSource("searxng", always(jsonResponse({ results: [{ url, title: MDN_TITLE }] }))));
    for (const response of [exa, braveWeb, brave, tavily, searxng]) expect(response.results[0].title).toBe(MDN_TITLE);
    expect(hn.results[0].title).toBe("Why Vec<T> is faster than LinkedList<T>");
    // Brave's description is HTML: its decoration goes, its encoded tag is text.
    expect(braveWeb.results[0].snippet).toBe("The <dialog> element");
  });

  it("a GitHub repository's description and a Wikipedia page's description keep theirs", async () => {
    const github = answer(await runSource("github", always(jsonResponse({ items: [{ full_name: "a/grow", html_url: "https://github.com/a/grow", description: "A <textarea> that grows with its text" }] }))));
    expect(github.results[0].snippet).toBe("A <textarea> that grows with its text");
    const wikipedia = answer(await runSource("wikipedia", always(jsonResponse({ pages: [{ key: "Generics", title: "Generics", excerpt: "<span class=\"searchmatch\">Generic</span> programming", description: "Style of typing as List<T> in Java" }] }))));
    expect(wikipedia.results[0].summary).toBe("Style of typing as List<T> in Java");
    expect(wikipedia.results[0].snippet).toBe("Generic programming");
  });

  it("whitespace is still one line, and an entity a source encoded anyway is read once", async () => {
    const exa = answer(await runSource("exa", always(jsonResponse({ results: [{ url, title: "Tom &amp;amp; Jerry:\n  a\tcase &copy study" }] })), { secrets }));
    // One decoding (a site that encoded twice shows `&amp;` as a browser does); `&copy` without its `;` is text.
    expect(exa.results[0].title).toBe("Tom &amp; Jerry: a case &copy study");
  });
});
