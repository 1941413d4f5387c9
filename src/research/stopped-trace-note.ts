// A run the user stopped writes no trace note (stages/trace.ts: stop means stop), but its trace is
// in the result, and a user who stopped a long run may still want to keep what it found. This
// writes that trace as a note when the user asks for it afterwards (the panel's "Save trace note"),
// the way a run writes its own: at a free name in the trace folder, never over a file.
import type { NoteStore } from "../ports";
import type { ResearchTrace } from "../evidence/trace-types";
import { createNoteAtFreeName } from "../notes/create-note";
import { renderTraceNote, traceNoteLastResortName, traceNoteName } from "../notes/trace-note";

/** Writes the trace of a stopped run into `folder`; returns the note's path. Throws what the store throws. */
export async function saveStoppedTraceNote(store: Pick<NoteStore, "exists" | "create">, folder: string, trace: ResearchTrace): Promise<string> {
  const kept = asSavedNote(trace);
  return createNoteAtFreeName(store, folder, traceNoteName(kept), renderTraceNote(kept), { lastResortName: traceNoteLastResortName(kept) });
}

/**
 * The trace as its note tells it: the warning that no trace note was written is false once this one
 * is, and a note that says so of itself sends its reader looking for another.
 */
function asSavedNote(trace: ResearchTrace): ResearchTrace {
  const warnings = trace.pack.warnings.filter((w) => w.kind !== "trace_not_written");
  return { ...trace, pack: { ...trace.pack, warnings } };
}
