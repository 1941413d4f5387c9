// Promoting a page the vault may already hold: a try cut short after its note was written, the
// page under another address (`http`, `www.`), a note the index leaves out (an excluded folder),
// and a trace note that no longer sits in the trace folder. One note per page, and the trace says so.
import { describe, expect, it } from "vitest";
import { nodePageReader } from "../../src/cli/dom-parser";
import { outsideRowsOfTraceNote, promoteFromTraceNote, promoteOutsideRow, type PromoteRowInput } from "../../src/promote/promote";
import { renderTraceNote } from "../../src/notes/trace-note";
import { parseTraceNote } from "../../src/notes/trace-note-read";
import { VaultIndex } from "../../src/index/vault-index";
import { defaultSettings } from "../../src/settings";
import { canonicalizeUrl } from "../../src/websearch/canonical-url";
import { createReplayHttp } from "../../src/websearch/replay";
import { fixedClock, MemoryNoteStore, PAGE_ROWS, recordedPages, recordingHttp, traceWith } from "../support/promote-fixtures";

const TRACE_PATH = "Research/Traces/2026-03-05 1159 How do local-first notes stay readable.md";
const ROW = PAGE_ROWS["plain-article"];
const NOTE_PATH = "Research/Sources/Why local-first notes outlive their apps.md";

function setUp(files: Record<string, string> = {}) {
  const trace = traceWith("How do local-first notes stay readable?", [ROW, PAGE_ROWS.forbidden]);
  const store = new MemoryNoteStore({ [TRACE_PATH]: renderTraceNote(trace), ...files });
  const http = recordingHttp(createReplayHttp(recordedPages(), { sourceName: "fixtures/pages" }));
  const input: PromoteRowInput = { store, http, clock: fixedClock, settings: defaultSettings(), readPage: nodePageReader, updateTraceNote: store.update, row: ROW, trace, tracePath: TRACE_PATH };
  return { store, http, input };
}

async function indexOf(store: MemoryNoteStore, excludedFolders: string[] = []): Promise<VaultIndex> {
  const index = new VaultIndex({ canonicalizeUrl, excludedFolders: ["Research/Traces", ...excludedFolders] });
  await index.sync(store, null);
  return index;
}

function promotionsOf(markdown: string | undefined) {
  const parsed = parseTraceNote(markdown ?? "");
  if ("error" in parsed) throw new Error(parsed.error.message);
  return parsed.trace.promotions ?? [];
}

describe("a promotion cut short after its note was written", () => {
  it("writes no second note on the next try, and the trace note then records the first", async () => {
    const { store, input } = setUp();
    const cutShort = await promoteOutsideRow({
      ...input,
      updateTraceNote: async () => {
        throw new Error("the app was closed");
      },
    });
    expect(cutShort).toMatchObject({ status: "created", notePath: NOTE_PATH, traceUpdated: false });
    expect(promotionsOf(store.text(TRACE_PATH))).toEqual([]);

    const again = await promoteFromTraceNote({ ...input, tracePath: TRACE_PATH, sourceKey: ROW.source_key });
    expect(again).toMatchObject({ status: "already_in_vault", notePath: NOTE_PATH });
    expect(again.message).toContain("The trace note now records it.");
    expect(store.created).toEqual([NOTE_PATH]);
    expect(promotionsOf(store.text(TRACE_PATH))).toEqual([{ source_key: ROW.source_key, note_path: NOTE_PATH, at: "2026-03-05T12:00:00.000Z" }]);
    expect(store.text(TRACE_PATH)).toContain(`saved as [[${NOTE_PATH.replace(/\.md$/, "")}|`);
  });

  it("says why, when the page is already in the vault and the trace note cannot record it either", async () => {
    const { store, input } = setUp();
    const fail = async () => {
      throw new Error("the app was closed");
    };
    await promoteOutsideRow({ ...input, updateTraceNote: fail });
    const again = await promoteFromTraceNote({ ...input, tracePath: TRACE_PATH, sourceKey: ROW.source_key, updateTraceNote: fail });
    expect(again).toMatchObject({ status: "already_in_vault", notePath: NOTE_PATH, traceUpdated: false });
    expect(again.message).toContain("the app was closed");
    expect(store.created).toEqual([NOTE_PATH]);
  });

  it("leaves a trace note that records the promotion already as it is", async () => {
    const { store, input } = setUp();
    await promoteOutsideRow(input);
    const recorded = store.text(TRACE_PATH);
    // An hour later, from the panel, whose trace in memory predates the first promotion.
    const later = { ...fixedClock, now: () => fixedClock.now() + 3_600_000 };
    const again = await promoteOutsideRow({ ...input, clock: later });
    expect(again).toMatchObject({ status: "already_in_vault", notePath: NOTE_PATH });
    expect(again.message).not.toContain("now records");
    expect(store.text(TRACE_PATH)).toBe(recorded);
  });
});

