// Provider text arrives with HTML decorations (`<strong>`, `&#x27;`) and unbounded length. Web
// text is untrusted and always rendered as text, so it is reduced to plain text here, once. Entities
// are decoded by the `entities` package (the HTML standard's full table), after tags are removed, so
// an encoded `&lt;b&gt;` stays visible text.
import { decodeHTML, decodeHTMLStrict } from "entities";
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

/** Tags removed, entities decoded, runs of whitespace collapsed: for one-line snippets and titles sent as HTML. */
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

/** A result's title from a field of HTML (`htmlToLine`): one line of plain text, at most `maxTitleChars`, cut at a word. */
export function titleLine(text: string): string {
  return cutToFit(htmlToLine(text), maxTitleChars, { atWord: true });
}

/**
 * A field a source sends as plain text (a page's title from Exa, Brave or Hacker News, a repository's
 * description) as one line: nothing is removed, since in "<dialog>: The Dialog element" or "Vec<T>"
 * the angle brackets are the text, and htmlToLine dropped them. Entities written out whole (`&amp;`,
 * `&#x27;`) are decoded once, for a source or site that encoded anyway; `&copy` without its `;` is text.
 */
export function textToLine(text: string): string {
  return decodeHTMLStrict(text).replace(/\s+/g, " ").trim();
}

/** A result's title from a field of plain text (`textToLine`), at most `maxTitleChars`, cut at a word. */
export function plainTitleLine(text: string): string {
  return cutToFit(textToLine(text), maxTitleChars, { atWord: true });
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
  return longDate(trimmed, now);
}

const MONTH_NAMES = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];
const WEEKDAY_NAMES = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];

/**
 * A long date: a weekday if any, the day and the month's name either way round, the year, and a
 * time if any ("April 27, 2023", "Wednesday, January 15, 2025", "Sun, 09 Mar 2025 16:33:04 GMT").
 */
const LONG_DATE = /^(?:([A-Za-z]+),?\s+)?(?:([A-Za-z]+)\.?\s+(\d{1,2}),?|(\d{1,2})\s+([A-Za-z]+)\.?,?)\s+(\d{4})(?:,?\s+\d{1,2}:\d{2}(?::\d{2})?(?:\s*(?:GMT|UTC|Z|[+-]\d{2}:?\d{2}))?)?$/i;

/** Index of the name `word` spells or shortens to three letters or more ("Sept"), or -1. */
function nameIndex(names: readonly string[], word: string): number {
  const lower = word.toLowerCase();
  return lower.length >= 3 ? names.findIndex((name) => name.startsWith(lower)) : -1;
}

/**
 * The day a long date names, as written, or undefined. Anything vaguer is dropped: Date.parse made
 * 1 January of "2023" and of "Spring 2023", read "maybe" as May, and rolled "February 31" over into March.
 */
function longDate(text: string, now: number): string | undefined {
  const m = LONG_DATE.exec(text);
  if (!m) return undefined;
  if (m[1] !== undefined && nameIndex(WEEKDAY_NAMES, m[1]) < 0) return undefined;
  const month = nameIndex(MONTH_NAMES, m[2] ?? m[5]);
  const day = Number(m[3] ?? m[4]);
  const year = Number(m[6]);
  // Below 1000 no page was published, and Date.UTC would read a year under 100 as 19xx.
  if (month < 0 || year < 1000) return undefined;
  const ms = Date.UTC(year, month, day);
  if (new Date(ms).getUTCDate() !== day) return undefined;
  return publishedAtMs(ms, now)?.slice(0, 10);
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
