// What a promoted row's source note holds: the page's properties and sanitised text when it was
// extracted, or the provider's excerpt (or only the link) and why, when it was not. The result
// is plain data for renderSourceNote; nothing here fetches or writes.
import type { OutsideVaultRow } from "../evidence/research-pack";
import type { ResearchTrace } from "../evidence/trace-types";
import type { ExtractStatus } from "../notes/extract-status";
import { isoDay, SOURCE_TAG, type SourceNote } from "../notes/source-note";
import { sanitizeExtractedMarkdown } from "../notes/untrusted-markdown";
import { cutText } from "../text/cut-text";
import { oneLine } from "../text/one-line";
import { canonicalizeUrl } from "../websearch/canonical-url";
import { believableDate } from "../websearch/plain-text";
import type { PageOutcome } from "./page-extract";

/** Extracted text longer than this is cut at a paragraph: a source note is for reading, not archiving. */
export const MAX_EXTRACTED_CHARS = 150_000;

/**
 * What a note's properties keep of a page's head, as untrusted as its body: a page of 3.6 MB, all of
 * it <title> and <meta>, made a note of 4.2 MB with a title of 1 MB, a description of 2 MB and
 * 200,000 authors, each a property Obsidian shows in full and a plugin such as Dataview reads.
 */
export const MAX_TITLE_CHARS = 300;
export const MAX_DESCRIPTION_CHARS = 1_000;
export const MAX_AUTHOR_CHARS = 200;
export const MAX_AUTHORS = 20;

/** A page outcome other than a cancelled or refused fetch, which write no note. */
export type NoteOutcome = Exclude<PageOutcome, { kind: "cancelled" } | { kind: "refused" }>;

export interface PromotedNoteInput {
  row: OutsideVaultRow;
  trace: ResearchTrace;
  /** Vault path of the trace note the row comes from; null when the run wrote none. */
  tracePath: string | null;
  outcome: NoteOutcome;
  /** When the page was fetched (ms since the epoch). */
  retrievedAt: number;
  /** The folder of recordings the page fetch was answered from (a replay), when it was not the site. */
  pagesReplayedFrom?: string;
}

/** The source note, and what it holds in a few words for the promotion's message. */
export function promotedNote(input: PromotedNoteInput): { note: SourceNote; summary: string } {
  const excerpt = providerExcerpt(input.row);
  const kept = noteText(input.outcome, excerpt !== null, input.pagesReplayedFrom);
  const note = sourceNoteFor(input, excerpt, kept);
  return { note, summary: `${kept.summary}${sampleWords(note)}` };
}

/** The promotion's message says what the note says of samples, so no surface shows the note as live. */
function sampleWords({ sample, extracted }: SourceNote): string {
  if (!sample) return "";
  const page = extracted === null ? "" : sample.pageReplayedFrom !== null ? "its page text is a recorded sample page" : "its page text was fetched live";
  if (sample.searchReplayedFrom === null) return ` The note says ${page}.`;
  return ` The note says the result is a recorded sample response, not a live search${page ? `, and ${page}` : ""}.`;
}

function sourceNoteFor({ row, trace, tracePath, outcome, retrievedAt, pagesReplayedFrom }: PromotedNoteInput, excerpt: string | null, kept: NoteText): SourceNote {
  const reading = outcome.kind === "extracted" ? outcome.reading : null;
  const authors = (reading?.author ?? "")
    // Spaces before a separator are taken from where their run starts: tried from each space of a
    // long run, `\s*` read the rest of the run every time.
    .split(/(?<!\s)\s+[;,]\s*|[;,]\s*|(?<!\s)\s+and\s+/)
    .map((a) => a.trim())
    .filter((a) => a !== "")
    .slice(0, MAX_AUTHORS)
    .map((a) => cutText(a, MAX_AUTHOR_CHARS, { atWord: true }));
  return {
    title: cutText(reading?.title.trim() || row.title.trim() || row.domain, MAX_TITLE_CHARS, { atWord: true }),
    source: canonicalizeUrl(row.url) ?? row.url,
    authors,
    published: believableDay(isoDay(reading?.published), retrievedAt) || isoDay(row.published_at),
    created: localDay(retrievedAt),
    description: cutText(reading?.description ?? "", MAX_DESCRIPTION_CHARS, { atWord: true }),
    tags: [SOURCE_TAG],
    provider: row.provider,
    retrieved: new Date(retrievedAt).toISOString(),
    query: trace.question,
    extractStatus: kept.status,
    tracePath,
    excerpt,
    extracted: kept.extracted,
    notes: kept.notes,
    ...sampleOrigin(trace, reading !== null ? pagesReplayedFrom : undefined),
  };
}

/**
 * What of the note is a recorded sample: the row, when its run's web answers were replayed (the
 * trace says so), and the page text, when its fetch was. A replayed page that gave no text put
 * nothing of it into the note. Nothing at all for a live search and a live page.
 */
