// Every outside row of a run stays promotable from its trace note, whatever one row brings along:
// a page title of 61,000 characters (Exa, Tavily and SearXNG pass titles through untrimmed) is cut
// when the trace is recorded, and a trace that is still too big keeps each row's essentials.
import { describe, expect, it } from "vitest";
import type { OutsideVaultRow } from "../../src/evidence/research-pack";
import { OUTSIDE_ROW_LIMITS } from "../../src/evidence/trace-bounds";
import type { ResearchTrace, TraceTruncation } from "../../src/evidence/trace-types";
import { renderTraceNote } from "../../src/notes/trace-note";
import { boundTraceJson, TRACE_JSON_MAX_CHARS } from "../../src/notes/trace-note-json";
import { parseTraceNote } from "../../src/notes/trace-note-read";
import { promoteFromTraceNote } from "../../src/promote/promote";
import { TraceRecorder } from "../../src/research/trace-recorder";
import { defaultSettings } from "../../src/settings";
import { fakeClock } from "../support/fake-clock";
import { MemoryNoteStore } from "../support/memory-note-store";
import { outsideRow, pack, vaultRow } from "../support/pack-fixtures";
import { fixedClock, httpAnswering } from "../support/promote-fixtures";

const QUESTION = "what changed in automerge";
const TRACE_PATH = "Research/Traces/automerge.md";

const giant = outsideRow("exa", "https://spam.example.com/page", "Automerge ".repeat(6100), "A page with an endless title.");
const normal = outsideRow("brave", "https://automerge.org/blog/automerge-3/", "Automerge 3", "Lower memory.");

function recordedTrace(rows: OutsideVaultRow[]): ResearchTrace & TraceTruncation {
  const recorder = new TraceRecorder({ question: QUESTION, mode: "always", providers: ["exa", "brave"], freshness: "any", clock: fakeClock() });
  return recorder.finish("enough_evidence", pack(QUESTION, [], rows), { text: "Automerge 3 uses less memory.", kind: "model", verified: true, model: "m" });
}

/** Promotes `row` from the trace note, with every page answering 404 (the note keeps the provider's excerpt). */
async function promoteFromNote(note: string, row: OutsideVaultRow) {
  const store = new MemoryNoteStore({ [TRACE_PATH]: note });
  const http = httpAnswering(async () => ({ status: 404, headers: { "content-type": "text/html" }, text: "Not found" }));
  const readPage = () => Promise.reject(new Error("no page is read in this test"));
  const result = await promoteFromTraceNote({ store, http, clock: fixedClock, settings: defaultSettings(), readPage, updateTraceNote: store.update, tracePath: TRACE_PATH, sourceKey: row.source_key });
  return { result, store };
}

describe("a run with one outside row whose title is 61,000 characters", () => {
  it("lets its normal row be promoted from the trace note read back", async () => {
    const { result } = await promoteFromNote(renderTraceNote(recordedTrace([giant, normal])), normal);
    expect(result, result.message).toMatchObject({ status: "created", traceUpdated: true });
  });

  it("lets the giant row itself be promoted, its title cut where the trace was recorded", async () => {
    const trace = recordedTrace([giant, normal]);
    const kept = trace.pack.external_evidence.find((r) => r.source_key === giant.source_key);
    expect(kept?.title).toMatch(/^Automerge Automerge .*…$/);
    expect(kept?.title.length).toBeLessThanOrEqual(OUTSIDE_ROW_LIMITS.title);
    expect(trace.truncated).toContain(`1 outside-vault titles, addresses or domains cut to ${OUTSIDE_ROW_LIMITS.title}, ${OUTSIDE_ROW_LIMITS.url} and ${OUTSIDE_ROW_LIMITS.domain} characters`);
    const { result } = await promoteFromNote(renderTraceNote(trace), giant);
    expect(result, result.message).toMatchObject({ status: "created", traceUpdated: true });
  });
});

describe("a trace too big for its note, with a giant title no recorder cut", () => {
  // Not from the recorder: 40 long vault rows and a giant title that nothing cut beforehand.
  const base = recordedTrace([normal]);
  const bulky: ResearchTrace = {
    ...base,
    pack: {
      ...base.pack,
      evidence: Array.from({ length: 40 }, (_, i) => vaultRow(`Notes/N${i}.md`, `Note ${"n".repeat(2000)} ${i}`, [{ heading: "H", text: "v".repeat(600) }])),
      external_evidence: [giant, normal],
    },
  };

  it("keeps what promotion needs of every outside row when it drops the evidence rows", () => {
    const { json, truncated } = boundTraceJson(bulky);
    expect(json.length).toBeLessThanOrEqual(TRACE_JSON_MAX_CHARS);
    expect(truncated.join(" ")).toMatch(/vault rows dropped and outside-vault rows cut to what promotion needs/);
    const rows = (JSON.parse(json) as ResearchTrace).pack.external_evidence;
    expect(rows.map((r) => [r.source_key, r.provider, r.url, r.domain])).toEqual([giant, normal].map((r) => [r.source_key, r.provider, r.url, r.domain]));
    expect(rows[0].title).toMatch(/^Automerge Automerge .*…$/);
    expect(rows[0].title.length).toBeLessThanOrEqual(OUTSIDE_ROW_LIMITS.title);
  });

  it("lets each outside row be promoted from the note", async () => {
    const note = renderTraceNote(bulky);
    expect("trace" in parseTraceNote(note)).toBe(true);
    for (const row of [giant, normal]) {
      const { result } = await promoteFromNote(note, row);
      expect(result, result.message).toMatchObject({ status: "created", traceUpdated: true });
    }
  });
});

describe("a trace past the bound even with long strings and lists cut: a map of thousands of keys (a newer version's, or pasted in)", () => {
  const longUrl = (i: number) => `https://docs.example.org/guides/local-first/synchronisation/conflict-free-replicated-data-types/part-${i}`;
  const rows = Array.from({ length: 5 }, (_, i) => outsideRow("brave", longUrl(i), `Part ${i}`, "A part."));
  const promotions = rows.slice(0, 4).map((r, i) => ({ source_key: r.source_key, note_path: `Research/Sources/Part ${i}.md`, at: "2026-03-05T12:00:00.000Z" }));
  const base = recordedTrace(rows);
  const mapped = { ...base, promotions, stage_notes: Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`stage_${i}`, i])) } as ResearchTrace;

  it("keeps every outside row, its address whole, and every promotion recorded", () => {
    const { json } = boundTraceJson(mapped);
    const kept = JSON.parse(json) as ResearchTrace;
    expect(kept.pack.external_evidence.map((r) => r.url)).toEqual(rows.map((r) => r.url));
    expect(kept.promotions).toEqual(promotions);
    expect(kept.run_id).toBe(base.run_id);
  });

  it("lets its last row be promoted from the note, its page asked at its own address", async () => {
    const asked: string[] = [];
    const store = new MemoryNoteStore({ [TRACE_PATH]: renderTraceNote(mapped) });
    const http = httpAnswering(async (req) => {
      asked.push(req.url);
      return { status: 404, headers: { "content-type": "text/html" }, text: "Not found" };
    });
    const readPage = () => Promise.reject(new Error("no page is read in this test"));
    const result = await promoteFromTraceNote({ store, http, clock: fixedClock, settings: defaultSettings(), readPage, updateTraceNote: store.update, tracePath: TRACE_PATH, sourceKey: rows[4].source_key });
    expect(result, result.message).toMatchObject({ status: "created" });
    expect(asked).toEqual([rows[4].url]);
  });
});
