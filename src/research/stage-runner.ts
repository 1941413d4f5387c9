// Runs the stages of one research run: progress events for the panel, a timing per stage in the
// trace, each stage under its own time limit (cut shorter by what is left of the run's budget),
// and a stop between stages once the run is cancelled or out of time. A stage that ends, however it
// ends, aborts its work's signal, so a model or provider call it left behind does not go on after it.
//
// A cancel stops the stage within a short grace (`RUN_LIMITS.cancelGraceMs`): work that heeds its
// signal hands back what it has (pages read so far) and the run keeps it; work that does not (a
// store read, a request Obsidian cannot abort) is no longer waited for. Whatever the work then
// throws, the stage ends as cancelled — not as the model's or the provider's failure.
import { DeadlineMissed, describeMs, withDeadline } from "../deadline";
import type { Clock } from "../ports";
import type { ProviderName } from "../settings";
import type { StageEnding, StageName } from "../evidence/trace-types";
import { errorMessage } from "../text/error-message";
import { RUN_LIMITS } from "./run-limits";
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
  /** The stage run last, and whether it was over: where a stopped run says it stopped. */
  private last: { name: StageName; over: boolean } | null = null;

  constructor(private readonly init: StageRunnerInit) {}

  /** The run as cancelled, saying where: "The run was cancelled during the external retrieval stage." */
  cancelled(): RunStopped {
    return new RunStopped("cancelled", `The run was cancelled ${this.where()}.`);
  }

  private where(): string {
    if (!this.last) return "before it began";
    return `${this.last.over ? "after" : "during"} the ${this.last.name.replace(/_/g, " ")} stage`;
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
    if (this.init.signal?.aborted) throw this.cancelled();
    // Counted by the recorder, which a clock set back does not give the spent time back to.
    if (this.init.recorder.elapsed() > this.init.totalMs) throw new RunStopped("timeout", `The run took longer than ${this.init.totalMs / 1000} s; it stopped ${this.where()}.`);
  }

  async run<T>(stage: Stage<T>): Promise<T> {
    const { recorder, signal } = this.init;
    this.checkStop();
    this.progress(stage.name, "started", stage.start);
    recorder.stageStart(stage.name);
    const current = { name: stage.name, over: false };
    this.last = current;
    const controller = new AbortController();
    const cancel = (): void => controller.abort();
    signal?.addEventListener("abort", cancel, { once: true });
    // Stopped since checkStop (a progress listener may stop the run as the stage starts): an aborted
    // signal fires no event, and the work would have run with a live one, requests and model call too.
    if (signal?.aborted) cancel();
    const left = Math.max(1, this.init.totalMs - recorder.elapsed());
    const ms = Math.min(stage.limitMs, left);
    try {
      const value = await this.waitForWork(Promise.resolve().then(() => stage.work(controller.signal)), ms);
      const detail = stage.done(value);
      recorder.stageEnd(stage.name, { detail });
      this.progress(stage.name, stage.outcome?.(value) ?? "done", detail);
      return value;
    } catch (error) {
      const failure = this.failureOf(error, stage, ms, left);
      const stopped = stoppedByUser(failure);
      const ending: StageEnding = stopped ? { stopped: "cancelled" } : { failed: true };
      recorder.stageEnd(stage.name, ending);
      this.progress(stage.name, stopped ? "stopped" : "failed", errorMessage(failure));
      throw failure;
    } finally {
      current.over = true;
      signal?.removeEventListener("abort", cancel);
      // The stage is over: a source given up on by its own deadline, a page still arriving, stop now.
      controller.abort();
    }
  }

  /** The work's value, within `ms`; once the run is cancelled, within the grace, which it may use to hand back what it has. */
  private async waitForWork<T>(work: Promise<T>, ms: number): Promise<T> {
    const { clock, signal } = this.init;
    try {
      return await withDeadline(work, { clock, ms, ...(signal ? { signal } : {}) });
    } catch (error) {
      if (!(error instanceof DeadlineMissed && error.kind === "aborted")) throw error;
      // The work's signal was aborted with the run's; its value, if it comes soon, holds what the stage had.
      return await withDeadline(work, { clock, ms: RUN_LIMITS.cancelGraceMs });
    }
  }

  /** How a stage that threw ends the run: cancelled once the run is, out of time, or its own error. */
  private failureOf(error: unknown, stage: Pick<Stage<unknown>, "name" | "limitMs">, ms: number, left: number): unknown {
    // A cancelled model call or search throws its own kind of error; the run was cancelled, and says so.
    if (this.init.signal?.aborted) return error instanceof RunStopped ? error : this.cancelled();
    if (error instanceof DeadlineMissed) return new StageTimedOut(stage.name, ms, left < stage.limitMs ? this.init.totalMs : undefined);
    return error;
  }
}

/**
 * Whether a stage that threw was stopped by the user, which is no failure: its trace event says
 * `stopped: "cancelled"` and its progress event `stopped`, from this one answer. Out of time is a failure.
 */
function stoppedByUser(failure: unknown): boolean {
  return failure instanceof RunStopped && failure.kind === "cancelled";
}
