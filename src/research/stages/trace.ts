// The last stage: the run's trace, and the trace note in the vault when the run or the settings
// ask for one and the user did not stop the run. A note that cannot be written is a warning, never
// a failed run (the CLI, which has no one to show the warning to, exits non-zero on it).
// Everything the run returns is scrubbed of the secrets it knows, like the trace itself.
import type { ResearchPack, StopReason } from "../../evidence/research-pack";
import type { ResearchAnswer, ResearchTrace } from "../../evidence/trace-types";
import { createNoteAtFreeName } from "../../notes/create-note";
import { renderTraceNote, traceNoteLastResortName, traceNoteName } from "../../notes/trace-note";
import { errorMessage } from "../../text/error-message";
import { packOf, type RunState } from "../run-state";
import type { ResearchResult } from "../types";

/** The run's result: what `extra` brings (answer, citations, verification), its pack, pages read and trace. */
export async function finishWithTrace(run: RunState, stop: StopReason, extra: Partial<ResearchResult> = {}): Promise<ResearchResult> {
  const { trace, path } = await traceAndNote(run, { stop, pack: packOf(run), answer: extra.answer });
  // A server may have echoed a key into the answer, a title or a warning: the caller's outputs
  // (CLI text and JSON, the panel) get what the trace gets.
  const pages = run.pageReads.length > 0 ? { page_reads: run.pageReads } : {};
  const result: ResearchResult = { ...run.recorder.scrub({ ...extra, ...pages, pack: packOf(run) }), stop_reason: stop, trace };
  if (path) result.trace_path = path;
  return result;
}

const STOPPED_NO_NOTE = "The run was stopped, so no trace note was written into the vault.";

/**
 * The finished trace, and its note when one is asked for. Stop means stop: a run the user stopped
 * (the panel's Stop, a cancelled call) writes nothing more into the vault, however far it got, also
 * when Stop came after its last stage; its trace is still in the result, to show or keep elsewhere.
 */
async function traceAndNote(run: RunState, ending: Ending): Promise<{ trace: ResearchTrace; path?: string }> {
  const { recorder, stages } = run;
  const finished = () => ({ trace: recorder.finish(ending.stop, ending.pack, ending.answer) });
  if (!(run.request.writeTrace ?? run.deps.settings.notes.writeTraceNotes)) {
    stages.progress("trace", "skipped", "Trace notes are off for this run");
    return finished();
  }
  if (!wasStopped(run, ending.stop)) {
    stages.progress("trace", "started", "Writing the trace note");
    // Asked again: whoever hears the progress may stop the run as the note is about to be written.
    if (!wasStopped(run, ending.stop)) return writeTraceNote(run, ending);
  }
  // Said before the trace is finished, so the trace's pack says it too.
  run.warnings.push({ kind: "trace_not_written", message: STOPPED_NO_NOTE });
  stages.progress("trace", "skipped", STOPPED_NO_NOTE);
  return finished();
}

function wasStopped(run: RunState, stop: StopReason): boolean {
  return stop === "cancelled" || run.deps.signal?.aborted === true;
}

interface Ending {
  stop: StopReason;
  pack: ResearchPack;
  answer: ResearchAnswer | undefined;
}

async function writeTraceNote(run: RunState, ending: Ending): Promise<{ trace: ResearchTrace; path?: string }> {
  const { deps, recorder, stages } = run;
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
