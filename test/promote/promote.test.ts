import path from "node:path";
import { describe, expect, it } from "vitest";
import { nodePageReader } from "../../src/cli/dom-parser";
import { promoteFromTraceNote, promoteOutsideRow, type PromoteRowInput } from "../../src/promote/promote";
import { renderTraceNote } from "../../src/notes/trace-note";
import { parseTraceNote } from "../../src/notes/trace-note-read";
import { extractStatusText, parseExtractStatus } from "../../src/notes/extract-status";
import { parseNote } from "../../src/index/markdown";
import { VaultIndex } from "../../src/index/vault-index";
import { HttpFailure } from "../../src/ports";
import { defaultSettings } from "../../src/settings";
import { canonicalizeUrl } from "../../src/websearch/canonical-url";
import { createReplayHttp } from "../../src/websearch/replay";
import {
  fixedClock,
  httpAnswering,
  MemoryNoteStore,
  PAGE_ROWS,
  recordedPages,
  recordingHttp,
  traceWith,
  webRow,
  type PageName,
} from "../support/promote-fixtures";
import { expectGolden } from "../support/golden";

const GOLDEN_DIR = path.resolve(__dirname, "../golden/notes");
const TRACE_PATH = "Research/Traces/2026-03-05 1159 How do local-first notes stay readable.md";
const QUESTION = "How do local-first notes stay readable?";

function setUp(rows = Object.values(PAGE_ROWS), files: Record<string, string> = {}) {
  const trace = traceWith(QUESTION, [...rows]);
  const store = new MemoryNoteStore({ [TRACE_PATH]: renderTraceNote(trace), ...files });
  const http = recordingHttp(createReplayHttp(recordedPages(), { sourceName: "fixtures/pages" }));
  const deps = { store, http, clock: fixedClock, settings: defaultSettings(), readPage: nodePageReader, updateTraceNote: store.update };
  return { trace, store, http, deps };
}

function input(name: PageName, env: ReturnType<typeof setUp>, extra: Partial<PromoteRowInput> = {}): PromoteRowInput {
  return { ...env.deps, row: PAGE_ROWS[name], trace: env.trace, tracePath: TRACE_PATH, ...extra };
}

const EXPECTED_STATUS: Record<PageName, string> = {
  "plain-article": "extracted",
  "tracking-and-scripts": "extracted",
  forbidden: "fallback_snippet:http_403",
  "huge-page": "fallback_snippet:too_large",
  "windows-1251": "extracted",
  "non-latin": "extracted",
  pdf: "pdf_stub",
  "js-only": "link_only:no_readable_text",
};

describe("promoteOutsideRow: the note written from each recorded page", () => {
  for (const name of Object.keys(PAGE_ROWS) as PageName[]) {
    it(`writes the golden source note for the ${name} page (${EXPECTED_STATUS[name]})`, async () => {
      const env = setUp();
      const result = await promoteOutsideRow(input(name, env));
      expect(result.status).toBe("created");
      if (result.status !== "created") return;
      expect(extractStatusText(result.extractStatus)).toBe(EXPECTED_STATUS[name]);
      expect(result.notePath.startsWith("Research/Sources/")).toBe(true);
      const note = await env.store.read(result.notePath);
      expectGolden(path.join(GOLDEN_DIR, `source-note-${name}.md`), note);
    });
  }
});

describe("promoteOutsideRow: the extract_status property", () => {
  it("reads back as the status the promotion returned, for every recorded page", async () => {
    for (const name of Object.keys(PAGE_ROWS) as PageName[]) {
      const env = setUp();
      const result = await promoteOutsideRow(input(name, env));
      if (result.status !== "created") throw new Error(result.message);
      const property = parseNote(result.notePath, await env.store.read(result.notePath)).frontmatter.extract_status;
      expect(parseExtractStatus(String(property)), name).toEqual(result.extractStatus);
    }
  });
});

