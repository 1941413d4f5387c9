// The last stage: the run's trace, and the trace note in the vault when the run or the settings
// ask for one. A note that cannot be written is a warning, never a failed run.
import type { ResearchPack, StopReason } from "../../evidence/research-pack";
import type { ResearchAnswer, ResearchTrace } from "../../evidence/trace-types";
import { renderTraceNote, traceNotePath } from "../../notes/trace-note";
import { errorMessage } from "../../text/error-message";
import { packOf, type RunState } from "../run-state";
import type { ResearchResult } from "../types";

/** The run's result: what `extra` brings (answer, citations, verification), its pack and its trace. */
export async function finishWithTrace(run: RunState, stop: StopReason, extra: Partial<ResearchResult> = {}): Promise<ResearchResult> {
  const pack = packOf(run);
  const writeTrace = run.request.writeTrace ?? run.deps.settings.notes.writeTraceNotes;
  let trace = run.recorder.finish(stop, pack, extra.answer);
  let tracePath: string | undefined;
  if (writeTrace) {
    const written = await writeTraceNote(run, { stop, pack, answer: extra.answer, trace });
    trace = written.trace;
    tracePath = written.path;
  } else {
    run.stages.progress("trace", "skipped", "Trace notes are off for this run");
  }
  const result: ResearchResult = { ...extra, pack: packOf(run), stop_reason: stop, trace };
  if (tracePath) result.trace_path = tracePath;
  return result;
}

interface Ending {
  stop: StopReason;
  pack: ResearchPack;
  answer: ResearchAnswer | undefined;
  /** The trace as finished before the note's name was found. */
  trace: ResearchTrace;
}

async function writeTraceNote(run: RunState, ending: Ending): Promise<{ trace: ResearchTrace; path?: string }> {
  const { deps, recorder, stages } = run;
  stages.progress("trace", "started", "Writing the trace note");
  let trace = ending.trace;
  try {
    const path = await traceNotePath(deps.settings.notes.traceFolder, trace, (p) => deps.store.exists(p));
    // Finished again, so the note's total includes the time spent finding a free name.
    trace = recorder.finish(ending.stop, ending.pack, ending.answer);
    await deps.store.create(path, renderTraceNote(trace));
    stages.progress("trace", "done", `Trace note: ${path}`);
    return { trace, path };
  } catch (error) {
    run.warnings.push({ kind: "trace_not_written", message: `The trace note could not be written: ${errorMessage(error)}` });
    stages.progress("trace", "failed", errorMessage(error));
    return { trace };
  }
}
