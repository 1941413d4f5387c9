// What every bench measurement shares: timing, percentiles, retained heap, peak RSS, the longest
// stretch the event loop was blocked, a yield like a UI's, and running a measurement in a child
// process (a fresh heap, optionally under a memory limit on one core).
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";

export const gc = (globalThis as { gc?: () => void }).gc;

export function round(n: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return round(sorted[i]);
}

export function megabytes(bytes: number): number {
  return round(bytes / 1e6, 1);
}

/** Bytes the heap holds after two full collections (needs --expose-gc). */
export function heapUsed(): number {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
}

/** The most resident memory this process has had, in MB. */
export function peakRssMb(): number {
  return round(process.resourceUsage().maxRSS / 1024, 1);
}

export async function timed<T>(fn: () => Promise<T> | T): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: round(performance.now() - t0, 1), value };
}

/** Yields to the event loop as a UI thread would between slices (timers and I/O get a turn). */
export const uiYield = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * A `yieldToUi` that also keeps the longest slice the index reported before yielding, and where
 * that slice ended (`sliceEndedIn`): the figure says how long, this says which work to look at.
 */
export function sliceRecorder(): { yieldToUi: (sliceMs: number) => Promise<void>; longest: () => number; longestEndedIn: () => string | null } {
  let longest = 0;
  let endedIn: string | null = null;
  return {
    yieldToUi: (sliceMs) => {
      if (sliceMs > longest) {
        longest = sliceMs;
        endedIn = sliceEndedIn(new Error().stack ?? "");
      }
      return uiYield();
    },
    longest: () => round(longest, 1),
    longestEndedIn: () => endedIn,
  };
}

/**
 * The work a slice ended in, from the stack at its pause: the functions called below the last
 * frame that is pausing ("pause", "pauseForUi", and the yield this file gives), innermost first,
 * at most three ("multiply ← topEigenpairs ← learnWordMeanings"); null when none is named.
 */
export function sliceEndedIn(stack: string): string | null {
  const frames = stack
    .split("\n")
    .map((line) => /^\s*at (?:async )?([^\s(]+)/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined);
  let below = 0;
  frames.forEach((name, i) => {
    if (/pause|yieldToUi|sliceRecorder/i.test(name)) below = i + 1;
  });
  // An unnamed function's frame is its file's place ("at /repo/dist/bench.cjs:1:2"): no name to give.
  const named = frames.slice(below).filter((name) => !name.includes("<anonymous>") && !name.includes("/") && !name.includes(":") && !name.startsWith("process."));
  return named.length > 0 ? named.slice(0, 3).join(" ← ") : null;
}

/**
 * Watches how long the event loop is blocked; `stop` gives the longest stretch in ms. It waits for
 * a timer first: a block is only seen by the next tick after it.
 */
export function blockedLoop(): { stop: () => Promise<number> } {
  const histogram = monitorEventLoopDelay({ resolution: 2 });
  histogram.enable();
  return {
    stop: async () => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      histogram.disable();
      return round(histogram.max / 1e6, 1);
    },
  };
}

/** The repository root (dist/bench.cjs lives one level down). */
export function repoRoot(): string {
  return path.resolve(__dirname, "..");
}

export interface ChildOptions {
  /** --max-old-space-size for the child, MB. */
  maxOldSpaceMb?: number;
  /** Pin the child to one core (taskset, where there is one). */
  oneCore?: boolean;
}

export type ChildOutcome = { ok: true; result: Record<string, unknown> } | { ok: false; code: number | null; signal: string | null; stderr: string };

/** Runs `dist/bench.cjs --child <task> …` in a fresh process and reads the JSON it prints last. */
export function runChild(task: string, args: string[], options: ChildOptions = {}): Promise<ChildOutcome> {
  const node = ["--expose-gc", ...(options.maxOldSpaceMb ? [`--max-old-space-size=${options.maxOldSpaceMb}`] : []), path.join(__dirname, "bench.cjs"), "--child", task, ...args];
  const [command, argv] = options.oneCore && existsSync("/usr/bin/taskset") ? ["/usr/bin/taskset", ["-c", "0", process.execPath, ...node]] : [process.execPath, node];
  return new Promise((resolve) => {
    const child = spawn(command, argv, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("close", (code, signal) => {
      const last = out.trim().split("\n").at(-1) ?? "";
      if (code === 0 && last.startsWith("{")) resolve({ ok: true, result: JSON.parse(last) as Record<string, unknown> });
      else resolve({ ok: false, code, signal, stderr: childErrorText(err) });
    });
  });
}

/**
 * The vector lane's targets (p95 of both lanes under 50 ms at 10,000 sections, under 200 ms at
 * 50,000), each null when that size was not measured: a target with no figure is not met.
 */
export function vectorLaneChecks(runs: readonly { sections: number; level3_vector_lanes_ms: { p95: number } }[]): { p95_10k_lt_50ms: boolean | null; p95_50k_lt_200ms: boolean | null } {
  const below = (sections: number, ms: number) => {
    const run = runs.find((r) => r.sections === sections);
    return run === undefined ? null : run.level3_vector_lanes_ms.p95 < ms;
  };
  return { p95_10k_lt_50ms: below(10_000, 50), p95_50k_lt_200ms: below(50_000, 200) };
}

/**
 * What a failed child said, without its stack frames: its last six other lines. A thrown error
 * prints its message above its frames, and running out of heap prints "FATAL ERROR: … heap out of
 * memory" above V8's native frames; the last six lines were only frames, and the reason was lost.
 */
export function childErrorText(stderr: string): string {
  const frame = /^\s*(at\s|\d+: 0x[0-9a-f]+|----- Native stack trace -----$)/i;
  return stderr
    .split("\n")
    .filter((line) => line.trim() !== "" && !frame.test(line))
    .slice(-6)
    .join("\n");
}

/** Wall-clock time of a whole process, from spawn to exit, in ms. */
export function processMs(command: string, argv: string[]): Promise<{ ms: number; ok: boolean; out: string }> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const child = spawn(command, argv, { stdio: ["ignore", "pipe", "ignore"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.on("close", (code) => resolve({ ms: round(performance.now() - t0, 1), ok: code === 0, out }));
  });
}
