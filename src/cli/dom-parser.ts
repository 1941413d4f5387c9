// The DOM for Node: linkedom turns page HTML into a Document that Defuddle can read. The plugin
// never loads this file (Obsidian has a real DOMParser), so linkedom stays out of main.js.
// Both are loaded on the first page read, not when the CLI starts: most commands read no page,
// and the two are the heaviest part of the bundle to start up.
import { readingFromDefuddle } from "../promote/defuddle-reader";
import { DEFUDDLE_OPTIONS, type ReadPage } from "../promote/page-extract";
import { checkPageDepth } from "../promote/page-depth";

/** Page HTML → a linkedom Document. */
export async function parseHtmlDocument(html: string): Promise<Document> {
  const { parseHTML } = await import("linkedom");
  return parseHTML(html).document;
}

/**
 * Defuddle over linkedom. Same options as the plugin's reader; the Node build of Defuddle converts
 * to markdown with Turndown's own HTML parser, so no browser globals are needed.
 */
export const nodePageReader: ReadPage = async (html, url) => {
  const [document, { Defuddle }] = await Promise.all([parseHtmlDocument(html), import("defuddle/node")]);
  checkPageDepth(document);
  return readingFromDefuddle(await Defuddle(document, url, { ...DEFUDDLE_OPTIONS }));
};