function sampleOrigin(trace: ResearchTrace, pageReplayedFrom: string | undefined): Pick<SourceNote, "sample"> {
  const searchReplayedFrom = trace.replayed_from ?? null;
  if (searchReplayedFrom === null && pageReplayedFrom === undefined) return {};
  return { sample: { searchReplayedFrom, pageReplayedFrom: pageReplayedFrom ?? null } };
}

interface NoteText {
  status: ExtractStatus;
  /** The page text, sanitised; null when there is none. */
  extracted: string | null;
  /** Why the note keeps less than the page, or what was odd about it. */
  notes: string[];
  /** What the note holds, for the result's message. */
  summary: string;
}

/** What the note keeps of the page; `pagesReplayedFrom`: the recordings that answered for it, if any. */
function noteText(outcome: NoteOutcome, hasExcerpt: boolean, pagesReplayedFrom: string | undefined): NoteText {
  switch (outcome.kind) {
    case "extracted": {
      const cut = cutAtParagraph(outcome.reading.markdown, MAX_EXTRACTED_CHARS);
      const notes = [...outcome.warnings];
      if (cut.cut) notes.push(`The page text was cut after ${MAX_EXTRACTED_CHARS.toLocaleString("en-US")} characters.`);
      const extracted = sanitizeExtractedMarkdown(cut.text, { rewriteUrl: withoutTracking }).markdown;
      return { status: { kind: "extracted" }, extracted, notes, summary: "page text extracted." };
    }
    case "pdf":
      return {
        status: { kind: "pdf_stub" },
        extracted: null,
        notes: ["The page is a PDF; its text was not extracted. Open the source link to read it."],
        summary: hasExcerpt ? "a PDF, saved as a link with the provider's excerpt." : "a PDF, saved as a link only (the provider gave no excerpt).",
      };
    case "unusable":
      return {
        status: { kind: hasExcerpt ? "fallback_snippet" : "link_only", reason: outcome.problem },
        extracted: null,
        notes: [`${outcome.message} ${hasExcerpt ? "Only the provider's excerpt above was kept." : "Only the link was kept."}`, ...recordedAnswer(outcome, pagesReplayedFrom)],
        summary: `${hasExcerpt ? "provider excerpt only" : "link only"}. ${outcome.message}`,
      };
  }
}

/**
 * Whose answer a page that gave no text was, when recordings answered for it: "The page answered 403"
 * read as the live site's, in a note that says nothing of samples (no page text of a sample is in it).
 * A recording missing says so itself.
 */
function recordedAnswer(outcome: Extract<NoteOutcome, { kind: "unusable" }>, pagesReplayedFrom: string | undefined): string[] {
  if (pagesReplayedFrom === undefined || outcome.problem.kind === "replay_miss") return [];
  return [`The page was asked of the recordings in ${oneLine(pagesReplayedFrom)}, not of its site: that answer is theirs.`];
}

/** Whether a promoted note of this row keeps the provider's excerpt (the panel says what the note holds by it). */
export function hasProviderExcerpt(row: OutsideVaultRow): boolean {
  return providerExcerpt(row) !== null;
}

/**
 * The provider's own words about the page: snippets and summaries first, page text only if that is
 * all. What the run read of the page itself (`fetched`) is not the provider's, and is left out.
 */
function providerExcerpt(row: OutsideVaultRow): string | null {
  const pick = (roles: string[]) =>
    row.content_sections
      .filter((s) => !s.fetched && roles.includes(s.role) && s.text.trim() !== "")
      .map((s) => withoutEmphasisTags(s.truncated ? `${s.text.trimEnd()}…` : s.text));
  const short = pick(["external_snippet", "external_summary"]);
  const parts = short.length > 0 ? short : pick(["external_text"]);
  return parts.length > 0 ? parts.join("\n\n") : null;
}

/** Providers mark matched words with `<strong>`/`<b>`; those tags would only show as text in a quote. */
function withoutEmphasisTags(text: string): string {
  return text.replace(/<\/?(?:strong|b|em|i|mark)>/gi, "");
}

function cutAtParagraph(text: string, max: number): { text: string; cut: boolean } {
  if (text.length <= max) return { text, cut: false };
  const slice = text.slice(0, max);
  const at = slice.lastIndexOf("\n\n");
  return { text: at > max / 2 ? slice.slice(0, at) : slice, cut: true };
}

/** Links inside page text lose their click-tracking parameters; in-page anchors are kept. */
function withoutTracking(url: string): string {
  const canonical = canonicalizeUrl(url);
  if (canonical === null) return url;
  const hash = url.includes("#") ? url.slice(url.indexOf("#")) : "";
  return canonical + hash;
}

/**
 * A page's own day of publication, when a page could have been published then: no later than a year
 * after it was fetched, by the rule providers' dates are read by (a page's meta said 2999-01-01).
 */
function believableDay(day: string, retrievedAt: number): string {
  return day !== "" && believableDate(Date.parse(day), retrievedAt) ? day : "";
}

function localDay(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
}

