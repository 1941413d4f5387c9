// "Save trace note" for a run the user stopped: the note the run held back, written afterwards.
// What it holds is pinned by a golden file (test/golden/notes/trace-stopped.md): a reader sees the
// run was stopped, and where, before anything else, and no line says the note itself was not written.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { RESEARCH_PACK_VERSION, type PackWarning, type ResearchPack } from "../../src/evidence/research-pack";
import type { NoteStore } from "../../src/ports";
import { RunStopped, StageRunner } from "../../src/research/stage-runner";
import { saveStoppedTraceNote } from "../../src/research/stopped-trace-note";
import { TraceRecorder } from "../../src/research/trace-recorder";
import type { ResearchTrace } from "../../src/research/types";
import { parseTraceNote } from "../../src/notes/trace-note-read";
import { expectGolden } from "../support/golden";
import { fakeClock } from "../support/fake-clock";
import { outsideRow, vaultRow } from "../support/pack-fixtures";

const QUESTION = "What changed in the latest Automerge release?";
const automerge = vaultRow("Research/Automerge.md", "Automerge notes", [{ heading: "Sync protocol", text: "Automerge 2 sync uses bloom filters." }], 9.4);

function memoryStore(): Pick<NoteStore, "exists" | "create"> & { files: Map<string, string> } {
  const files = new Map<string, string>();
  return {
    files,
    exists: async (p) => files.has(p),
    create: async (p, content) => {
      if (files.has(p)) throw new Error(`${p} exists`);
      files.set(p, content);
    },
  };
}

/**
 * A run stopped while it searched the web, its trace as the run returns it: the stage runner's own
 * words for where it stopped, and the warning that it wrote no trace note.
 */
async function stoppedTrace(): Promise<ResearchTrace> {
  const clock = fakeClock();
  const recorder = new TraceRecorder({ question: QUESTION, mode: "always", providers: ["brave"], freshness: "any", clock });
  const stop = new AbortController();
  const stages = new StageRunner({ clock, recorder, totalMs: 60_000, signal: stop.signal });
  await stages.run({ name: "plan", start: "Planning", limitMs: 1000, work: () => clock.advance(1), done: () => "2 search terms" });
  await stages.run({ name: "local_retrieval", start: "Searching the vault", limitMs: 1000, work: () => clock.advance(9), done: () => "1 of 3 notes matched" });
  const stopped = await stages
    .run({
      name: "external_retrieval",
      start: "Searching the web",
      limitMs: 10_000,
      work: (signal) => {
        recorder.querySent("automerge latest release");
        clock.advance(120);
        stop.abort();
        return new Promise((_, reject) => (signal.aborted ? reject(new Error("aborted")) : signal.addEventListener("abort", () => reject(new Error("aborted")))));
      },
      done: () => "",
    })
    .catch((e: unknown) => e);
  if (!(stopped instanceof RunStopped)) throw new Error("the stage did not stop the run");
  const warnings: PackWarning[] = [
    { kind: "cancelled", message: stopped.message },
    { kind: "trace_not_written", message: "The run was stopped, so no trace note was written into the vault." },
  ];
  return recorder.finish("cancelled", packWith(warnings));
}

function packWith(warnings: PackWarning[]): ResearchPack {
  return {
    schema: RESEARCH_PACK_VERSION,
    question: QUESTION,
    query_plan: { question: QUESTION, normalized: QUESTION.toLowerCase(), terms: ["automerge", "release"], required_terms: ["automerge", "release"], context_terms: [], tags: [], phrases: [], freshness: { flagged: true, cues: ["latest"] }, provider_queries: ["automerge latest release"] },
    evidence: [automerge],
    external_evidence: [],
    judge: { verdict: "weak_evidence", reason: "one note mentions Automerge but none covers a release", missing_terms: ["release"] },
    coverage: { local_evidence_count: 1, external_evidence_count: 0, external_by_provider: [], external_freshness: [], recall_note: "Searched 3 notes; 1 matched." },
    warnings,
  };
}

describe("saveStoppedTraceNote", () => {
  it("writes the golden note of a run stopped while it searched the web", async () => {
    const store = memoryStore();
    const written = await saveStoppedTraceNote(store, "Research/Traces", await stoppedTrace());
    expect(written).toMatch(/^Research\/Traces\/\d{4}-\d\d-\d\d \d{4} What changed in the latest Automerge release\.md$/);
    const note = store.files.get(written)!;
    expectGolden(path.resolve(__dirname, "../golden/notes/trace-stopped.md"), note);
    expect(note).toContain("> The run was cancelled during the external retrieval stage.");
    expect(note).not.toContain("no trace note was written");
  });

  it("keeps the note readable for promotion: its JSON block is the trace, less only the warning it made false", async () => {
    const trace = await stoppedTrace();
    const store = memoryStore();
    const read = parseTraceNote(store.files.get(await saveStoppedTraceNote(store, "Research/Traces", trace)) ?? "");
    if (!("trace" in read)) throw new Error(read.error.message);
    const kept = read.trace;
    expect(kept.run_id).toBe(trace.run_id);
    expect(kept.pack.warnings.map((w) => w.kind)).toEqual(["cancelled"]);
  });

  it("never writes over a note: a second save of the same run gets the next free name", async () => {
    const store = memoryStore();
    const trace = await stoppedTrace();
    const first = await saveStoppedTraceNote(store, "Research/Traces", trace);
    const second = await saveStoppedTraceNote(store, "Research/Traces", trace);
    expect(second).toBe(first.replace(/\.md$/, " 2.md"));
    expect(store.files.size).toBe(2);
  });

  it("records the pages added to the vault before it was saved, and none of another run's rows", async () => {
    const trace = await stoppedTrace();
    const page = outsideRow("brave", "https://automerge.org/blog/automerge-3/", "Automerge 3.0", "Lower memory.");
    const withPage: ResearchTrace = { ...trace, pack: { ...trace.pack, external_evidence: [page] } };
    const store = memoryStore();
    const at = "2026-11-30T14:15:00.000Z";
    const written = await saveStoppedTraceNote(store, "Research/Traces", withPage, [
      { source_key: page.source_key, note_path: "Sources/Automerge 3.0.md", at },
      { source_key: "ext:brave:0000000000", note_path: "Sources/Elsewhere.md", at },
    ]);
    const read = parseTraceNote(store.files.get(written)!);
    if (!("trace" in read)) throw new Error(read.error.message);
    expect(read.trace.promotions).toEqual([{ source_key: page.source_key, note_path: "Sources/Automerge 3.0.md", at }]);
    expect(store.files.get(written)).toContain("**Outside vault · Brave · promoted**");
    expect(store.files.get(written)).not.toContain("Elsewhere");
  });
});
