// A page nested thousands deep held the CLI and the MCP server for minutes (Defuddle's passes grow
// with depth times size: 2,000 nested divs 15 s) or overflowed the stack; in Obsidian, whose
// DOMParser stops at 512 levels, it held the app about a second. Such a page is refused before the
// extractor sees it, in both readers, and the refusal reads as a page that could not be read.
import { beforeAll, describe, expect, it } from "vitest";
import { nodePageReader, parseHtmlDocument } from "../../src/cli/dom-parser";
import { checkPageDepth, MAX_PAGE_DEPTH, PageTooDeep } from "../../src/promote/page-depth";
import { readPageHtml } from "../../src/promote/page-extract";

const ARTICLE = `<article><h1>Kites</h1><p>${"Kites fly when the wind is steady and the line is kept taut by hand. ".repeat(8)}</p></article>`;

/** A page whose body holds the article and `depth` nested divs (html and body add two levels). */
function nested(depth: number): string {
  return `<!doctype html><html><head><title>Deep</title></head><body>${ARTICLE}${"<div>".repeat(depth)}x${"</div>".repeat(depth)}</body></html>`;
}

/** Parsed once, up front: linkedom is loaded on first use, so parsing is asynchronous. */
const documents = new Map<number, Document>();
const linked = (depth: number): Document => documents.get(depth)!;

describe("a page nested too deep", () => {
  beforeAll(async () => {
    for (const depth of [MAX_PAGE_DEPTH - 2, MAX_PAGE_DEPTH - 1, 50_000]) documents.set(depth, await parseHtmlDocument(nested(depth)));
  });

  it("is measured without recursion, up to the limit and one past it", () => {
    expect(() => checkPageDepth(linked(MAX_PAGE_DEPTH - 2))).not.toThrow();
    expect(() => checkPageDepth(linked(MAX_PAGE_DEPTH - 1))).toThrow(PageTooDeep);
    // Deeper than the stack would allow a recursive walk.
    expect(() => checkPageDepth(linked(50_000))).toThrow(PageTooDeep);
  });

  it("is refused by the CLI's reader before Defuddle runs, and reads as a page that could not be read", async () => {
    await expect(nodePageReader(nested(3_000), "https://deep.example/")).rejects.toBeInstanceOf(PageTooDeep);
    const outcome = await readPageHtml({ html: nested(20_000), charset: "utf-8", warnings: [] }, "https://deep.example/", nodePageReader);
    expect(outcome).toMatchObject({ kind: "unusable", problem: { kind: "extract_failed" } });
    expect(outcome.kind === "unusable" && outcome.message).toMatch(/nested more than 256 deep/);
  });

  it("leaves an ordinary page to the reader", async () => {
    const reading = await nodePageReader(nested(40), "https://deep.example/");
    expect(reading.markdown).toContain("Kites fly when the wind is steady");
  });
});
