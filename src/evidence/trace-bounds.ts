// Cutting a trace down to size: the string and value bounds that the research runner's recorder
// applies as it goes and that the trace note applies again to fit its JSON block. Pure.

import { cutText } from "../text/cut-text";

export { cutText, CUT_MARK } from "../text/cut-text";

/** A copy with every string (values only; keys are ours) cut to `max` characters. */
export function boundStrings(value: unknown, max: number): unknown {
  if (typeof value === "string") return cutText(value, max);
  if (Array.isArray(value)) return value.map((v) => boundStrings(v, max));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = boundStrings(v, max);
    return out;
  }
  return value;
}
