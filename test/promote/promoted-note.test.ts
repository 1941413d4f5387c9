import { describe, expect, it } from "vitest";
import { MAX_AUTHORS, MAX_DESCRIPTION_CHARS, MAX_EXTRACTED_CHARS, MAX_TITLE_CHARS, promotedNote, type NoteOutcome } from "../../src/promote/promoted-note";
import type { PageReading } from "../../src/promote/page-extract";
import { parseNote } from "../../src/index/markdown";
import { renderSourceNote } from "../../src/notes/source-note";
import { FIXED_NOW, traceWith, webRow } from "../support/promote-fixtures";

const row = webRow("brave", "https://example.org/a?utm_source=x", "Row title", "The <strong>provider's</strong> words.");
const reading = (markdown: string, extra: Partial<PageReading> = {}): PageReading => ({
  title: "Page title",
  author: "Ann Lee and Bo Chen; Cy",
  published: "2025-09-18T08:30:00Z",
  description: "d",
  site: "s",
  language: "en",
  markdown,
  wordCount: 400,
  ...extra,
});
const noteOf = (outcome: NoteOutcome, from = row) => promotedNote({ row: from, trace: traceWith("q", [from]), tracePath: null, outcome, retrievedAt: FIXED_NOW });

describe("promotedNote", () => {
  it("takes title, authors and date from the page, and the canonical URL as its source", () => {
    const { note, summary } = noteOf({ kind: "extracted", reading: reading("Body [link](https://x.example/p?utm_source=y#part)."), charset: "utf-8", warnings: [] });
    expect(note).toMatchObject({ title: "Page title", authors: ["Ann Lee", "Bo Chen", "Cy"], published: "2025-09-18", source: "https://example.org/a" });
    expect(note.extractStatus).toEqual({ kind: "extracted" });
    expect(note.extracted).toBe("Body [link](https://x.example/p#part).");
    expect(note.excerpt).toBe("The provider's words.");
    expect(summary).toBe("page text extracted.");
  });

  it("takes the provider's date when the page's names no day (a draft's 0000-00-00), and none when neither does", () => {
    const dated = { ...row, published_at: "2025-09-20T10:00:00Z" };
    const published = (pageDate: string, from = dated) => noteOf({ kind: "extracted", reading: reading("Body.", { published: pageDate }), charset: "utf-8", warnings: [] }, from).note.published;
    expect(published("0000-00-00T00:00:00+00:00")).toBe("2025-09-20");
    expect(published("0001-01-01T00:00:00Z")).toBe("2025-09-20");
    expect(published("2999-01-01")).toBe("2025-09-20");
    expect(published("2027-03-01T00:00:00Z")).toBe("2027-03-01");
    expect(published("0000-00-00 00:00:00", { ...row, published_at: "2026-02-30" })).toBe("");
    expect(renderSourceNote(noteOf({ kind: "extracted", reading: reading("Body.", { published: "0000-00-00" }), charset: "utf-8", warnings: [] }).note)).toContain('published: ""');
  });

  // As `\s*[;,]\s*`, a long run of spaces was read again from each of its spaces: 20,000 took
  // 1 s, and the 1,000,000 here would take some 20 minutes.
  it("splits a page's author of 1,000,000 spaces in one reading, and names as before", () => {
    const authors = (author: string) => noteOf({ kind: "extracted", reading: reading("Body.", { author }), charset: "utf-8", warnings: [] }).note.authors;
    const spaced = authors(`Ann${" ".repeat(1_000_000)}Lee`);
    // The start of each only: a failure's diff of a million spaces would take minutes to print.
    expect(spaced.map((a) => a.slice(0, 10))).toEqual(["Ann…"]);
    expect(authors("Ann ;  ; Bo,Cy and  Di  and Ed;")).toEqual(["Ann", "Bo", "Cy", "Di", "Ed"]);
    expect(authors("Alexander Anderson, band members")).toEqual(["Alexander Anderson", "band members"]);
  });

  // A page's head is as untrusted as its body: 3.6 MB of <title>, <meta name="description"> and
  // <meta name="author"> made a note of 4.2 MB whose properties were a title of 1 MB, a description
  // of 2 MB and 200,000 authors, while its text was cut at 150,000 characters.
  it("keeps a page's title, description and authors to sizes a note's properties can show", () => {
    const huge = reading("Body.", { title: "Title ".repeat(200_000), description: "Words ".repeat(400_000), author: "Ann Lee, ".repeat(200_000) });
    const { note } = noteOf({ kind: "extracted", reading: huge, charset: "utf-8", warnings: [] });
    // Lengths first: a failure's diff of megabytes would take minutes to print.
    expect(note.title.length <= MAX_TITLE_CHARS && note.title.endsWith("Title…")).toBe(true);
    expect(note.description.length <= MAX_DESCRIPTION_CHARS && note.description.endsWith("Words…")).toBe(true);
    expect(note.authors.length).toBe(MAX_AUTHORS);
    expect(note.authors.every((a) => a === "Ann Lee")).toBe(true);
    const longRowTitle = noteOf({ kind: "unusable", problem: { kind: "http_error", status: 403 }, message: "The page answered 403 Forbidden." }, { ...row, title: "x".repeat(100_000) });
    expect(longRowTitle.note.title).toBe(`${"x".repeat(MAX_TITLE_CHARS - 1)}…`);
  });

  it("cuts very long page text at a paragraph and says so", () => {
    const paragraph = `${"word ".repeat(199)}word`;
    const long = Array.from({ length: Math.ceil(MAX_EXTRACTED_CHARS / paragraph.length) + 2 }, () => paragraph).join("\n\n");
    const { note } = noteOf({ kind: "extracted", reading: reading(long), charset: "utf-8", warnings: [] });
    expect(note.extracted!.length).toBeLessThanOrEqual(MAX_EXTRACTED_CHARS);
    expect(note.extracted!.endsWith("word")).toBe(true);
    expect(note.notes).toContain("The page text was cut after 150,000 characters.");
  });

  it("falls back to the provider's excerpt, or keeps only the link when there is none", () => {
    const outcome: NoteOutcome = { kind: "unusable", problem: { kind: "http_error", status: 403 }, message: "The page answered 403 Forbidden." };
    const withExcerpt = noteOf(outcome);
    expect(withExcerpt.note.extractStatus).toEqual({ kind: "fallback_snippet", reason: { kind: "http_error", status: 403 } });
    expect(withExcerpt.note.notes).toEqual(["The page answered 403 Forbidden. Only the provider's excerpt above was kept."]);
    expect(withExcerpt.summary).toBe("provider excerpt only. The page answered 403 Forbidden.");
    const bare = noteOf(outcome, webRow("brave", "https://example.org/b", "", null));
    expect(bare.note.extractStatus).toEqual({ kind: "link_only", reason: { kind: "http_error", status: 403 } });
    expect(bare.note.title).toBe("example.org");
    expect(bare.summary).toBe("link only. The page answered 403 Forbidden.");
  });

  it("keeps a PDF as a stub with the excerpt", () => {
    const { note, summary } = noteOf({ kind: "pdf" });
    expect(note.extractStatus).toEqual({ kind: "pdf_stub" });
    expect(note.extracted).toBeNull();
    expect(summary).toBe("a PDF, saved as a link with the provider's excerpt.");
  });

  it("says a PDF without an excerpt was saved as a link only, not with an excerpt it does not hold", () => {
    const bare = webRow("brave", "https://example.org/paper.pdf", "Paper", null);
    const { note, summary } = noteOf({ kind: "pdf" }, bare);
    expect(note.excerpt).toBeNull();
    expect(summary).toBe("a PDF, saved as a link only (the provider gave no excerpt).");
  });
});

