// The bench's figures from its children's runs, and the targets checked against them. Pure: bench.ts
// runs the children and hands their JSON here. Each time, and each longest slice and block, is the
// least of its runs (noise on a shared machine only ever adds to them); a ratio divides ours' least
// by plain's least. A retained heap is ours' largest run (`retainedHeap`). A size whose measurement
// failed says so, and its targets are null, not false and never true: a target with no figure was
// not met, nor missed.
import { round } from "./bench-tools";

/** A child's JSON, read as it was written. */
export type Figures = Record<string, any>;

/** The run with the least of `figure` (the one whose longest slice is reported, with where it ended). */
export function leastOf(runs: Figures[], figure: (run: Figures) => number): Figures {
  return runs.reduce((best, run) => (figure(run) < figure(best) ? run : best));
}

/** The best (fastest) of several runs of one measurement. */
export function fastest(runs: Figures[]): Figures {
  return leastOf(runs, (run) => run.ms);
}

/**
 * The fastest run of each side and their ratio, every run's time, and the longest slice and block
 * of ours as the least of its runs (noise only adds to them).
 */
export function sideBySide(ours: Figures[], plain: Figures[]): Figures {
  const [o, p] = [fastest(ours), fastest(plain)];
  return {
    ms: o.ms,
    plain_ms: p.ms,
    ratio: round(o.ms / p.ms),
    ours_runs_ms: ours.map((r) => r.ms),
    plain_runs_ms: plain.map((r) => r.ms),
    longest_slice_ms: Math.min(...ours.map((r) => r.longest_slice_ms)),
    longest_slice_in: leastOf(ours, (r) => r.longest_slice_ms).longest_slice_in,
    longest_block_ms: Math.min(...ours.map((r) => r.longest_block_ms)),
    plain_longest_slice_ms: p.longest_slice_ms,
  };
}

/**
 * The first save after each cold index, taken as the other figures are: each side's least time
 * (the ratio divides them), ours' longest slice and block the least of its runs.
 */
export function firstSave(ours: Figures[], plain: Figures[]): Figures {
  const oursSaves = ours.map((r) => r.save as Figures);
  const plainSave = leastOf(plain.map((r) => r.save as Figures), (s) => s.ms);
  const o = leastOf(oursSaves, (s) => s.ms);
  return {
    ...o,
    runs_ms: oursSaves.map((s) => s.ms),
    longest_slice_ms: Math.min(...oursSaves.map((s) => s.longest_slice_ms)),
    longest_slice_in: leastOf(oursSaves, (s) => s.longest_slice_ms).longest_slice_in,
    longest_block_ms: Math.min(...oursSaves.map((s) => s.longest_block_ms)),
    plain_ms: plainSave.ms,
    plain_megabytes: plainSave.megabytes,
    plain_longest_slice_ms: plainSave.longest_slice_ms,
    ratio: round(o.ms / plainSave.ms),
  };
}

/**
 * The heap each side retains after its cold index, over all its runs: ours' largest against plain's
 * least. Unlike a time, a larger heap is no noise (how far the vault's language had got when it was
 * taken, say), and a run whose heap passed the line is one a user can meet; the first run's alone
 * was reported, whichever it was.
 */
export function retainedHeap(ours: Figures[], plain: Figures[]): Figures {
  const [o, p] = [Math.max(...ours.map((r) => r.heap_mb)), Math.min(...plain.map((r) => r.heap_mb))];
  return { ours: o, plain: p, ratio: round(o / p), ours_runs_mb: ours.map((r) => r.heap_mb), plain_runs_mb: plain.map((r) => r.heap_mb), taken: "ours' largest run against plain's least" };
}

/** Cold indexes of each side (each run in its own process) and the first save after each. */
export function coldFigures(ours: Figures[], plain: Figures[]): Figures {
  const [o, p] = [fastest(ours), fastest(plain)];
  return {
    notes: o.notes,
    megabytes: o.megabytes,
    cold_index: sideBySide(ours, plain),
    heap_mb: retainedHeap(ours, plain),
    save: firstSave(ours, plain),
    peak_rss_mb: { cold_index_and_save: { ours: o.peak_rss_mb, plain: p.peak_rss_mb } },
    // Learned behind the ready index, after the build measured above: its own figures, no baseline.
    vault_language_learning: {
      runs_ms: ours.map((r) => r.vault_language.learn_ms),
      heap_mb_after: Math.max(...ours.map((r) => r.vault_language.heap_mb_after)),
      longest_slice_ms: Math.min(...ours.map((r) => r.vault_language.longest_slice_ms)),
      longest_slice_in: leastOf(ours, (r) => r.vault_language.longest_slice_ms).vault_language.longest_slice_in,
      longest_block_ms: Math.min(...ours.map((r) => r.vault_language.longest_block_ms)),
    },
  };
}

