// Runs the stages of one research run: progress events for the panel, a timing per stage in the
// trace, each stage under its own time limit (cut shorter by what is left of the run's budget),
// and a stop between stages once the run is cancelled or out of time. A stage that gives up on
// its work also aborts the work's signal, so a model or provider call does not go on after it.
import { DeadlineMissed, describeMs, withDeadline } from "../deadline";
import type { Clock } from "../ports";
import type { ProviderName } from "../settings";
import type { StageName } from "../evidence/trace-types";
import { errorMessage } from "../text/error-message";
import type { TraceRecorder } from "./trace-recorder";
import type { ProgressEvent } from "./types";

/** The run as a whole ends early: cancelled by the caller, or past its total budget. */
export class RunStopped extends Error {
  constructor(
    readonly kind: "timeout" | "cancelled",
    message: string,
  ) {
    super(message);
    this.name = "RunStopped";
  }
}

export function runCancelled(): RunStopped {
  return new RunStopped("cancelled", "The run was cancelled.");
}

/**
 * One stage ran out of time: its own limit, or what was left of the run's budget (`runMs`, the
 * run's whole budget, when that was the shorter). The run stops, except at synthesis, which falls
 * back to the brief.
 */
export class StageTimedOut extends Error {
  constructor(
    readonly stage: StageName,
    ms: number,
    runMs?: number,
  ) {
    const name = stage.replace(/_/g, " ");
    // Cut short by the run's budget, "took longer than 0 s" would name a limit the stage never had.
    super(runMs === undefined ? `The ${name} stage took longer than ${describeMs(ms)}.` : `The run's time (${describeMs(runMs)} in all) ran out during the ${name} stage.`);
    this.name = "StageTimedOut";
  }
}

export interface Stage<T> {
  name: StageName;
  /** Progress detail as it starts: "Searching the vault". */
  start: string;
  /** The stage's own limit; the run's remaining budget may cut it shorter. */
  limitMs: number;
  /** The work. Its signal aborts when the run is cancelled or the stage runs out of time. */
  work: (signal: AbortSignal) => Promise<T> | T;
  /** Progress detail once done: "12 of 80 notes matched". */
  done: (value: T) => string;
  /** How the finished stage went, when part of its work can fail without throwing (default: done). */
  outcome?: (value: T) => "done" | "partial" | "failed";
}

export interface StageRunnerInit {
  clock: Clock;
  recorder: TraceRecorder;
  /** The run's whole budget, counted from the recorder's start. */
  totalMs: number;
  signal?: AbortSignal;
  onProgress?: (event: ProgressEvent) => void;
}

export class StageRunner {
  private readonly deadline: number;

  constructor(private readonly init: StageRunnerInit) {
    this.deadline = init.recorder.startedAt + init.totalMs;
  }

  /**
   * Every progress text of the run passes here, so here it loses every key the run knows (the
   * recorder's, `text/secret-scrub.ts`): a page, a redirect or a model error that quotes one
   * cannot carry it to the panel.
   */
  progress(stage: StageName, status: ProgressEvent["status"], detail: string, provider?: ProviderName): void {
    const { recorder } = this.init;
    const event: ProgressEvent = { stage, status, detail: recorder.scrub(detail), at: recorder.elapsed() };
    if (provider) event.provider = provider;
    this.init.onProgress?.(event);
  }

  /** Throws `RunStopped` once the run is cancelled or past its budget. */
  checkStop(): void {
    if (this.init.signal?.aborted) throw runCancelled();
    if (this.init.clock.now() > this.deadline) throw new RunStopped("timeout", `The run took longer than ${this.init.totalMs / 1000} s.`);
  }

  async run<T>(stage: Stage<T>): Promise<T> {
    const { clock, recorder, signal } = this.init;
    this.checkStop();
    this.progress(stage.name, "started", stage.start);
    recorder.stageStart(stage.name);
    const controller = new AbortController();
    const cancel = (): void => controller.abort();
    signal?.addEventListener("abort", cancel, { once: true });
    const left = Math.max(1, this.deadline - clock.now());
    const ms = Math.min(stage.limitMs, left);
    try {
      const value = await withDeadline(Promise.resolve().then(() => stage.work(controller.signal)), { clock, ms });
      const detail = stage.done(value);
      recorder.stageEnd(stage.name, { detail });
      this.progress(stage.name, stage.outcome?.(value) ?? "done", detail);
      return value;
    } catch (error) {
      controller.abort();
      const failure = error instanceof DeadlineMissed ? new StageTimedOut(stage.name, ms, left < stage.limitMs ? this.init.totalMs : undefined) : error;
      recorder.stageEnd(stage.name, { failed: true });
      this.progress(stage.name, "failed", errorMessage(failure));
      throw failure;
    } finally {
      signal?.removeEventListener("abort", cancel);
    }
  }
}
