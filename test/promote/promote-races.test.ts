// Promotion meeting other writers and odd vaults: the same page promoted twice at once (a double
// click, the panel and the command together), and a note of the same name in another case.
import { describe, expect, it } from "vitest";
import { nodePageReader } from "../../src/cli/dom-parser";
import { promoteOutsideRow, type PromoteRowInput } from "../../src/promote/promote";
import { renderTraceNote } from "../../src/notes/trace-note";
import type { Http } from "../../src/ports";
import { defaultSettings } from "../../src/settings";
import { createReplayHttp } from "../../src/websearch/replay";
import { fixedClock, MemoryNoteStore, PAGE_ROWS, recordedPages, recordingHttp, traceWith } from "../support/promote-fixtures";

const TRACE_PATH = "Research/Traces/2026-03-05 1159 How do local-first notes stay readable.md";
const ROW = PAGE_ROWS["plain-article"];

/** An Http that holds every answer until `release` is called: both promotions are mid-fetch at once. */
function heldHttp(): { http: Http & { requests: unknown[] }; release: () => void } {
  const replay = createReplayHttp(recordedPages(), { sourceName: "fixtures/pages" });
  let release = () => undefined as void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const http = recordingHttp({ request: async (req) => (await gate, replay.request(req)) });
  return { http, release };
}

function setUp(http: Http, files: Record<string, string> = {}): PromoteRowInput & { store: MemoryNoteStore } {
  const trace = traceWith("How do local-first notes stay readable?", [ROW]);
  const store = new MemoryNoteStore({ [TRACE_PATH]: renderTraceNote(trace), ...files });
  return { store, http, clock: fixedClock, settings: defaultSettings(), readPage: nodePageReader, updateTraceNote: store.update, row: ROW, trace, tracePath: TRACE_PATH };
}

describe("promoteOutsideRow: two promotions of one page at once", () => {
  it("writes one note: the second waits for the first and finds it, and fetches nothing", async () => {
    const { http, release } = heldHttp();
    const input = setUp(http);
    const first = promoteOutsideRow(input);
    const second = promoteOutsideRow(input);
    release();
    const results = await Promise.all([first, second]);
    expect(results.map((r) => r.status)).toEqual(["created", "already_in_vault"]);
    expect(input.store.created).toHaveLength(1);
    expect(results[1].status === "already_in_vault" && results[1].notePath).toBe(input.store.created[0]);
    expect(http.requests).toHaveLength(1);
  });

  it("writes one note when the page's http and https rows (two runs' traces) are promoted at once", async () => {
    const { http, release } = heldHttp();
    const input = setUp(http);
    const plain = { ...input, row: { ...ROW, url: ROW.url.replace("https://", "http://www.") } };
    const both = Promise.all([promoteOutsideRow(input), promoteOutsideRow(plain)]);
    release();
    expect((await both).map((r) => r.status)).toEqual(["created", "already_in_vault"]);
    expect(input.store.created).toHaveLength(1);
  });

  it("still promotes two different pages side by side", async () => {
    const { http, release } = heldHttp();
    const input = setUp(http);
    const other = { ...input, row: PAGE_ROWS.forbidden };
    const both = Promise.all([promoteOutsideRow(input), promoteOutsideRow(other)]);
    release();
    expect((await both).map((r) => r.status)).toEqual(["created", "created"]);
    expect(input.store.created).toHaveLength(2);
  });

  it("lets the next promotion of the page run when the first one failed", async () => {
    const input = setUp({ request: async () => Promise.reject(new Error("boom")) });
    input.store.create = async () => {
      throw new Error("EACCES: permission denied");
    };
    const first = await promoteOutsideRow(input);
    expect(first).toMatchObject({ status: "failed", error: { kind: "write_failed" } });
    const again = await promoteOutsideRow(input);
    expect(again).toMatchObject({ status: "failed", error: { kind: "write_failed" } });
  });
});

describe("promoteOutsideRow: a note of the same name in another case", () => {
  it("is left alone, and the page gets the next name (one file on Windows and macOS)", async () => {
    const mine = "Research/Sources/why local-first notes outlive their apps.md";
    const input = setUp(createReplayHttp(recordedPages(), { sourceName: "fixtures/pages" }), { [mine]: "my own note\n" });
    const result = await promoteOutsideRow(input);
    expect(result).toMatchObject({ status: "created", notePath: "Research/Sources/Why local-first notes outlive their apps 2.md" });
    expect(input.store.text(mine)).toBe("my own note\n");
  });
});
