// A page nested thousands deep held the CLI and the MCP server for minutes (Defuddle's passes grow
// with depth times size: 2,000 nested divs 15 s) or overflowed the stack; in Obsidian, whose
// DOMParser stops at 512 levels, it held the app about a second. Such a page is refused before the
// extractor sees it, in both readers, and the refusal reads as a page that could not be read.
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { nodePageReader, parseHtmlDocument } from "../../src/cli/dom-parser";
import { checkMarkupDepth, checkPageDepth, checkPageWidth, MAX_MARKUP_DEPTH, MAX_PAGE_DEPTH, MAX_PAGE_WIDTH, PageTooDeep, PageTooWide } from "../../src/promote/page-depth";
import { readPageHtml, type ReadPage } from "../../src/promote/page-extract";

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
    const outcome = await readPageHtml({ html: nested(900), charset: "utf-8", warnings: [] }, "https://deep.example/", nodePageReader);
    expect(outcome).toMatchObject({ kind: "unusable", problem: { kind: "extract_failed" } });
    expect(outcome.kind === "unusable" && outcome.message).toMatch(/nested more than 256 deep/);
  });

  it("leaves an ordinary page to the reader", async () => {
    const reading = await nodePageReader(nested(40), "https://deep.example/");
    expect(reading.markdown).toContain("Kites fly when the wind is steady");
  });
});

// Parsing is the cost itself: linkedom took seconds over 100,000 nested divs (a 500 kB page), in one
// synchronous call no time limit interrupts, before the parsed page's depth could be checked.
describe("markup nested too deep, before any parser sees it", () => {
  const body = (inner: string) => `<!doctype html><html><head><title>Deep</title></head><body>${ARTICLE}${inner}</body></html>`;
  const refused = (html: string) => () => checkMarkupDepth(html);

  it("is refused without calling the reader, as a page that could not be read", async () => {
    const pagesRead: string[] = [];
    const reader: ReadPage = async (html, url) => {
      pagesRead.push(url);
      return nodePageReader(html, url);
    };
    const outcome = await readPageHtml({ html: body("<div>".repeat(100_000)), charset: "utf-8", warnings: [] }, "https://deep.example/", reader);
    expect(pagesRead).toEqual([]);
    expect(outcome).toMatchObject({ kind: "unusable", problem: { kind: "extract_failed" } });
    expect(outcome.kind === "unusable" && outcome.message).toMatch(/nested more than 1,024 deep/);
  });

  it("counts what a parser nests: unclosed elements, `<div/>`, a quote or slash inside an unquoted value", () => {
    const over = MAX_MARKUP_DEPTH + 1;
    expect(refused(body("<div>".repeat(over)))).toThrow(PageTooDeep);
    expect(refused(body("<b>a".repeat(over)))).toThrow(PageTooDeep);
    expect(refused(body("<div/>".repeat(over)))).toThrow(PageTooDeep);
    expect(refused(body(`<a b=x'>${"<div>".repeat(over)}`))).toThrow(PageTooDeep);
    expect(refused(body(`<svg>${"<g a=/>".repeat(over)}</svg>`))).toThrow(PageTooDeep);
    expect(refused(body(`<noscript>${"<div>".repeat(over)}</noscript>`))).toThrow(PageTooDeep);
    // HTML again inside SVG, or after an SVG closed by its parent's end tag: `<div/>` opens a div there.
    expect(refused(body(`<svg><foreignObject>${"<div/>".repeat(over)}`))).toThrow(PageTooDeep);
    expect(refused(body(`<div><svg></div>${"<div/>".repeat(over)}`))).toThrow(PageTooDeep);
  });

  it("leaves alone an article a browser nests shallowly, however long", () => {
    const many = 5 * MAX_MARKUP_DEPTH;
    const page = body(
      [
        "<div>".repeat(MAX_PAGE_DEPTH - 2) + "</div>".repeat(MAX_PAGE_DEPTH - 2),
        "<p>para".repeat(many),
        `<ul>${"<li>item".repeat(many)}</ul>`,
        `<table>${"<tr><td>a<td>b".repeat(many)}</table>`,
        "<br><img src=a.png><hr/>".repeat(many),
        `<svg>${"<path d='M0 0'/>".repeat(many)}</svg>`,
        `<script>${"document.write('<div>');".repeat(many)}</script>`,
        `<style>${"a>b{}".repeat(many)}</style>`,
        `<!-- ${"<div>".repeat(many)} -->`,
        `<a title="<div> > <div>" href=/x>link</a>`.repeat(many),
      ].join(""),
    );
    expect(refused(page)).not.toThrow();
  });

  it("stops where the text ends inside a tag, a comment or a script, as a parser does", () => {
    expect(refused(body(`<!-- ${"<div>".repeat(5_000)}`))).not.toThrow();
    expect(refused(body(`<script>${"<div>".repeat(5_000)}`))).not.toThrow();
    expect(refused(body(`<a title='${"<div>".repeat(5_000)}`))).not.toThrow();
  });
});

