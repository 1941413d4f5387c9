// The last stage: the run's trace, and the trace note in the vault when the run or the settings
// ask for one. A note that cannot be written is a warning, never a failed run (the CLI, which
// has no one to show the warning to, exits non-zero on it). Everything the run returns is
// scrubbed of the secrets it knows, like the trace itself.
import type { ResearchPack, StopReason } from "../../evidence/research-pack";
import type { ResearchAnswer, ResearchTrace } from "../../evidence/trace-types";
import { createNoteAtFreeName } from "../../notes/create-note";
import { renderTraceNote, traceNoteLastResortName, traceNoteName } from "../../notes/trace-note";
import { errorMessage } from "../../text/error-message";
import { packOf, type RunState } from "../run-state";
import type { ResearchResult } from "../types";

/** The run's result: what `extra` brings (answer, citations, verification), its pack, pages read and trace. */
export async function finishWithTrace(run: RunState, stop: StopReason, extra: Partial<ResearchResult> = {}): Promise<ResearchResult> {
  const pack = packOf(run);
  const writeTrace = run.request.writeTrace ?? run.deps.settings.notes.writeTraceNotes;
  let trace = run.recorder.finish(stop, pack, extra.answer);
  let tracePath: string | undefined;
  if (writeTrace) {
    const written = await writeTraceNote(run, { stop, pack, answer: extra.answer });
    trace = written.trace;
    tracePath = written.path;
  } else {
    run.stages.progress("trace", "skipped", "Trace notes are off for this run");
  }
  // A server may have echoed a key into the answer, a title or a warning: the caller's outputs
  // (CLI text and JSON, the panel) get what the trace gets.
  const pages = run.pageReads.length > 0 ? { page_reads: run.pageReads } : {};
  const result: ResearchResult = { ...run.recorder.scrub({ ...extra, ...pages, pack: packOf(run) }), stop_reason: stop, trace };
  if (tracePath) result.trace_path = tracePath;
  return result;
}

interface Ending {
  stop: StopReason;
  pack: ResearchPack;
  answer: ResearchAnswer | undefined;
}

async function writeTraceNote(run: RunState, ending: Ending): Promise<{ trace: ResearchTrace; path?: string }> {
  const { deps, recorder, stages } = run;
  stages.progress("trace", "started", "Writing the trace note");
  // Finished again, so the note's total includes the time spent up to the write.
  const trace = recorder.finish(ending.stop, ending.pack, ending.answer);
  try {
    const path = await createNoteAtFreeName(deps.store, deps.settings.notes.traceFolder, traceNoteName(trace), renderTraceNote(trace), {
      lastResortName: traceNoteLastResortName(trace),
    });
    stages.progress("trace", "done", `Trace note: ${path}`);
    return { trace, path };
  } catch (error) {
    const message = recorder.scrub(errorMessage(error));
    run.warnings.push({ kind: "trace_not_written", message: `The trace note could not be written: ${message}` });
    stages.progress("trace", "failed", message);
    return { trace };
  }
}
