// The one file-name maker: how a question or a page title becomes the name of a note that every
// OS (Windows, macOS, Linux, Android, iOS) and Obsidian's link syntax accept, and how a name that
// is taken gets a free one. Trace notes and source notes both come through here.
import { folderPartsInside } from "../settings";

/** Characters no OS or Obsidian link accepts in a name, and controls, lone surrogates. */
const FORBIDDEN_IN_NAME = /[\\/:*?"<>|#^[\]\p{Cc}\p{Cs}]/gu;
/** Invisible formatting (bidi controls, zero-width joiners, soft hyphens): dropped, not spaced. */
const FORMAT_CHARACTERS = /\p{Cf}/gu;
/**
 * Windows' device names: refused as a name's part before its first dot, spaces after it ignored
 * (`CON.md`, `nul .x.md`, `CONIN$.md` all name the device).
 */
const WINDOWS_DEVICE = /^(con|prn|aux|nul|conin\$|conout\$|com[0-9¹²³]|lpt[0-9¹²³])$/i;

/**
 * Bytes a name may take before its suffix (` 999`) and `.md`. File systems allow 255 bytes;
 * names stay far below that so a readable name, the folders above it and Windows' 260-character
 * path limit all fit. Bytes, not characters: 80 CJK characters are 240 bytes.
 */
export const MAX_NAME_BYTES = 96;
/** ` 2` … ` 999` are tried after the name itself. */
export const MAX_NAME_SUFFIX = 999;

export interface NoteNameParts {
  /** Text we wrote (a date stamp), kept as it is and counted in the budget. */
  prefix?: string;
  /** Untrusted text (a question, a title): cleaned and cut to what the budget leaves. */
  text: string;
  /** The text part when nothing of `text` is left; as untrusted as `text` (a site's domain). */
  fallback: string;
}

/**
 * A note's name without `.md`: forbidden characters become spaces, no dots or spaces at the
 * ends (Windows drops them silently), NFC (macOS and Windows name the same file alike), at most
 * `MAX_NAME_BYTES` bytes cut at a word when one is near, never a Windows device name.
 */
export function noteFileName({ prefix = "", text, fallback }: NoteNameParts): string {
  const budget = MAX_NAME_BYTES - utf8Bytes(prefix);
  // The fallback is cleaned as the text is: a provider's "domain" can be any string ("../../Inbox").
  const part = namePart(text, budget) || namePart(fallback, budget) || "Untitled";
  const name = `${prefix}${part}`;
  // Only a name that starts with untrusted text (a page title) can be one; trace names start with a date.
  return notDeviceName(name);
}

/** `CON .x` → `CON (page) .x`: the part Windows reads as the device name is one no longer. */
function notDeviceName(name: string): string {
  const dot = name.indexOf(".");
  const device = (dot < 0 ? name : name.slice(0, dot)).trimEnd();
  return WINDOWS_DEVICE.test(device) ? `${device} (page)${name.slice(device.length)}` : name;
}

/**
 * `%%` opens an Obsidian comment, so no wikilink can hold a name with one (note-links.ts writes a
 * markdown link instead, which a property such as a source note's `trace` does not link): one `%`.
 */
const COMMENT_MARK = /%{2,}/g;

function namePart(text: string, budget: number): string {
  const cleaned = text.normalize("NFC").replace(FORMAT_CHARACTERS, "").replace(FORBIDDEN_IN_NAME, " ").replace(COMMENT_MARK, "%").replace(/\s+/g, " ");
  return cutAtWord(trimEdges(cleaned), budget);
}

/**
 * `folder/name.md`, or `name 2.md`, `name 3.md` … `name 999.md`: the first that `exists` says is
 * free; null when all are taken. The folder is normalised: `\` to `/`, no empty, `.` or `..` parts.
 */
export async function freeNotePath(folder: string, name: string, exists: (path: string) => boolean | Promise<boolean>): Promise<string | null> {
  for (let n = 1; n <= MAX_NAME_SUFFIX; n++) {
    const candidate = notePathIn(folder, n === 1 ? name : `${name} ${n}`);
    if (!(await exists(candidate))) return candidate;
  }
  return null;
}

/** `folder/name.md` with the folder normalised as `freeNotePath` does. */
export function notePathIn(folder: string, name: string): string {
  // Names come from noteFileName or a stamp of ours; one that names a folder is a bug, never a path.
  if (/[\\/]/.test(name) || name === "." || name === ".." || name.trim() === "") throw new Error(`"${name}" is not a note name.`);
  const dir = folderPartsInside(folder).join("/");
  return dir ? `${dir}/${name}.md` : `${name}.md`;
}

/** At most `maxBytes` UTF-8 bytes, never splitting a character; at the last space when it is past halfway. */
function cutAtWord(text: string, maxBytes: number): string {
  if (utf8Bytes(text) <= maxBytes) return text;
  let bytes = 0;
  let cut = "";
  for (const ch of text) {
    bytes += utf8Bytes(ch);
    if (bytes > maxBytes) break;
    cut += ch;
  }
  const space = cut.lastIndexOf(" ");
  return trimEdges(space > cut.length / 2 ? cut.slice(0, space) : cut);
}

// Read from each end in a loop: as `[\s.]+$`, a title's long run of dots before a word was read
// again from each of its dots.
function trimEdges(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && EDGE_CHAR.test(text[start])) start++;
  while (end > start && EDGE_CHAR.test(text[end - 1])) end--;
  return text.slice(start, end);
}

const EDGE_CHAR = /[\s.]/;

const encoder = new TextEncoder();

function utf8Bytes(text: string): number {
  return encoder.encode(text).byteLength;
}