describe("the page already in the vault under another address", () => {
  const clipped = (url: string) => `---\ntitle: My clipping\nsource: ${url}\n---\nMy summary.\n`;
  const other = [
    "http://fieldnotes.example.org/2025/local-first-notes",
    "https://www.fieldnotes.example.org/2025/local-first-notes/",
    "http://www.fieldnotes.example.org/2025/local-first-notes?utm_medium=x",
    "https://m.fieldnotes.example.org/2025/local-first-notes/amp",
  ];

  for (const url of other) {
    it(`is found through the index when a note's source is ${url}`, async () => {
      const { store, http, input } = setUp({ "Clippings/Local-first notes.md": clipped(url) });
      const result = await promoteOutsideRow({ ...input, index: await indexOf(store) });
      expect(result).toMatchObject({ status: "already_in_vault", notePath: "Clippings/Local-first notes.md" });
      expect(http.requests).toHaveLength(0);
      expect(store.created).toEqual([]);
    });
  }

  it("is found by reading the notes when there is no index", async () => {
    const { input } = setUp({ "Clippings/Local-first notes.md": clipped(other[2]) });
    const result = await promoteOutsideRow(input);
    expect(result).toMatchObject({ status: "already_in_vault", notePath: "Clippings/Local-first notes.md" });
  });

  it("is not confused with another site or another path", async () => {
    const { store, input } = setUp({
      "Clippings/a.md": clipped("https://fieldnotes.example.com/2025/local-first-notes"),
      "Clippings/b.md": clipped("https://fieldnotes.example.org/2025/local-first-notes-2"),
      "Clippings/c.md": clipped("https://blog.fieldnotes.example.org/2025/local-first-notes"),
    });
    const result = await promoteOutsideRow({ ...input, index: await indexOf(store) });
    expect(result.status).toBe("created");
  });
});

describe("a note the index leaves out", () => {
  it("is found when the sources folder is excluded from search: a second promotion writes no second note", async () => {
    const { store, input } = setUp();
    const index = await indexOf(store, ["Research/Sources"]);
    const first = await promoteOutsideRow({ ...input, index });
    const second = await promoteOutsideRow({ ...input, index });
    expect(first).toMatchObject({ status: "created", notePath: NOTE_PATH });
    expect(second).toMatchObject({ status: "already_in_vault", notePath: NOTE_PATH });
    expect(store.created).toEqual([NOTE_PATH]);
  });

  it("is found in any excluded folder (a Web Clipper folder kept out of search)", async () => {
    const { store, input } = setUp({ "Clippings/Local-first notes.md": `---\nsource: ${ROW.url}\n---\nclipped\n` });
    const result = await promoteOutsideRow({ ...input, index: await indexOf(store, ["Clippings"]) });
    expect(result).toMatchObject({ status: "already_in_vault", notePath: "Clippings/Local-first notes.md" });
  });
});

describe("a note the index still lists where it no longer is", () => {
  it("is not named as the page's note once trashed: the page is saved again (\"Fetch the page again\")", async () => {
    const { store, input } = setUp({ "Clippings/Local-first notes.md": `---\nsource: ${ROW.url}\n---\nclipped\n` });
    const index = await indexOf(store);
    store.files.delete("Clippings/Local-first notes.md"); // trashed; the index has not caught up yet
    const result = await promoteOutsideRow({ ...input, index });
    expect(result).toMatchObject({ status: "created", notePath: NOTE_PATH });
  });

  it("is found where it was moved to, before the index has caught up: no second note", async () => {
    const { store, input } = setUp({ "Clippings/Local-first notes.md": `---\nsource: ${ROW.url}\n---\nclipped\n` });
    const index = await indexOf(store);
    const moved = store.files.get("Clippings/Local-first notes.md");
    if (!moved) throw new Error("no note to move");
    store.files.delete("Clippings/Local-first notes.md");
    store.files.set("Reading/Local-first notes.md", moved);
    const result = await promoteOutsideRow({ ...input, index });
    expect(result).toMatchObject({ status: "already_in_vault", notePath: "Reading/Local-first notes.md" });
    expect(store.created).toEqual([]);
  });
});

