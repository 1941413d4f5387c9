// The bench's figures from its children's runs: least of the runs on each side, ratios of those,
// and targets that say null (not true, not a crash) where a measurement failed or was not made.
import { describe, expect, it } from "vitest";
import { coldFigures, failedSize, targetsOf, warmFigures, type Figures } from "../../bench/bench-figures";
import { childErrorText, vectorLaneChecks } from "../../bench/bench-tools";

const language = (ms: number) => ({ learn_ms: ms, fill_ms: ms, heap_mb_after: 50, longest_slice_ms: 10, longest_slice_in: "learn", longest_block_ms: 20 });

/** One cold run of ours: build time, and its first save's time, slice and block. */
function oursCold(ms: number, save: { ms: number; slice: number; block: number }): Figures {
  return {
    notes: 9282,
    megabytes: 8.7,
    ms,
    heap_mb: 40,
    peak_rss_mb: 300,
    longest_slice_ms: 15,
    longest_slice_in: "build",
    longest_block_ms: 25,
    vault_language: language(6000),
    save: { ms: save.ms, megabytes: 13.8, parts: 76, longest_slice_ms: save.slice, longest_slice_in: `save ${save.ms}`, longest_block_ms: save.block },
  };
}

function plainCold(ms: number, saveMs: number): Figures {
  return { ms, longest_slice_ms: ms, heap_mb: 60, peak_rss_mb: 330, save: { ms: saveMs, megabytes: 6.9, longest_slice_ms: saveMs } };
}

describe("the first save's figures", () => {
  it("divide ours' fastest save by plain's fastest save, and take ours' least slice and block, as the cold index's are", () => {
    // Ours' last run saved slowest; plain's fastest build saved slowest.
    const ours = [oursCold(1700, { ms: 300, slice: 18, block: 30 }), oursCold(1650, { ms: 320, slice: 40, block: 70 }), oursCold(1800, { ms: 500, slice: 45, block: 80 })];
    const plain = [plainCold(1500, 460), plainCold(1470, 700), plainCold(1600, 450)];
    const { save, cold_index } = coldFigures(ours, plain);
    expect(save).toMatchObject({ ms: 300, plain_ms: 450, ratio: 0.667, longest_slice_ms: 18, longest_slice_in: "save 300", longest_block_ms: 30, runs_ms: [300, 320, 500], parts: 76 });
    // The cold index as before: fastest of each side.
    expect(cold_index).toMatchObject({ ms: 1650, plain_ms: 1470, ratio: 1.122 });
  });
});

/** A size's figures as bench.ts assembles them, every target met (unless ours' cold index takes `coldMs`). */
function measuredSize(notes: number, warmMs: number, coldMs = 1650): Figures {
  const cold = coldFigures([oursCold(coldMs, { ms: 300, slice: 18, block: 30 })], [plainCold(1470, 450)]);
  const warm = warmFigures([{ ms: warmMs, notes, heap_mb: 20, peak_rss_mb: 160, longest_slice_ms: 13, longest_block_ms: 24, vault_language: language(30) }], [{ ms: warmMs * 1.2, heap_mb: 30, peak_rss_mb: 210, longest_slice_ms: 300, longest_block_ms: 300 }]);
  const changed = { ms: 20, kilobytes: 32, longest_slice_ms: 5, longest_block_ms: 8 };
  return { ...cold, notes, search_ms: { ratio_p95: 0.7 }, warm_start: warm, save_after_changes: { notes_1: changed, notes_500: changed } };
}

