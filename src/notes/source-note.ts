// The note a promoted web result becomes: Web Clipper–compatible properties (title, source,
// author, published, created, description, tags) plus where it came from (provider, retrieved,
// query, extract_status, trace), then the provider's excerpt and the page's extracted text as
// two separate sections. Its file name is safe on every OS and never replaces an existing file.
import { stringify } from "yaml";
import type { NoteStore } from "../ports";
import { providerDisplayName } from "../evidence/labels";
import { escapeMarkdownText, plainLine, quoteText } from "./untrusted-markdown";

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
  /** `extracted`, `fallback_snippet:<reason>`, `pdf_stub`, `link_only:<reason>`. */
  extractStatus: string;
  /** Vault path of the trace note that found it; null when that run wrote no trace note. */
  tracePath: string | null;
  /** The provider's snippet/highlights as plain text; null when it gave none. */
  excerpt: string | null;
  /** Page text as sanitised markdown; null when there is none. */
  extracted: string | null;
  /** Why there is no page text, or what was odd about it (one sentence each). */
  notes: string[];
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
    extract_status: note.extractStatus,
    ...(note.tracePath ? { trace: `[[${linkTarget(note.tracePath)}]]` } : {}),
  };
  const yaml = stringify(properties, { lineWidth: 0, defaultStringType: "PLAIN", defaultKeyType: "PLAIN" });

  const lines: string[] = [];
  lines.push(
    `Web page saved into the vault on ${note.created}: ${markdownLink(displayHost(note.source), note.source)}. ` +
      `Found by ${providerDisplayName(note.provider)} during ${note.tracePath ? `[[${linkTarget(note.tracePath)}|a research run]]` : "a research run (no trace note was written)"}.`,
  );
  lines.push("", "## Provider excerpt", "");
  lines.push(note.excerpt && note.excerpt.trim() !== "" ? quoteText(note.excerpt) : "_The provider gave no excerpt._");
  lines.push("", "## Extracted text", "");
  for (const line of note.notes) lines.push(`_${escapeMarkdownText(line)}_`, "");
  if (note.extracted !== null && note.extracted.trim() !== "") lines.push(note.extracted);
  else if (note.notes.length === 0) lines.push("_No page text was kept._");
  return `---\n${yaml}---\n\n${lines.join("\n").trimEnd()}\n`;
}

/** Characters no OS (or Obsidian's link syntax) accepts in a file name. */
const UNSAFE_NAME_CHARS = /[\\/:*?"<>|#^[\]\p{Cc}]/gu;
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i;
/** Bytes kept for the title part: file systems allow 255, and a suffix like " 12" must fit. */
const MAX_NAME_BYTES = 150;

/** A file name (without `.md`) that is valid on Windows, macOS, Linux, Android and iOS. */
export function sourceNoteFileName(title: string, fallback = "Untitled source"): string {
  const cleaned = plainLine(title)
    .normalize("NFC")
    .replace(UNSAFE_NAME_CHARS, " ")
    .replace(/\s+/g, " ")
    .trim();
  let name = cutToBytes(cleaned, MAX_NAME_BYTES)
    .replace(/^[.\s]+/, "")
    .replace(/[.\s]+$/, "");
  if (name === "") name = fallback;
  if (WINDOWS_RESERVED.test(name)) name = `${name} (page)`;
  return name;
}

/** `Folder/Name.md`, or `Folder/Name 1.md`, `Name 2.md`… — the first that does not exist. */
export async function uniqueNotePath(store: NoteStore, folder: string, name: string, maxTries = 500): Promise<string> {
  const base = folder.replace(/^\/+|\/+$/g, "");
  const prefix = base === "" ? "" : `${base}/`;
  for (let n = 0; n < maxTries; n++) {
    const candidate = `${prefix}${name}${n === 0 ? "" : ` ${n}`}.md`;
    if (!(await store.exists(candidate))) return candidate;
  }
  throw new Error(`Could not find a free file name for "${name}" in ${base || "the vault root"}.`);
}

/** YYYY-MM-DD from an ISO date or date-time, or a date Date.parse understands; else "". */
export function isoDay(text: string | undefined): string {
  if (!text) return "";
  const direct = /^(\d{4}-\d{2}-\d{2})/.exec(text.trim());
  if (direct) return direct[1];
  const parsed = Date.parse(text);
  return Number.isFinite(parsed) ? new Date(parsed).toISOString().slice(0, 10) : "";
}

function cutToBytes(text: string, maxBytes: number): string {
  const encoder = new TextEncoder();
  let bytes = 0;
  let out = "";
  for (const ch of text) {
    bytes += encoder.encode(ch).byteLength;
    if (bytes > maxBytes) break;
    out += ch;
  }
  return out;
}

function linkTarget(path: string): string {
  return path.replace(/\.md$/i, "");
}

function displayHost(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\./, "");
  } catch {
    return url;
  }
}

function markdownLink(text: string, url: string): string {
  return `[${escapeMarkdownText(text)}](${url.replace(/[()\s<>]/g, (ch) => encodeURIComponent(ch))})`;
}
