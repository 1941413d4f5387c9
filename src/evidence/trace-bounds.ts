// Cutting a trace down to size: the string and value bounds that the research runner's recorder
// applies as it goes and that the trace note applies again to fit its JSON block. Pure.

/** The mark a cut string ends with. */
export const CUT_MARK = "…";

/** `text` cut to at most `max` characters, ending in "…" when cut; never splits a surrogate pair. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max - CUT_MARK.length);
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end)}${CUT_MARK}`;
}

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