describe("a note the index holds as it was before a change of a moment ago", () => {
  it("is found once it was given the page as its source, before the index has caught up: no second note", async () => {
    const { store, input } = setUp({ "Reading/Local-first notes.md": "---\ntags: [reading]\n---\nNotes on local-first software.\n" });
    const index = await indexOf(store);
    // The user pastes the page's address into the note's properties, then clicks "Add to vault".
    store.files.set("Reading/Local-first notes.md", { text: `---\ntags: [reading]\nsource: ${ROW.url}\n---\nNotes on local-first software.\n`, mtime: 1_800_000_000_000 });
    const result = await promoteOutsideRow({ ...input, index });
    expect(result).toMatchObject({ status: "already_in_vault", notePath: "Reading/Local-first notes.md" });
    expect(store.created).toEqual([]);
  });

  it("is not named as the page's note once its source was taken out: the page is saved", async () => {
    const { store, input } = setUp({ "Reading/Local-first notes.md": `---\nsource: ${ROW.url}\n---\nNotes on local-first software.\n` });
    const index = await indexOf(store);
    store.files.set("Reading/Local-first notes.md", { text: "---\nsource: https://elsewhere.example.org/other\n---\nNotes on something else now.\n", mtime: 1_800_000_000_000 });
    const result = await promoteOutsideRow({ ...input, index });
    expect(result).toMatchObject({ status: "created", notePath: NOTE_PATH });
  });
});

describe("a trace note outside the trace folder", () => {
  it("records the promotion when it was moved (or the setting changed), keeping the user's words", async () => {
    const moved = "Projects/Sync research/Trace of the readability question.md";
    const { store, input } = setUp();
    const written = store.text(TRACE_PATH)!;
    const mine = written.replace("## Answer\n", "## Answer\n\nMy own reading: **check** the [[Field notes app]] plan — kept word for word.\n");
    store.files.delete(TRACE_PATH);
    store.files.set(moved, { text: `${mine}\nAfter the block: my notes.\n`, mtime: 1 });

    const result = await promoteFromTraceNote({ ...input, tracePath: moved, sourceKey: ROW.source_key });
    expect(result).toMatchObject({ status: "created", traceUpdated: true, warnings: [] });
    const after = store.text(moved)!;
    expect(after).toContain("My own reading: **check** the [[Field notes app]] plan — kept word for word.\n");
    expect(after.endsWith("\nAfter the block: my notes.\n")).toBe(true);
    expect(promotionsOf(after).map((p) => p.note_path)).toEqual([NOTE_PATH]);
  });

  it("leaves a note alone whose properties are not the plugin's (a copy of the trace under the user's own properties)", async () => {
    const copy = "Projects/My copy.md";
    const { store, input } = setUp();
    const text = store.text(TRACE_PATH)!.replace("type: research-trace", "type: my-notes");
    store.files.set(copy, { text, mtime: 1 });
    const result = await promoteFromTraceNote({ ...input, tracePath: copy, sourceKey: ROW.source_key });
    expect(result).toMatchObject({ status: "created", traceUpdated: false });
    expect(store.text(copy)).toBe(text);
  });
});

describe("the rows a trace note offers to promote", () => {
  // The picker said "Already saved as [[…]]" and `· promoted` of a note the user had deleted since.
  it("names a row as saved only while its note is still where the trace says, and offers it again once gone", async () => {
    const { store, input } = setUp();
    const first = await promoteOutsideRow(input);
    expect(first.status).toBe("created");
    const savedAs = async () => {
      const listed = await outsideRowsOfTraceNote(store, TRACE_PATH);
      if ("error" in listed) throw new Error(listed.error.message);
      return listed.rows.map((r) => r.promotedTo ?? null);
    };
    expect(await savedAs()).toEqual([NOTE_PATH, null]);
    store.files.delete(NOTE_PATH);
    expect(await savedAs()).toEqual([null, null]);
    const again = await promoteFromTraceNote({ ...input, tracePath: TRACE_PATH, sourceKey: ROW.source_key });
    expect(again).toMatchObject({ status: "created", notePath: NOTE_PATH });
    expect(await savedAs()).toEqual([NOTE_PATH, null]);
  });
});
