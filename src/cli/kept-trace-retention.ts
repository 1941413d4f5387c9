// How many kept traces a vault keeps (kept-trace.ts removes the rest), in numbers and in the words
// help and `promote` say it with. A file of its own: help is in the bin's first chunk, and the
// trace renderer kept-trace.ts needs is not.

/**
 * Each vault's newest `newest` traces whatever their age, and besides those the ones younger than
 * `days` days (a burst of an agent's calls must not take this morning's run), up to `atMost` in all
 * (nor grow the cache without bound). Newest and age by the file's date, which a promotion recorded
 * in the trace renews.
 */
export const KEPT_TRACES = { newest: 500, days: 7, atMost: 2_000 } as const;

/** "each vault's newest 500 traces are kept, and those of the last 7 days up to 2,000; …". */
export function keptTracesWords(): string {
  const { newest, days, atMost } = KEPT_TRACES;
  return `each vault's newest ${newest} traces are kept, and those of the last ${days} days up to ${atMost.toLocaleString("en-US")}; older ones are removed as new ones are kept`;
}
