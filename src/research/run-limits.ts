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
};
