// Provider text arrives with HTML decorations (`<strong>`, `&#x27;`) and unbounded length. Web
// text is untrusted and always rendered as text, so it is reduced to plain text here, once. Entities
// are decoded by the `entities` package (the HTML standard's full table), after tags are removed, so
// an encoded `&lt;b&gt;` stays visible text.
import { decodeHTML } from "entities";
import { cutText as cutToFit } from "../text/cut-text";

/**
 * Comments and tag-shaped spans: `<b>`, `</em>`, `<a href="…">`, `<br/>` — not a lone `<` or `a < b`.
 * A comment never closed runs to the end, as in HTML parsers: looking for its end again from every
 * later `<!--` took minutes on a hostile page.
 */
const TAG = /<!--[\s\S]*?(?:-->|$)|<\/?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?\/?>/g;

/** Every HTML entity a browser would decode in text: `&eacute;`, `&#x27;`, `&nbsp;`. */
export function decodeEntities(text: string): string {
  return decodeHTML(text);
}

/** Tag-shaped spans removed, nothing decoded: for text that is already decoded (XML CDATA). */
export function stripTags(text: string): string {
  return text.replace(TAG, "");
}

/** Tags removed, entities decoded, runs of whitespace collapsed: for one-line snippets and titles. */
export function htmlToLine(text: string): string {
  return decodeEntities(text.replace(TAG, "")).replace(/\s+/g, " ").trim();
}

/**
 * Like htmlToLine, for a body of paragraphs and code blocks: each block boundary becomes a space, not
 * run-together words. A block tag never closed runs to the end, as in HTML parsers, for the same
 * reason as TAG's comments.
 */
export function htmlBlocksToLine(text: string): string {
  return htmlToLine(text.replace(/<\/?(p|pre|code|li|ul|ol|br|div|blockquote|h[1-6])\b[^>]*(?:>|$)/gi, " "));
}

/**
 * The longest title a result keeps, as a trace keeps it (evidence/trace-bounds.ts): a page may name
 * itself with a megabyte, and the panel, the prompt and `websearch --json` showed it whole.
 */
export const maxTitleChars = 300;

/** A result's title: one line of plain text, at most `maxTitleChars`, cut at a word. */
export function titleLine(text: string): string {
  return cutToFit(htmlToLine(text), maxTitleChars, { atWord: true });
}

/** Cuts `text` to at most `max` characters at a word boundary when one is near, marking the cut. */
export function cutText(text: string, max: number): { text: string; truncated: boolean } {
  const cut = cutToFit(text, max, { atWord: true });
  return { text: cut, truncated: cut !== text };
}

const relativeUnits: Record<string, number> = {
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
  week: 7 * 86_400_000,
  month: 30 * 86_400_000,
  year: 365 * 86_400_000,
};

/** A date, or a date and a time with an optional zone, and nothing after it. */
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * A publication date as ISO 8601, from what providers send: ISO dates and date-times, Brave's
 * relative ages ("14 hours ago") and long dates ("April 27, 2023"). Undefined when unknown, and
 * when no page could have been published then (see `believableDate`).
 */
export function toPublishedDate(value: string | null | undefined, now: number): string | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  const iso = /^(\d{4})-(\d{2})-(\d{2})/.exec(trimmed);
  if (iso) {
    // Date.parse rolls a day the month lacks over ("2023-02-31" is 3 March): the day must come back.
    const ms = Date.UTC(Number(iso[1]), Number(iso[2]) - 1, Number(iso[3]));
    if (isoDateTime(ms)?.slice(0, 10) !== iso[0] || !believableDate(ms, now)) return undefined;
    // A whole date-time is kept as sent; anything else after the day ("(updated)") is dropped.
    return ISO_DATE_TIME.test(trimmed) && !Number.isNaN(Date.parse(trimmed)) ? trimmed : iso[0];
  }
  const relative = /^(\d+|an?)\s+(minute|hour|day|week|month|year)s?\s+ago$/i.exec(trimmed);
  if (relative) {
    const amount = /^\d+$/.test(relative[1]) ? Number(relative[1]) : 1;
    return publishedAtMs(now - amount * relativeUnits[relative[2].toLowerCase()], now)?.slice(0, 10);
  }
  // Long dates only ("April 27, 2023", "Wednesday, January 15, 2025"): anything vaguer is dropped.
  const year = /\b\d{4}\b/.exec(trimmed);
  if (year) {
    const ms = Date.parse(`${trimmed.replace(/^[A-Za-z]+day,\s*/, "")} UTC`);
    // The year must be the one written: Date.parse reads "0001" as 2001.
    if (new Date(ms).getUTCFullYear() !== Number(year[0])) return undefined;
    return publishedAtMs(ms, now)?.slice(0, 10);
  }
  return undefined;
}

/**
 * Whether a page could have been published at `ms`: in a four-digit year (the only ones ISO 8601
 * writes plainly; "5000 years ago" came out as "-002971-06") and at most a year after `now` (an
 * issue dated ahead, a clock skewed; "2999-01-01" is neither).
 */
export function believableDate(ms: number, now: number): boolean {
  if (!Number.isFinite(ms)) return false;
  const year = new Date(ms).getUTCFullYear();
  return year >= 1000 && year <= 9999 && ms <= now + 366 * 86_400_000;
}

/** A publication moment (ms since 1970) as an ISO 8601 date-time, or undefined when it is not believable. */
export function publishedAtMs(ms: number, now: number): string | undefined {
  return believableDate(ms, now) ? isoDateTime(ms) : undefined;
}

/**
 * A moment in milliseconds since 1970 as ISO 8601, or undefined when no date can hold it (NaN,
 * infinite, or beyond ±275,760 years). Every provider date goes through here: `toISOString` throws
 * on those, and one bad date in an answer used to fail the whole source.
 */
export function isoDateTime(ms: number): string | undefined {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}
