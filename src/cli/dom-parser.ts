// The DOM for Node: linkedom turns page HTML into a Document that Defuddle can read. The plugin
// never loads this file (Obsidian has a real DOMParser), so linkedom stays out of main.js.
import { parseHTML } from "linkedom";
import { Defuddle } from "defuddle/node";
import { readingFromDefuddle } from "../promote/defuddle-reader";
import { DEFUDDLE_OPTIONS, type ReadPage } from "../promote/page-extract";

/** Page HTML → a linkedom Document. */
export function parseHtmlDocument(html: string): Document {
  return parseHTML(html).document;
}

/**
 * Defuddle over linkedom. Same options as the plugin's reader; the Node build of Defuddle converts
 * to markdown with Turndown's own HTML parser, so no browser globals are needed.
 */
export const nodePageReader: ReadPage = async (html, url) => readingFromDefuddle(await Defuddle(parseHtmlDocument(html), url, { ...DEFUDDLE_OPTIONS }));
