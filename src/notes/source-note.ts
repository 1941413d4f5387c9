// The note a promoted web result becomes: Web Clipper–compatible properties (title, source,
// author, published, created, description, tags) plus where it came from (provider, retrieved,
// query, extract_status, trace), then the provider's excerpt and the page's extracted text as
// two separate sections. A note made of recorded sample responses (a replayed run, a replayed page)
// says so in its properties and above its text. Its file name is safe on every OS and never
// replaces an existing file.
import { stringify } from "yaml";
import { providerDisplayName } from "../evidence/labels";
import { extractStatusText, type ExtractStatus } from "./extract-status";
import { noteFileName } from "./file-names";
import { escapeMarkdownText, plainLine, quoteParagraphs } from "./markdown-escape";
import { webLink, wikilink } from "./note-links";
import { recordingsIn, SAMPLE_PAGE_TITLE, SAMPLE_RESPONSE_TITLE, sampleProperties } from "./recorded-sample";

export const SOURCE_TAG = "research/source";

export interface SourceNote {
  title: string;
  /** The canonical URL: what duplicate detection compares. */
  source: string;
  authors: string[];
  /** YYYY-MM-DD, or "" when unknown. */
  published: string;
  /** YYYY-MM-DD: the day the user promoted it. */
  created: string;
  description: string;
  tags: string[];
  provider: string;
  /** ISO date-time of the fetch. */
  retrieved: string;
  /** The question the research run was asked. */
  query: string;
  /** What the note holds of the page; written as the `extract_status` property. */
  extractStatus: ExtractStatus;
  /** Vault path of the trace note that found it; null when that run wrote no trace note. */
  tracePath: string | null;
  /** The provider's snippet/highlights as plain text; null when it gave none. */
  excerpt: string | null;
  /** Page text as sanitised markdown; null when there is none. */
  extracted: string | null;
  /** Why there is no page text, or what was odd about it (one sentence each). */
  notes: string[];
  /** Set when some of the note is a recorded sample response rather than the live web. */
  sample?: SampleOrigin;
}

/**
 * Which of a note's web text was replayed from recordings (sample responses we wrote, as the demo's
 * are) and which came from the live web. A search result and its page are apart: a result of a
 * replayed run can be promoted with the page fetched from its site.
 */
export interface SampleOrigin {
  /** The folder the run's search answers were replayed from (the result, its excerpt); null: a live search. */
  searchReplayedFrom: string | null;
  /** The folder the page fetch was answered from; null: the page was asked of its site. */
  pageReplayedFrom: string | null;
}

export function renderSourceNote(note: SourceNote): string {
  const properties = {
    title: plainLine(note.title),
    source: note.source,
    author: note.authors.map(plainLine).filter((a) => a !== ""),
    published: note.published,
    created: note.created,
    description: plainLine(note.description),
    tags: note.tags,
    provider: note.provider,
    retrieved: note.retrieved,
    query: plainLine(note.query),
    extract_status: extractStatusText(note.extractStatus),
    ...(note.tracePath ? { trace: wikilink(note.tracePath) } : {}),
    // `sample: true` and the folders replayed from: what a query over the vault can tell apart.
    ...sampleProperties(note.sample?.searchReplayedFrom ?? null, note.sample?.pageReplayedFrom ?? null),
  };
  const yaml = stringify(properties, { lineWidth: 0, defaultStringType: "PLAIN", defaultKeyType: "PLAIN" });

  const lines: string[] = [];
  const foundBy = note.sample?.searchReplayedFrom ? `a recorded sample of ${providerDisplayName(note.provider)}'s responses` : providerDisplayName(note.provider);
  lines.push(
    `Web page saved into the vault on ${note.created}: ${webLink(displayHost(note.source), note.source)}. ` +
      `Found by ${foundBy} during ${note.tracePath ? wikilink(note.tracePath, { alias: "a research run" }) : "a research run (no trace note was written)"}.`,
  );
  if (isSample(note.sample)) lines.push("", sampleCallout(note, note.sample));
  lines.push("", "## Provider excerpt", "");
  lines.push(note.excerpt && note.excerpt.trim() !== "" ? quoteParagraphs(note.excerpt) : "_The provider gave no excerpt._");
  lines.push("", "## Extracted text", "");
  for (const line of note.notes) lines.push(`_${escapeMarkdownText(line)}_`, "");
  if (note.extracted !== null && note.extracted.trim() !== "") lines.push(note.extracted);
  else if (note.notes.length === 0) lines.push("_No page text was kept._");
  return `---\n${yaml}---\n\n${lines.join("\n").trimEnd()}\n`;
}

function isSample(sample: SampleOrigin | undefined): sample is SampleOrigin {
  return sample !== undefined && (sample.searchReplayedFrom !== null || sample.pageReplayedFrom !== null);
}

