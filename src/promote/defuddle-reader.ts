// Defuddle (the extractor behind Obsidian's Web Clipper) as a ReadPage. This is the browser
// build: its markdown step parses HTML with the window's DOMParser, which Obsidian has on every
// platform. Node has none, so the CLI uses `nodePageReader` (src/cli/dom-parser.ts), which runs
// the same Defuddle code and options over linkedom.
import type { DefuddleResponse } from "defuddle/full";
import { DEFUDDLE_OPTIONS, type PageReading, type ReadPage } from "./page-extract";
import { checkPageDepth, checkPageWidth } from "./page-depth";

/** Turns page HTML into a Document; in Obsidian `new DOMParser().parseFromString(html, "text/html")`. */
export type ParseHtml = (html: string, url: string) => Document;

export function createDefuddleReader(parseHtml: ParseHtml): ReadPage {
  return async (html, url) => {
    // Loaded on first use: Defuddle is most of the plugin's size, and Obsidian (on mobile above
    // all) should not evaluate it at start-up for a feature used now and then.
    const { default: Defuddle } = await import("defuddle/full");
    const document = parseHtml(html, url);
    checkPageDepth(document);
    checkPageWidth(document);
    return readingFromDefuddle(new Defuddle(document, { ...DEFUDDLE_OPTIONS, url }).parse());
  };
}

/** Defuddle's response → the fields promotion uses (strings never undefined). */
export function readingFromDefuddle(result: Pick<DefuddleResponse, "title" | "author" | "published" | "description" | "site" | "language" | "content" | "wordCount">): PageReading {
  return {
    title: result.title ?? "",
    author: result.author ?? "",
    published: result.published ?? "",
    description: result.description ?? "",
    site: result.site ?? "",
    language: result.language ?? "",
    markdown: result.content ?? "",
    wordCount: result.wordCount ?? 0,
  };
}
