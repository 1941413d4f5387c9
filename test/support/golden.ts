// The one place that compares output with a golden file and, with UPDATE_GOLDEN=1, rewrites it.
// Golden files live in test/golden/<surface>/; test/golden/golden.test.ts discovers the cases.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { expect } from "vitest";

export const GOLDEN_ROOT = path.resolve(__dirname, "../golden");

/** Whether this run rewrites golden files instead of checking them (`UPDATE_GOLDEN=1`). */
export function updatingGoldens(): boolean {
  return process.env.UPDATE_GOLDEN === "1";
}

/**
 * Checks `actual` against the golden file at `file` (absolute, or relative to test/golden/).
 * Review the diff of a rewrite before committing it: a golden file is what a reviewer reads.
 */
export function expectGolden(file: string, actual: string): void {
  const full = path.isAbsolute(file) ? file : path.join(GOLDEN_ROOT, file);
  if (updatingGoldens()) {
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, actual);
  }
  expect(existsSync(full), `golden file ${path.relative(GOLDEN_ROOT, full)} is missing: run with UPDATE_GOLDEN=1`).toBe(true);
  expect(actual).toBe(readFileSync(full, "utf8"));
}
