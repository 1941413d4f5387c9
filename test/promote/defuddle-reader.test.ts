// @vitest-environment happy-dom
// The plugin's reader: Defuddle's browser build over the window's DOMParser, as in Obsidian.
// It must read a page as the CLI's linkedom reader does, so a note does not depend on where it
// was promoted.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { createDefuddleReader } from "../../src/promote/defuddle-reader";
import { MAX_PAGE_WIDTH, PageTooWide } from "../../src/promote/page-depth";
import { sanitizeExtractedMarkdown } from "../../src/notes/untrusted-markdown";
import { PAGES_DIR } from "../support/promote-fixtures";

const browserReader = createDefuddleReader((html) => new DOMParser().parseFromString(html, "text/html"));

/** A recorded page of fixtures/pages: its address and its HTML. */
const recordedPage = z.object({ url: z.string(), body: z.string() });

function recorded(file: string): { url: string; body: string } {
  return recordedPage.parse(JSON.parse(readFileSync(path.join(PAGES_DIR, file), "utf8")));
}

describe("createDefuddleReader (browser DOM)", () => {
  it("extracts the article as markdown with its metadata", async () => {
    const page = recorded("01-plain-article.json");
    const reading = await browserReader(page.body, page.url);
    expect(reading.title).toBe("Why local-first notes outlive their apps");
    expect(reading.author).toBe("Mara Quinn");
    expect(reading.markdown).toContain("## Files first");
    expect(reading.markdown).toContain("- Local storage keeps them available offline.");
    expect(reading.markdown).not.toContain("Popular posts");
  });

  // The Node reader cannot run beside it here (Defuddle would mix happy-dom's window with
  // linkedom's elements), so the comparison is with the golden notes the Node reader wrote.
  it("gives the same text as the Node reader did for the golden notes", async () => {
    for (const [file, golden] of [
      ["01-plain-article.json", "source-note-plain-article.md"],
      ["06-non-latin.json", "source-note-non-latin.md"],
      ["05-windows-1251.json", "source-note-windows-1251.md"],
    ]) {
      const page = recorded(file);
      const browser = await browserReader(page.body, page.url);
      const note = readFileSync(path.resolve(__dirname, "../golden/notes", golden), "utf8");
      const extracted = note.slice(note.indexOf("## Extracted text\n\n") + "## Extracted text\n\n".length).trimEnd();
      expect(sanitizeExtractedMarkdown(browser.markdown).markdown, file).toBe(extracted);
    }
  });

  // Defuddle's passes grow with the square of a flat page's width in a browser's DOM too (its
  // code-block reader queries the whole block for each text node), on the thread the user types on.
  it("refuses a page with an element too wide, as the CLI's reader does", async () => {
    const page = `<!doctype html><html><head><title>Wide</title></head><body><p>Kites.</p><pre>${"<a>1</a>\n".repeat(MAX_PAGE_WIDTH / 2 + 1)}</pre></body></html>`;
    await expect(browserReader(page, "https://wide.example/")).rejects.toBeInstanceOf(PageTooWide);
  });
});