describe("the bench's targets", () => {
  it("are null for a size whose measurement failed, and the other sizes are still checked (one failure lost every figure)", () => {
    const bySize = { "9282 notes": measuredSize(9282, 270), "50000 notes (failed)": failedSize("the search run failed (exit 134): heap out of memory") };
    const targets = targetsOf(bySize, { ok: true }, { "9282 notes": { ratio: 1.1 } }) as Record<string, Record<string, boolean | null> | boolean | null>;
    expect(targets.heap_le_1_3_plain).toEqual({ "9282 notes": true, "50000 notes (failed)": null });
    expect(targets.cold_index_le_1_2_plain).toEqual({ "9282 notes": true, "50000 notes (failed)": null });
    expect(targets.longest_block_lt_50_ms).toEqual({ "9282 notes": true, "50000 notes (failed)": null });
    expect(targets.cli_search_le_1_2_plain_process).toEqual({ "9282 notes": true });
    // Growth needs two sizes measured.
    expect(targets.warm_start_grows_no_faster_than_the_vault).toBeNull();
  });

  it("check growth over the sizes measured, a failed CLI search as null, and no 512 MB run as null", () => {
    const bySize = { "9282 notes": measuredSize(9282, 270), "50000 notes": measuredSize(50000, 870) };
    const targets = targetsOf(bySize, { skipped: "no size was measured" }, { "9282 notes": failedSize("a search process failed (ours)") });
    expect(targets.warm_start_grows_no_faster_than_the_vault).toEqual({ "9282 notes → 50000 notes": true });
    expect(targets.cli_search_le_1_2_plain_process).toEqual({ "9282 notes": null });
    expect(targets.under_512_mb_one_core).toBeNull();
    expect(targetsOf(bySize, { ok: false, exit: 134 }, {}).under_512_mb_one_core).toEqual({ "50000 notes": false });
  });

  // The README claims the cold index's ≤ 1.2 at all three sizes; it was checked at the first two,
  // and a third size 1.5 times plain's passed unseen.
  it("check the cold index at every size measured, the largest too", () => {
    const bySize = { "9282 notes": measuredSize(9282, 270), "50000 notes": measuredSize(50000, 870), "100000 notes": measuredSize(100000, 1600, 2200) };
    expect(targetsOf(bySize, { ok: true }, {}).cold_index_le_1_2_plain).toEqual({ "9282 notes": true, "50000 notes": true, "100000 notes": false });
  });
});

describe("the retained heap", () => {
  // It was the first run's of each side, whichever that was: a later run of ours over the line passed.
  it("is ours' largest run against plain's least, with every run's figure", () => {
    const ours = [40, 64, 41].map((heap) => ({ ...oursCold(1650, { ms: 300, slice: 18, block: 30 }), heap_mb: heap }));
    const plain = [62, 61, 63].map((heap) => ({ ...plainCold(1470, 450), heap_mb: heap }));
    const { heap_mb } = coldFigures(ours, plain);
    expect(heap_mb).toMatchObject({ ours: 64, plain: 61, ratio: 1.049, ours_runs_mb: [40, 64, 41], plain_runs_mb: [62, 61, 63] });
    // A size whose cold runs were these, with a later run of ours over the line.
    const over = coldFigures([ours[0], { ...ours[1], heap_mb: 90 }], plain);
    expect(targetsOf({ "9282 notes": { ...measuredSize(9282, 270), ...over } }, { ok: true }, {}).heap_le_1_3_plain).toEqual({ "9282 notes": false });
  });
});

describe("the vector lane's checks", () => {
  const run = (sections: number, p95: number) => ({ sections, level3_vector_lanes_ms: { p95 } });

  it("are null for a size that was not measured (they said true with no figure)", () => {
    expect(vectorLaneChecks([run(2000, 3)])).toEqual({ p95_10k_lt_50ms: null, p95_50k_lt_200ms: null });
  });

  it("compare each size's p95 with its own line", () => {
    expect(vectorLaneChecks([run(10_000, 49), run(50_000, 201)])).toEqual({ p95_10k_lt_50ms: true, p95_50k_lt_200ms: false });
  });
});

describe("a failed child's error text", () => {
  it("keeps the thrown error's message, not the stack frames below it", () => {
    const frames = Array.from({ length: 10 }, (_, i) => `    at fn${i} (/repo/dist/bench.cjs:${i}:1)`);
    expect(childErrorText(["Error: --work is needed for search", ...frames, ""].join("\n"))).toBe("Error: --work is needed for search");
  });

  it("keeps V8's out-of-memory line, not its native frames", () => {
    const stderr = [
      "<--- Last few GCs --->",
      "[123:0x1]   9000 ms: Mark-Compact 510.2 (520.1) -> 509.9 (521.3) MB",
      "<--- JS stacktrace --->",
      "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory",
      "----- Native stack trace -----",
      "",
      ...Array.from({ length: 16 }, (_, i) => ` ${i + 1}: 0x10fb2${i.toString(16)} v8::internal::Heap::CollectGarbage [node]`),
    ].join("\n");
    expect(childErrorText(stderr).split("\n").at(-1)).toBe("FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory");
  });
});