describe("promoteOutsideRow: what lands in the note", () => {
  it("fetches only the page itself, once, with a timeout and a size cap", async () => {
    const env = setUp();
    await promoteOutsideRow(input("plain-article", env));
    expect(env.http.requests).toHaveLength(1);
    const [req] = env.http.requests;
    expect(req.url).toBe(PAGE_ROWS["plain-article"].url);
    expect(req.method).toBe("GET");
    expect(req.timeoutMs).toBeGreaterThan(0);
    expect(req.maxBytes).toBe(5 * 1024 * 1024);
  });

  it("gives the note Web Clipper properties with the canonical URL as source and a link to the trace", async () => {
    const env = setUp();
    const result = await promoteOutsideRow(input("plain-article", env));
    if (result.status !== "created") throw new Error(result.message);
    const note = await env.store.read(result.notePath);
    const { parseNote } = await import("../../src/index/markdown");
    const fm = parseNote(result.notePath, note).frontmatter;
    expect(fm).toMatchObject({
      title: "Why local-first notes outlive their apps",
      source: "https://fieldnotes.example.org/2025/local-first-notes",
      author: ["Mara Quinn"],
      published: "2025-09-18",
      created: "2026-03-05",
      tags: ["research/source"],
      provider: "brave",
      retrieved: "2026-03-05T12:00:00.000Z",
      query: QUESTION,
      extract_status: "extracted",
      trace: `[[${TRACE_PATH.replace(/\.md$/, "")}]]`,
    });
    expect(note.indexOf("## Provider excerpt")).toBeLessThan(note.indexOf("## Extracted text"));
  });

  it("leaves nothing from a hostile page that could run or reach into the vault", async () => {
    const env = setUp();
    const result = await promoteOutsideRow(input("tracking-and-scripts", env));
    if (result.status !== "created") throw new Error(result.message);
    const note = await env.store.read(result.notePath);
    // What came from the page and the provider; the note's own header line links the trace on purpose.
    const body = note.slice(note.indexOf("## Provider excerpt"));
    expect(body).not.toMatch(/(?<!\\)<(script|iframe|img|button)/i);
    expect(body).not.toMatch(/javascript:|obsidian:\/\/|data:text/i);
    expect(body).not.toMatch(/\bon(click|load|mouseover)=/i);
    expect(body).not.toMatch(/```dataviewjs/);
    expect(body).not.toMatch(/(?<!\\)\[\[/);
    expect(body).not.toMatch(/(?<![\\<])<%/);
    expect(body).not.toMatch(/`\$= dv/);
    expect(body).not.toMatch(/(^|\s)#hashtag/);
    expect(body).not.toMatch(/utm_|fbclid|gclid|ref=sync-article/);
    // The words survive as text.
    expect(body).toContain("Automerge getting-started guide](https://automerge.org/docs/hello)");
    expect(body).toContain("docs.yjs.dev/getting-started/a-collaborative-editor#setup");
    expect(body).toContain("click this link");
  });

  it("says honestly why only the provider's excerpt was kept when the page answers 403", async () => {
    const env = setUp();
    const result = await promoteOutsideRow(input("forbidden", env));
    if (result.status !== "created") throw new Error(result.message);
    expect(result.message).toContain("403");
    const note = await env.store.read(result.notePath);
    expect(note).toContain("61% now ship some form of local-first sync");
    expect(note).not.toContain("Access denied");
  });

  it("falls back to the excerpt when the page does not answer in time", async () => {
    const env = setUp();
    const http = httpAnswering(async () => {
      throw new HttpFailure("timeout", "No answer from research.example.net within 20000 ms.");
    });
    const result = await promoteOutsideRow(input("forbidden", env, { http }));
    expect(result).toMatchObject({ status: "created", extractStatus: { kind: "fallback_snippet", reason: { kind: "timeout" } } });
  });

  it("refuses a page bigger than the cap when the adapter reads it whole", async () => {
    const env = setUp();
    const big = `<html><body><p>${"word ".repeat(300_000)}</p></body></html>`;
    const http = httpAnswering(async () => ({ status: 200, headers: { "content-type": "text/html" }, text: big }));
    const result = await promoteOutsideRow(input("plain-article", env, { http, page: { maxBytes: 1_000_000 } }));
    expect(result).toMatchObject({ status: "created", extractStatus: { kind: "fallback_snippet", reason: { kind: "too_large" } } });
  });

  it("writes nothing when the user cancels during the fetch", async () => {
    const env = setUp();
    const controller = new AbortController();
    const http = httpAnswering(async () => {
      controller.abort();
      throw new HttpFailure("aborted", "The request was cancelled.");
    });
    const before = env.store.files.size;
    const result = await promoteOutsideRow(input("plain-article", env, { http, signal: controller.signal }));
    expect(result).toMatchObject({ status: "failed", error: { kind: "cancelled" } });
    expect(env.store.files.size).toBe(before);
  });
});

describe("promoteOutsideRow: never overwrites", () => {
  it("picks a numbered name when a note of that title exists and leaves the old one untouched", async () => {
    const taken = "Research/Sources/Why local-first notes outlive their apps.md";
    const alsoTaken = "Research/Sources/Why local-first notes outlive their apps 1.md";
    const env = setUp(undefined, { [taken]: "my own note\n", [alsoTaken]: "another\n" });
    const result = await promoteOutsideRow(input("plain-article", env));
    expect(result).toMatchObject({ status: "created", notePath: "Research/Sources/Why local-first notes outlive their apps 2.md" });
    expect(await env.store.read(taken)).toBe("my own note\n");
    expect(await env.store.read(alsoTaken)).toBe("another\n");
  });

  it("tries the next name when another writer takes the free one first", async () => {
    const env = setUp();
    const free = "Research/Sources/Why local-first notes outlive their apps.md";
    const create = env.store.create.bind(env.store);
    let raced = false;
    env.store.create = async (p, content) => {
      if (!raced && p === free) {
        raced = true;
        env.store.files.set(p, { text: "written by someone else\n", mtime: 3 });
      }
      return create(p, content);
    };
    const result = await promoteOutsideRow(input("plain-article", env));
    expect(result).toMatchObject({ status: "created", notePath: "Research/Sources/Why local-first notes outlive their apps 2.md" });
    expect(await env.store.read(free)).toBe("written by someone else\n");
  });

  it("reports a failed write as a failure, not a success", async () => {
    const env = setUp();
    env.store.create = async () => {
      throw new Error("disk full");
    };
    const result = await promoteOutsideRow(input("plain-article", env));
    expect(result).toMatchObject({ status: "failed", error: { kind: "write_failed" } });
    expect(result.message).toContain("disk full");
  });
});

describe("promoteOutsideRow: already in the vault", () => {
  const existing = "Reading/Local-first notes.md";
  const existingText = "---\ntitle: Local-first notes\nsource: https://FieldNotes.example.org/2025/local-first-notes/?utm_campaign=x#top\n---\nMy summary.\n";

  it("finds the note by its source property through the index, fetches nothing and says so", async () => {
    const env = setUp(undefined, { [existing]: existingText });
    const index = new VaultIndex({ canonicalizeUrl, excludedFolders: ["Research/Traces"] });
    await index.sync(env.store, null);
    const result = await promoteOutsideRow(input("plain-article", env, { index }));
    expect(result).toMatchObject({ status: "already_in_vault", notePath: existing });
    expect(result.message).toContain(existing);
    expect(env.http.requests).toHaveLength(0);
    expect(env.store.creates).toBe(0);
  });

  it("finds it by reading the notes' properties when there is no index", async () => {
    const env = setUp(undefined, { [existing]: existingText.replace("source:", "url:") });
    const result = await promoteOutsideRow(input("plain-article", env));
    expect(result).toMatchObject({ status: "already_in_vault", notePath: existing });
    expect(env.http.requests).toHaveLength(0);
  });

  it("a second promotion of the same result finds the note the first one wrote", async () => {
    const env = setUp();
    const index = new VaultIndex({ canonicalizeUrl, excludedFolders: ["Research/Traces"] });
    await index.sync(env.store, null);
    const first = await promoteOutsideRow(input("non-latin", env, { index }));
    const second = await promoteOutsideRow(input("non-latin", env, { index }));
    expect(first.status).toBe("created");
    expect(second).toMatchObject({ status: "already_in_vault", notePath: first.status === "created" ? first.notePath : "" });
  });
});

describe("promoteOutsideRow: afterwards", () => {
  it("indexes the new note at once and records the promotion in the trace note", async () => {
    const env = setUp();
    const index = new VaultIndex({ canonicalizeUrl, excludedFolders: ["Research/Traces"] });
    await index.sync(env.store, null);
    const result = await promoteOutsideRow(input("plain-article", env, { index }));
    if (result.status !== "created") throw new Error(result.message);
    expect(result.traceUpdated).toBe(true);
    expect(index.notesWithSourceUrl("https://fieldnotes.example.org/2025/local-first-notes")).toEqual([result.notePath]);
    const hits = await index.search("notes outlive apps", env.store);
    expect(hits[0]?.path).toBe(result.notePath);

    const parsed = parseTraceNote(await env.store.read(TRACE_PATH));
    if ("error" in parsed) throw new Error(parsed.error.message);
    expect(parsed.trace.promotions).toEqual([
      { source_key: PAGE_ROWS["plain-article"].source_key, note_path: result.notePath, at: "2026-03-05T12:00:00.000Z" },
    ]);
  });

  it("still writes the note when the trace note cannot be updated, and says the trace was not updated", async () => {
    const env = setUp();
    const result = await promoteOutsideRow(input("plain-article", env, { updateTraceNote: undefined }));
    expect(result).toMatchObject({ status: "created", traceUpdated: false });
    if (result.status === "created") expect(result.warnings.join(" ")).toContain("not updated");
  });
});

describe("promoteFromTraceNote", () => {
  it("promotes the row named by its key", async () => {
    const env = setUp();
    const result = await promoteFromTraceNote({ ...env.deps, tracePath: TRACE_PATH, sourceKey: PAGE_ROWS["non-latin"].source_key });
    expect(result).toMatchObject({ status: "created", notePath: "Research/Sources/ローカルファーストなメモ管理.md" });
  });

  it("names the keys the trace does have when the key is unknown", async () => {
    const env = setUp([PAGE_ROWS.forbidden]);
    const result = await promoteFromTraceNote({ ...env.deps, tracePath: TRACE_PATH, sourceKey: "ext:brave:0123456789" });
    expect(result).toMatchObject({ status: "failed", error: { kind: "unknown_source_key" } });
    expect(result.message).toContain(PAGE_ROWS.forbidden.source_key);
  });

  it("says so when the note is missing or is not a trace note", async () => {
    const env = setUp(undefined, { "Notes/plain.md": "# Just a note\n" });
    const missing = await promoteFromTraceNote({ ...env.deps, tracePath: "Research/Traces/nope.md", sourceKey: PAGE_ROWS.pdf.source_key });
    expect(missing).toMatchObject({ status: "failed", error: { kind: "trace_not_found" } });
    const notTrace = await promoteFromTraceNote({ ...env.deps, tracePath: "Notes/plain.md", sourceKey: PAGE_ROWS.pdf.source_key });
    expect(notTrace).toMatchObject({ status: "failed", error: { kind: "trace_unreadable" } });
  });

  it("refuses a row whose address is not a web page", async () => {
    const env = setUp();
    const row = webRow("brave", "https://example.org/x", "x", "y");
    const result = await promoteOutsideRow(input("pdf", env, { row: { ...row, url: "ftp://example.org/file" } }));
    expect(result).toMatchObject({ status: "failed", error: { kind: "not_a_web_page" } });
  });
});

describe("promoteOutsideRow and the secrets its caller knows", () => {
  it("writes a page that holds a known key (here, two words of the page) with the key redacted", async () => {
    const env = setUp();
    const key = "plain files";
    const result = await promoteOutsideRow(input("plain-article", env, { knownSecrets: [key] }));
    if (result.status !== "created") throw new Error(result.message);
    const note = env.store.text(result.notePath)!;
    expect(note).not.toContain(key);
    expect(note).toContain("[redacted]");
  });
});
