// HTML lets a page leave out its <html>, <head> and <body> tags, and browsers supply them; linkedom
// does not, and Defuddle found no words in such a page: the CLI and the MCP server called a plain
// article an app shell ("almost no text of its own"). The plugin's DOMParser never had the problem.
import { describe, expect, it } from "vitest";
import { nodePageReader, parseHtmlDocument } from "../../src/cli/dom-parser";
import { readPageHtml } from "../../src/promote/page-extract";

const PARAGRAPH = "Kites fly when the wind is steady and the line is kept taut by the flyer's hand.";
const ARTICLE = `<h1>Kites</h1><p>${PARAGRAPH}</p><p>${PARAGRAPH}</p>`;

describe("nodePageReader over a page that leaves out optional tags", () => {
  const pages: Record<string, string> = {
    "no html, head or body": `<!doctype html><meta charset=utf-8><title>Kites</title>${ARTICLE}`,
    "html without head or body": `<!doctype html><html lang=en dir=ltr><meta charset=utf-8><title>Kites</title>${ARTICLE}</html>`,
    "a head but no body": `<!doctype html><html lang=en><head><title>Kites</title></head>${ARTICLE}</html>`,
    "a body but no html": `<!doctype html><title>Kites</title><body class=post>${ARTICLE}</body>`,
  };

  for (const [shape, html] of Object.entries(pages)) {
    it(`reads the article of a page with ${shape}`, async () => {
      const reading = await nodePageReader(html, "https://kites.example/a");
      expect(reading.markdown).toContain(PARAGRAPH);
      expect(reading.title).toBe("Kites");
      const outcome = await readPageHtml({ html, charset: "utf-8", warnings: [] }, "https://kites.example/a", nodePageReader);
      expect(outcome.kind).toBe("extracted");
    });
  }

  it("keeps the page's language and direction, and its head out of its text", async () => {
    const document = await parseHtmlDocument(pages["html without head or body"]);
    expect(document.documentElement.getAttribute("lang")).toBe("en");
    expect(document.documentElement.getAttribute("dir")).toBe("ltr");
    expect(document.head.querySelector("title")?.textContent).toBe("Kites");
    expect(document.body.querySelector("title")).toBeNull();
    expect(document.body.querySelectorAll("p")).toHaveLength(2);
    expect((await nodePageReader(pages["html without head or body"], "https://kites.example/a")).language).toBe("en");
  });

  it("reads a page of bare text as that text", async () => {
    const reading = await nodePageReader(`${PARAGRAPH} ${PARAGRAPH}`, "https://kites.example/a");
    expect(reading.markdown).toContain(PARAGRAPH);
  });

  it("leaves a page that has all three as linkedom made it", async () => {
    const html = `<!doctype html><html><head><title>Kites</title></head><body>${ARTICLE}</body></html>`;
    const document = await parseHtmlDocument(html);
    expect(document.body.querySelectorAll("p")).toHaveLength(2);
    expect((await nodePageReader(html, "https://kites.example/a")).markdown).toContain(PARAGRAPH);
  });
});
