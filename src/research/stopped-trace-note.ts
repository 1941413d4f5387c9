// A run the user stopped writes no trace note (stages/trace.ts: stop means stop), but its trace is
// in the result, and a user who stopped a long run may still want to keep what it found. This
// writes that trace as a note when the user asks for it afterwards (the panel's "Save trace note"),
// the way a run writes its own: at a free name in the trace folder, never over a file.
import type { NoteStore } from "../ports";
import type { ResearchTrace } from "../evidence/trace-types";
import { createNoteAtFreeName } from "../notes/create-note";
import { renderTraceNote, traceNoteLastResortName, traceNoteName, type Promotion } from "../notes/trace-note";

/**
 * Writes the trace of a stopped run into `folder`; returns the note's path. Throws what the store throws.
 * `promotions`: the run's outside rows the user added to the vault before this note existed (no note
 * could record them then); the note says them as the note of a finished run says those made after it.
 */
export async function saveStoppedTraceNote(store: Pick<NoteStore, "exists" | "create">, folder: string, trace: ResearchTrace, promotions: readonly Promotion[] = []): Promise<string> {
  const kept = asSavedNote(trace, promotions);
  return createNoteAtFreeName(store, folder, traceNoteName(kept), renderTraceNote(kept), { lastResortName: traceNoteLastResortName(kept) });
}

/**
 * The trace as its note tells it: the warning that no trace note was written is false once this one
 * is, and a note that says so of itself sends its reader looking for another; a row already promoted
 * is promoted (the last promotion of a row counts, as `recordPromotion` keeps it).
 */
function asSavedNote(trace: ResearchTrace, promotions: readonly Promotion[]): ResearchTrace {
  const warnings = trace.pack.warnings.filter((w) => w.kind !== "trace_not_written");
  const kept: ResearchTrace = { ...trace, pack: { ...trace.pack, warnings } };
  const rows = new Set(trace.pack.external_evidence.map((r) => r.source_key));
  const bySource = new Map((trace.promotions ?? []).map((p) => [p.source_key, p]));
  for (const p of promotions) if (rows.has(p.source_key)) bySource.set(p.source_key, { ...p });
  return bySource.size > 0 ? { ...kept, promotions: [...bySource.values()] } : kept;
}