/** Said above the excerpt: what of the note is a recorded sample, and what (if anything) is live. */
function sampleCallout(note: SourceNote, sample: SampleOrigin): string {
  const search = sample.searchReplayedFrom;
  const page = sample.pageReplayedFrom;
  const hasText = note.extracted !== null && note.extracted.trim() !== "";
  const lines: string[] = [];
  if (search !== null) {
    lines.push(
      SAMPLE_RESPONSE_TITLE,
      `${providerDisplayName(note.provider)}'s answer that found this page, and the excerpt below, are a sample response replayed from ${recordingsIn(search)}; nothing was searched on the web.`,
    );
  } else {
    lines.push(SAMPLE_PAGE_TITLE);
  }
  if (!hasText) lines.push("No page text was kept, so nothing in this note came from the live web.");
  else if (page !== null) lines.push(`The page text below was read from ${recordingsIn(page)}, not fetched from the site: it is a sample page${search !== null ? " too" : ""}.`);
  else lines.push(`The page text below, and its title and dates, were fetched live from the page's address on ${note.created}: they are not part of the sample.`);
  return lines.map((line) => `> ${line}`).join("\n");
}

/** The source note's name (without `.md`): the page's title, else `fallback` (the site's domain). */
export function sourceNoteFileName(title: string, fallback = "Untitled source"): string {
  return noteFileName({ text: title, fallback });
}

/**
 * YYYY-MM-DD from an ISO date or date-time, or a date Date.parse understands; else "". The day as
 * written either way: read as an instant in UTC, "2026/03/05" was the 4th east of Greenwich and
 * "Mar 5 2026 23:30" the 6th west of it. One home: notes and the panel's cards.
 *
 * Only a day the text names: a page's or a provider's date is untrusted, and a note's `published`
 * said days no one wrote — `0000-00-00` (a draft's date), `2026-02-30`, Go's zero time
 * `0001-01-01`, and, from Date.parse's guesses, "0" as 2000-01-01, "1.5" as 2001-01-05 and
 * "May 2024" as its first.
 */
export function isoDay(text: string | undefined): string {
  if (!text) return "";
  const written = text.trim();
  const direct = /^(\d{4})-(\d{2})-(\d{2})/.exec(written);
  if (direct) return dayIfReal(Number(direct[1]), Number(direct[2]), Number(direct[3]));
  // A year alone or a year and month is no day, though Date.parse makes the first of it.
  if (/^\d{4}(?:-\d{2})?$/.test(written)) return "";
  // Without its time and zone, Date.parse reads the day as local midnight: the local fields are the written ones.
  const withoutTime = written.replace(TIME_AND_AFTER, "");
  const read = Number.isFinite(Date.parse(withoutTime)) ? withoutTime : written;
  const parsed = Date.parse(read);
  if (!Number.isFinite(parsed)) return "";
  const date = new Date(parsed);
  return namesDay(read, date) ? dayIfReal(date.getFullYear(), date.getMonth() + 1, date.getDate()) : "";
}

/**
 * Whether `text` writes out the year of `date` (four digits) and its day of the month: Date.parse
 * fills in what a text leaves out (a year from two digits or from none, the 1st for a month alone).
 */
function namesDay(text: string, date: Date): boolean {
  const numbers = (text.match(/\d+/g) ?? []).map((digits) => ({ value: Number(digits), fourDigits: digits.length === 4 }));
  const year = numbers.findIndex((n) => n.fourDigits && n.value === date.getFullYear());
  return year >= 0 && numbers.some((n, i) => i !== year && n.value === date.getDate());
}

/**
 * YYYY-MM-DD of a day that exists, in a year a web page can have been published in; else "". The
 * stand-ins for "no date" are none: `0000-00-00`, `0001-01-01` (Go's and .NET's zero time) and
 * `1970-01-01` (the Unix epoch, a timestamp of 0).
 */
function dayIfReal(year: number, month: number, day: number): string {
  if (year < 1000 || year > 9999 || month < 1 || month > 12 || day < 1) return "";
  // Day 0 of the next month is the last of this one; UTC, so no zone moves it.
  if (day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return "";
  if (year === 1970 && month === 1 && day === 1) return "";
  const two = (n: number) => String(n).padStart(2, "0");
  return `${year}-${two(month)}-${two(day)}`;
}

/**
 * A time of day and whatever follows it (seconds, AM/PM, a zone): no part of the day as written.
 * Taken from where a run of spaces starts: tried from each of its spaces, a long run was read again each time.
 */
const TIME_AND_AFTER = /(?<![\s,T])[\s,T]*\d{1,2}:\d{2}[\s\S]*$/;

function displayHost(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\./, "");
  } catch {
    return url;
  }
}
