// Figures in scores, explanations and reports are rounded in one way, so the same score reads the
// same in the panel, the CLI's JSON and a trace note.

/** `roundTo(0.12345, 3)` → 0.123. */
export function roundTo(n: number, decimals: number): number {
  const scale = 10 ** decimals;
  return Math.round(n * scale) / scale;
}
