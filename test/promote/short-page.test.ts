// A short page is still a page: an <article> of two short paragraphs (17 words) is extracted with
// its author, not dismissed as "no readable text" with only the provider's excerpt kept.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { nodePageReader } from "../../src/cli/dom-parser";
import { fetchAndReadPage, type PageReading } from "../../src/promote/page-extract";
import { promoteOutsideRow } from "../../src/promote/promote";
import { renderTraceNote } from "../../src/notes/trace-note";
import { parseNote } from "../../src/index/markdown";
import { defaultSettings } from "../../src/settings";
import { createReplayHttp } from "../../src/websearch/replay";
import { expectGolden } from "../support/golden";
import { fixedClock, httpAnswering, MemoryNoteStore, recordedPages, traceWith, webRow } from "../support/promote-fixtures";

const GOLDEN = path.resolve(__dirname, "../golden/notes/source-note-short-article.md");
const URL_ = "https://fieldnotes.example.org/2025/relay-retention";
const TRACE_PATH = "Research/Traces/2026-03-05 1159 How long does the relay keep blobs.md";

const reading = (markdown: string, wordCount: number): PageReading => ({ title: "", author: "", published: "", description: "", site: "", language: "", markdown, wordCount });
const html = httpAnswering(async () => ({ status: 200, headers: { "content-type": "text/html" }, text: "<p>x</p>" }));

describe("a short page is still a page", () => {
  it("extracts two short paragraphs of an article (17 words)", async () => {
    const outcome = await fetchAndReadPage(URL_, createReplayHttp(recordedPages()), nodePageReader);
    expect(outcome).toMatchObject({ kind: "extracted", reading: { author: "Noor Haddad", title: "Relay retention, in two sentences" } });
    if (outcome.kind === "extracted") expect(outcome.reading.wordCount).toBeLessThan(25);
  });

  it("still calls a page without one real paragraph unreadable", async () => {
    for (const shell of [reading("Loading…", 1), reading("", 0), reading("Menu\n\nHome\n\nAbout us\n\nLog in", 6)]) {
      expect(await fetchAndReadPage(URL_, html, async () => shell), shell.markdown).toMatchObject({ kind: "unusable", problem: { kind: "no_readable_text" } });
    }
  });

  it("promotes it as extracted text with its author (golden note)", async () => {
    const row = webRow("brave", URL_, "Relay retention", "How long the relay keeps blobs.");
    const trace = traceWith("How long does the relay keep blobs?", [row]);
    const store = new MemoryNoteStore({ [TRACE_PATH]: renderTraceNote(trace) });
    const result = await promoteOutsideRow({
      row,
      trace,
      tracePath: TRACE_PATH,
      store,
      http: createReplayHttp(recordedPages()),
      clock: fixedClock,
      settings: defaultSettings(),
      readPage: nodePageReader,
      updateTraceNote: store.update,
    });
    if (result.status !== "created") throw new Error(result.message);
    expect(result.extractStatus).toEqual({ kind: "extracted" });
    const note = await store.read(result.notePath);
    expect(parseNote(result.notePath, note).frontmatter.author).toEqual(["Noor Haddad"]);
    expectGolden(GOLDEN, note);
  });
});