/** Warm starts of each side, each in a fresh process. */
export function warmFigures(ours: Figures[], plain: Figures[]): Figures {
  const [o, p] = [fastest(ours), fastest(plain)];
  return {
    ...sideBySide(ours, plain),
    heap_mb: o.heap_mb,
    plain_heap_mb: p.heap_mb,
    peak_rss_mb: o.peak_rss_mb,
    plain_peak_rss_mb: p.peak_rss_mb,
    // The notes' vault-language vectors, taken back from their parts behind the ready index.
    vault_language_fill_ms: ours.map((r) => r.vault_language.fill_ms),
    vault_language_fill_longest_slice_ms: Math.min(...ours.map((r) => r.vault_language.longest_slice_ms)),
    vault_language_fill_longest_slice_in: leastOf(ours, (r) => r.vault_language.longest_slice_ms).vault_language.longest_slice_in,
    vault_language_fill_longest_block_ms: Math.min(...ours.map((r) => r.vault_language.longest_block_ms)),
  };
}

/** A size whose measurement failed: what failed, in place of its figures. */
export function failedSize(message: string): Figures {
  return { failed: message };
}

/**
 * The targets, each keyed by the sizes it was checked on (so a size left out says so):
 * true or false, or null for a size whose measurement failed. Growth is keyed by the two sizes
 * compared ("9282 → 100000 notes"), the run under 512 MB by the size it ran at.
 */
export function targetsOf(bySize: Record<string, Figures>, limit: Figures, cli: Record<string, Figures>): Record<string, unknown> {
  const sizes = Object.entries(bySize);
  const measured = sizes.filter(([, f]) => f.failed === undefined);
  const check = (f: Figures, test: (f: Figures) => boolean) => (f.failed === undefined ? test(f) : null);
  const every = (test: (f: Figures) => boolean) => Object.fromEntries(sizes.map(([size, f]) => [size, check(f, test)]));
  const [first, last] = [measured[0], measured[measured.length - 1]];
  const slices = (f: Figures) => Math.max(f.cold_index.longest_slice_ms, f.warm_start.longest_slice_ms, f.save.longest_slice_ms, f.save_after_changes.notes_1.longest_slice_ms, f.save_after_changes.notes_500.longest_slice_ms);
  return {
    heap_le_1_3_plain: every((f) => f.heap_mb.ratio <= 1.3),
    // At every size, as the README's table claims it (it was checked at the first two only).
    cold_index_le_1_2_plain: every((f) => f.cold_index.ratio <= 1.2),
    warm_start_le_plain_load: every((f) => f.warm_start.ratio <= 1),
    // Needs two sizes measured: one alone says nothing about growth.
    warm_start_grows_no_faster_than_the_vault: measured.length < 2 ? null : { [`${first[0]} → ${last[0]}`]: last[1].warm_start.ms / first[1].warm_start.ms <= last[1].notes / first[1].notes },
    search_p95_le_plain_default: every((f) => f.search_ms.ratio_p95 <= 1),
    longest_slice_lt_50_ms: every((f) => slices(f) < 50),
    longest_block_lt_50_ms: every((f) => Math.max(f.cold_index.longest_block_ms, f.warm_start.longest_block_ms, f.save.longest_block_ms) < 50),
    // The lane works behind a ready index, while the user types: the same line for its work.
    vault_language_longest_slice_lt_50_ms: every((f) => Math.max(f.vault_language_learning.longest_slice_ms, f.warm_start.vault_language_fill_longest_slice_ms) < 50),
    vault_language_longest_block_lt_50_ms: every((f) => Math.max(f.vault_language_learning.longest_block_ms, f.warm_start.vault_language_fill_longest_block_ms) < 50),
    save_of_1_note_le_2_pct_of_full: every((f) => f.save_after_changes.notes_1.kilobytes * 1e3 <= 0.02 * f.save.megabytes * 1e6 || f.notes < 5000),
    cli_search_le_1_2_plain_process: Object.fromEntries(Object.entries(cli).map(([size, c]) => [size, c.failed === undefined ? c.ratio <= 1.2 : null])),
    under_512_mb_one_core: limit.skipped !== undefined || last === undefined ? null : { [last[0]]: limit.ok === true },
  };
}
