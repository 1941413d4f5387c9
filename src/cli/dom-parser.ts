// The DOM for Node: linkedom turns page HTML into a Document that Defuddle can read. The plugin
// never loads this file (Obsidian has a real DOMParser), so linkedom stays out of main.js.
// Both are loaded on the first page read, not when the CLI starts: most commands read no page,
// and the two are the heaviest part of the bundle to start up.
import { readingFromDefuddle } from "../promote/defuddle-reader";
import { DEFUDDLE_OPTIONS, type ReadPage } from "../promote/page-extract";
import { checkPageDepth, checkPageWidth } from "../promote/page-depth";

/** Page HTML → a linkedom Document with an `<html>` holding a `<head>` and a `<body>`, as a browser's parser makes. */
export async function parseHtmlDocument(html: string): Promise<Document> {
  const { parseHTML } = await import("linkedom");
  const document = parseHTML(html).document;
  return hasHeadAndBody(document) ? document : withHeadAndBody(document, parseHTML(EMPTY_PAGE).document);
}

const EMPTY_PAGE = "<!doctype html><html><head></head><body></body></html>";

/** Elements a browser puts in `<head>` when they come before the page's first content. */
const HEAD_ELEMENTS = new Set(["base", "link", "meta", "noscript", "script", "style", "template", "title"]);

function hasHeadAndBody(document: Document): boolean {
  const root = document.documentElement;
  if (root?.localName !== "html") return false;
  const names = Array.from(root.children, (child) => child.localName);
  return names.includes("head") && names.includes("body");
}

/**
 * The page's nodes moved into `empty`'s head and body. HTML lets a page leave out its `<html>`,
 * `<head>` and `<body>` tags (a browser supplies them), but linkedom builds no element it was not
 * given: such a page had no body, Defuddle found no words in it, and the CLI called an ordinary
 * article "almost no text of its own". Only the top level is moved, so this is quick at any size.
 */
function withHeadAndBody(page: Document, empty: Document): Document {
  const { documentElement: html, head, body } = empty;
  let inBody = false;
  const copyAttributes = (from: Element, to: Element) => {
    for (const { name, value } of Array.from(from.attributes)) to.setAttribute(name, value);
  };
  const place = (node: ChildNode): void => {
    if (node.nodeType === node.DOCUMENT_TYPE_NODE) return;
    if (node.nodeType !== node.ELEMENT_NODE) {
      // White space and comments before the content stay out of the body's text.
      if (!inBody && (node.nodeType === node.COMMENT_NODE || (node.textContent ?? "").trim() === "")) return;
      inBody = true;
      body.appendChild(node);
      return;
    }
    const element = node as Element;
    const name = element.localName;
    if (name === "html") {
      copyAttributes(element, html);
      Array.from(element.childNodes).forEach(place);
    } else if (name === "head" && !inBody) {
      for (const child of Array.from(element.childNodes)) head.appendChild(child);
    } else if (name === "body") {
      inBody = true;
      copyAttributes(element, body);
      for (const child of Array.from(element.childNodes)) body.appendChild(child);
    } else if (!inBody && HEAD_ELEMENTS.has(name)) {
      head.appendChild(element);
    } else {
      inBody = true;
      body.appendChild(element);
    }
  };
  Array.from(page.childNodes).forEach(place);
  return empty;
}

/**
 * Defuddle over linkedom. Same options as the plugin's reader; the Node build of Defuddle converts
 * to markdown with Turndown's own HTML parser, so no browser globals are needed.
 */
export const nodePageReader: ReadPage = async (html, url) => {
  const [document, { Defuddle }] = await Promise.all([parseHtmlDocument(html), import("defuddle/node")]);
  checkPageDepth(document);
  checkPageWidth(document);
  return readingFromDefuddle(await Defuddle(document, url, { ...DEFUDDLE_OPTIONS }));
};
