// Cutting a trace down to size: the string and value bounds that the research runner's recorder
// applies as it goes and that the trace note applies again to fit its JSON block. Pure.

import { cutText } from "../text/cut-text";
import { MAX_URL_CHARS } from "../websearch/canonical-url";
import type { OutsideVaultRow } from "./research-pack";

export { cutText, CUT_MARK } from "../text/cut-text";

/**
 * The longest title, address and domain an outside row keeps in a trace. Providers pass page
 * titles through untrimmed, and one row must never crowd the others out of a trace note. No
 * result's address is longer than `MAX_URL_CHARS` (longer ones are skipped as unusable when the
 * provider's answer is read), so the address limit only guards a trace made elsewhere; a domain is
 * cut past DNS's 253.
 */
export const OUTSIDE_ROW_LIMITS = { title: 300, url: MAX_URL_CHARS, domain: 253 } as const;

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

/** The row with its title, URL and domain cut to `OUTSIDE_ROW_LIMITS`; the same row when none is longer. */
export function boundOutsideRowFields<T extends Pick<OutsideVaultRow, "title" | "url" | "domain">>(row: T): T {
  const title = cutText(row.title, OUTSIDE_ROW_LIMITS.title, { atWord: true });
  const url = cutText(row.url, OUTSIDE_ROW_LIMITS.url);
  const domain = cutText(row.domain, OUTSIDE_ROW_LIMITS.domain);
  if (title === row.title && url === row.url && domain === row.domain) return row;
  return { ...row, title, url, domain };
}
