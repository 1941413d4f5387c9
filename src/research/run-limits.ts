// Bounds of one research run, whatever the settings say.

export const RUN_LIMITS = {
  /** The whole run, model included. */
  totalMs: 5 * 60_000,
  /** Local stages (plan through merge) are in-memory work; this only guards against a hang. */
  localStageMs: 20_000,
  /** Provider queries per run (one pass). */
  maxQueries: 2,
  /** Outside URLs per run. */
  maxUrls: 10,
  defaultUrls: 5,
  /** Synthesis attempts: the answer and one repair. */
  synthesisAttempts: 2,
  /** Time kept back from the run's end for what follows a stage's slow work (merging, recording). */
  runEndMarginMs: 1000,
  /**
   * After a cancel, how long a stage waits for its work to hand back what it has (pages read so
   * far); work that ignores its signal is then left behind, and Stop is never longer than this.
   */
  cancelGraceMs: 1000,
};

/** How far into the run it is: the trace recorder's count, the one the run's budget is measured in. */
export interface RunTime {
  /** ms since the run started, on the clock's monotonic reading: setting the wall clock, even during a wait, moves it not at all. */
  elapsed(): number;
}

/**
 * The time left to a stage's slow work (web searches, embedding or summarising pages), asked as it
 * goes: `workMs` from now, and never past the run's budget. The work gives up on its own at that
 * time and keeps what it has, rather than meet the stage runner's limit, which throws it all away.
 * Counted on the run's own time, as that limit is: a wall clock set back (a time sync, a laptop
 * waking) gave the work its whole time again, past the limit that then threw its results away.
 */
export function workTimeLeft(run: RunTime, workMs: number): () => number {
  const endsAt = Math.min(run.elapsed() + workMs, RUN_LIMITS.totalMs - RUN_LIMITS.runEndMarginMs);
  return () => endsAt - run.elapsed();
}