// A flat page held the CLI and the MCP server for minutes: css-select reads a parent's `childNodes`,
// which linkedom rebuilds on every read, for each sibling it matches `… + div` against, and Defuddle's
// code-block reader queries the whole block for each text node. 20,000 sibling divs took 18 s or
// more, 100,000 did not end in 300 s. Such a page is refused before the extractor sees it.
describe("a page too wide", () => {
  /** The article, then a section holding `count` copies of `item` side by side. */
  const wide = (count: number, item = "<div>x</div>") =>
    `<!doctype html><html><head><title>Wide</title></head><body>${ARTICLE}<section>${item.repeat(count)}</section></body></html>`;

  /** Reads of linkedom's `childNodes` from now on: each one builds the whole list again. */
  async function countChildNodesReads(): Promise<() => number> {
    const sample = (await parseHtmlDocument("<p>x</p>")).body;
    let owner: object | null = sample;
    while (owner && !Object.prototype.hasOwnProperty.call(owner, "childNodes")) owner = Object.getPrototypeOf(owner) as object | null;
    const spy = vi.spyOn(owner as { childNodes: NodeListOf<ChildNode> }, "childNodes", "get");
    return () => spy.mock.calls.length;
  }
  afterEach(() => vi.restoreAllMocks());

  /** Parsed once, up front, as the depth tests' pages are. */
  const documents = new Map<string, Document>();
  const linkedWide = (count: number, item = "<div>x</div>") => documents.get(`${count} ${item}`)!;
  beforeAll(async () => {
    for (const [count, item] of [[MAX_PAGE_WIDTH], [MAX_PAGE_WIDTH + 1], [MAX_PAGE_WIDTH / 2, "x<br>"], [MAX_PAGE_WIDTH / 2 + 1, "x<br>"]] as const) {
      documents.set(`${count} ${item ?? "<div>x</div>"}`, await parseHtmlDocument(wide(count, item)));
    }
  });

  it("is measured in nodes, text too, up to the limit and one past it", () => {
    expect(() => checkPageWidth(linkedWide(MAX_PAGE_WIDTH))).not.toThrow();
    expect(() => checkPageWidth(linkedWide(MAX_PAGE_WIDTH + 1))).toThrow(PageTooWide);
    // "x<br>" is two nodes: a text and an element.
    expect(() => checkPageWidth(linkedWide(MAX_PAGE_WIDTH / 2, "x<br>"))).not.toThrow();
    expect(() => checkPageWidth(linkedWide(MAX_PAGE_WIDTH / 2 + 1, "x<br>"))).toThrow(PageTooWide);
  });

  it("is refused by the CLI's reader before Defuddle runs: 100,000 sibling divs, not minutes", async () => {
    const reads = await countChildNodesReads();
    await expect(nodePageReader(wide(100_000), "https://wide.example/")).rejects.toBeInstanceOf(PageTooWide);
    // Putting in the head and body reads a few lists once; Defuddle would read them hundreds of thousands of times.
    expect(reads()).toBeLessThan(10);
  });

  it("reads as a page that could not be read, saying why", async () => {
    const outcome = await readPageHtml({ html: wide(MAX_PAGE_WIDTH + 1), charset: "utf-8", warnings: [] }, "https://wide.example/", nodePageReader);
    expect(outcome).toMatchObject({ kind: "unusable", problem: { kind: "extract_failed" } });
    expect(outcome.kind === "unusable" && outcome.message).toMatch(/more than 10,000 items side by side/);
  });

  it("leaves an article with a long list and a long table to the reader", async () => {
    const items = 1_000;
    const list = `<ol>${"<li>a kite flown in the steady wind</li>".repeat(items)}</ol>`;
    const table = `<table>${"<tr><td>a kite</td><td>flown</td></tr>".repeat(items)}</table>`;
    const page = `<!doctype html><html><head><title>Wide</title></head><body>${ARTICLE.replace("</article>", `${list}${table}</article>`)}</body></html>`;
    const reading = await nodePageReader(page, "https://wide.example/");
    expect(reading.markdown).toContain("Kites fly when the wind is steady");
    expect(reading.markdown).toContain(`${items}. a kite flown in the steady wind`);
    expect(reading.markdown.split("| a kite | flown |").length - 1).toBe(items);
  });
});