describe("promotedNote: a result of a replayed run", () => {
  const replayedTrace = { ...traceWith("q", [row]), replayed_from: "fixtures/replay/brave-demo" };
  const extracted: NoteOutcome = { kind: "extracted", reading: reading("Body."), charset: "utf-8", warnings: [] };
  const render = (input: Partial<Parameters<typeof promotedNote>[0]>, outcome: NoteOutcome = extracted) => {
    const made = promotedNote({ row, trace: replayedTrace, tracePath: null, outcome, retrievedAt: FIXED_NOW, ...input });
    return { ...made, markdown: renderSourceNote(made.note), properties: parseNote("n.md", renderSourceNote(made.note)).frontmatter };
  };

  it("says in its properties and above its text that the result is a recorded sample, and that its page text was fetched live", () => {
    const { markdown, properties, summary } = render({});
    expect(properties).toMatchObject({ sample: true, replayed_from: "fixtures/replay/brave-demo" });
    expect(properties.page_replayed_from).toBeUndefined();
    expect(markdown).toContain("Found by a recorded sample of Brave's responses during a research run");
    expect(markdown).toContain("> [!note] Recorded sample response, not a live search");
    expect(markdown).toContain("a sample response replayed from recordings in fixtures/replay/brave-demo; nothing was searched on the web.");
    expect(markdown).toContain("were fetched live from the page's address on 2026-03-05: they are not part of the sample.");
    expect(summary).toBe("page text extracted. The note says the result is a recorded sample response, not a live search, and its page text was fetched live.");
  });

  it("calls the page text a sample too when its fetch was replayed", () => {
    const { markdown, properties, summary } = render({ pagesReplayedFrom: "fixtures/replay/brave-demo-pages" });
    expect(properties).toMatchObject({ sample: true, replayed_from: "fixtures/replay/brave-demo", page_replayed_from: "fixtures/replay/brave-demo-pages" });
    expect(markdown).toContain("The page text below was read from recordings in fixtures/replay/brave-demo-pages, not fetched from the site: it is a sample page too.");
    expect(markdown).not.toContain("fetched live");
    expect(summary).toContain("its page text is a recorded sample page");
  });

  it("with no page text kept, claims nothing of a live page", () => {
    const { markdown, properties } = render({ pagesReplayedFrom: "pages" }, { kind: "unusable", problem: { kind: "http_error", status: 403 }, message: "The page answered 403 Forbidden." });
    expect(properties.sample).toBe(true);
    expect(properties.page_replayed_from).toBeUndefined();
    expect(markdown).toContain("No page text was kept, so nothing in this note came from the live web.");
  });

  // The recordings' 403 read as the site's, in a note of a live search that said nothing of samples.
  it("says a failure the recordings answered is theirs, not the site's, and adds nothing to a recording that is missing", () => {
    const forbidden: NoteOutcome = { kind: "unusable", problem: { kind: "http_error", status: 403 }, message: "The page answered 403 Forbidden." };
    const { markdown } = render({ trace: traceWith("q", [row]), pagesReplayedFrom: "fixtures/pages" }, forbidden);
    expect(markdown).toContain("_The page answered 403 Forbidden. Only the provider's excerpt above was kept._\n\n_The page was asked of the recordings in fixtures/pages, not of its site: that answer is theirs._");
    const live = render({ trace: traceWith("q", [row]) }, forbidden);
    expect(live.markdown).not.toContain("recordings");
    const missing = render({ pagesReplayedFrom: "fixtures/pages" }, { kind: "unusable", problem: { kind: "replay_miss" }, message: "No recorded response in fixtures/pages for GET https://example.org/a." });
    expect(missing.note.notes).toEqual(["No recorded response in fixtures/pages for GET https://example.org/a. Only the provider's excerpt above was kept."]);
  });

  it("a replayed page of a live search is a sample page; a live search and a live page say nothing of samples", () => {
    const live = traceWith("q", [row]);
    const pageOnly = render({ trace: live, pagesReplayedFrom: "pages" });
    expect(pageOnly.properties).toMatchObject({ sample: true, page_replayed_from: "pages" });
    expect(pageOnly.properties.replayed_from).toBeUndefined();
    expect(pageOnly.markdown).toContain("> [!note] Recorded sample page, not the live site");
    expect(pageOnly.markdown).toContain("Found by Brave during");
    const none = render({ trace: live });
    expect(none.note.sample).toBeUndefined();
    expect(none.markdown).not.toMatch(/sample/i);
  });

  it("keeps a hostile folder name inert in the callout and the properties", () => {
    const { markdown, properties } = render({ trace: { ...replayedTrace, replayed_from: "[[Secret]]\n> [!danger] #tag" } });
    expect(markdown).not.toContain("[[Secret]]");
    expect(markdown).not.toContain("\n> [!danger]");
    expect(String(properties.replayed_from)).not.toContain("[[");
  });
});
