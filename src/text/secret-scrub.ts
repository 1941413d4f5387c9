// Secrets out of everything a run prints or writes: the trace and its note, source notes, the
// CLI's stdout, stderr and JSON, the replay log, error messages. One rule for all of them, so no
// output can miss a form another one catches.
//
// A key reaches an output in more than one spelling: raw; JSON-escaped (`\u0073k-…`, which a
// provider or model server may send in a 200 body, and which JSON.parse turns back into the raw
// key); percent-encoded in a URL; base64-encoded (a Basic auth header, a data: URL). Escaping and
// percent-encoding may be applied to some characters only, so those two are matched character by
// character, in either case (a server may echo a key lower-cased); base64 is matched at each of the
// three byte alignments a key can start at. And with what no reader sees inside it (a BEL, a colour
// code, a zero-width space, a markdown escape), which an output strips or hides to show it whole.
import { escapeSequenceEnd } from "./control-chars";
import { CUT_MARK } from "./cut-text";

/** What a secret is replaced by, in every form. */
export const REDACTED = "[redacted]";

/**
 * What a web source's own messages and bodies put where its key was (`hideKey`): the wording its
 * error messages have always had, so they read the same; the forms matched are the same as above.
 */
export const KEY_HIDDEN = "[key hidden]";

/**
 * A secret shorter than this is no key (a test's `x`, a placeholder), and cannot be hidden without
 * hiding the letters of every word: a key of `x` made `"kind":"extractive"` into `"e[redacted]tractive"`
 * and scrubbed the field names a reader then looked for (the CLI stopped on `text`). Left alone.
 */
const MIN_HIDDEN_KEY = 4;

// ── a secret with what no reader sees inside it ──────────────────────────────────────────────

/**
 * `text` with each secret it shows once what no reader sees is out of it redacted, that unseen part
 * with it. A model server put a BEL, a colour code or a zero-width space inside the key it echoed:
 * the pattern missed it, then the CLI's terminal sanitiser took the BEL out and printed the key whole,
 * and a note or the panel showed it with the space unseen. The pattern runs once more over the text
 * as seen (`unseenParts` finds what goes), so no backtracking over what hides a key can freeze it.
 * Read twice where an ESC is: a terminal takes the character after it too (a short escape,
 * `ESC c`), a note only the ESC (`text/control-chars.ts`), and `sk-pr␛oj-…` is the key in a note.
 */
function redactAsSeen(text: string, pattern: RegExp, mark: string): string {
  const inTerminal = redactAsRead(text, pattern, mark, true);
  return inTerminal.includes("\u001b") ? redactAsRead(inTerminal, pattern, mark, false) : inTerminal;
}

/** `text` with each secret redacted that it shows once its unseen parts are out (`shortEscapes`: as a terminal reads it). */
function redactAsRead(text: string, pattern: RegExp, mark: string, shortEscapes: boolean): string {
  const unseen = unseenParts(text, shortEscapes);
  if (unseen.length === 0) return text;
  // The text as seen, a slice between two unseen parts at a time (one character at a time, a text
  // of a few megabytes took a second): slice k stands at seenAt[k] in `seen` and textAt[k] in `text`.
  let seen = "";
  const seenAt: number[] = [];
  const textAt: number[] = [];
  for (let k = 0, from = 0; k <= unseen.length; k += 2) {
    seenAt.push(seen.length);
    textAt.push(from);
    seen += text.slice(from, k < unseen.length ? unseen[k] : text.length);
    from = unseen[k + 1];
  }
  // Matches come in order, so the slice a place is in is found walking forward.
  let slice = 0;
  const inText = (at: number): number => {
    while (slice + 1 < seenAt.length && seenAt[slice + 1] <= at) slice++;
    return textAt[slice] + at - seenAt[slice];
  };
  let out = "";
  let copied = 0;
  for (const match of seen.matchAll(pattern)) {
    const start = inText(match.index);
    const last = inText(match.index + match[0].length - 1);
    out += text.slice(copied, start) + mark;
    copied = last + 1;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/**
 * Control characters but tab and line feed (a terminal is sent none; a carriage return alone goes
 * too, one before a line feed ends a line), soft hyphen, zero-width spaces and joiners, bidi controls,
 * invisible operators, variation selectors, fillers, the byte order mark: [first, last] code units. A
 * line break or a space is seen: it keeps two parts apart.
 */
const UNSEEN_RANGES: readonly (readonly [number, number])[] = [
  [0x00, 0x08], [0x0b, 0x1f], [0x7f, 0x9f], [0xad, 0xad], [0x34f, 0x34f], [0x61c, 0x61c], [0x115f, 0x1160],
  [0x17b4, 0x17b5], [0x180b, 0x180f], [0x200b, 0x200f], [0x202a, 0x202e], [0x2060, 0x206f], [0x3164, 0x3164],
  [0xfe00, 0xfe0f], [0xfeff, 0xfeff], [0xffa0, 0xffa0],
];

/** Tag characters (U+E0000–U+E007F): this high surrogate, then one of these low ones. */
const TAG_HIGH = 0xdb40;
const TAG_LOW: readonly [number, number] = [0xdc00, 0xdc7f];

const unit = (code: number): string => `\\u${code.toString(16).padStart(4, "0")}`;

/**
 * Where an unseen part may start (ESC among them, and a tag character's first half): the engine's own
 * scan, where a loop over every character cost a text with no such part ten times its one pass. Made
 * from the ranges, not written as a regex: the linter rightly distrusts control ranges there.
 */
const UNSEEN_START = new RegExp(`[${UNSEEN_RANGES.map(([first, last]) => `${unit(first)}-${unit(last)}`).join("")}${unit(TAG_HIGH)}]`, "g");

/** The parts of `text` no reader sees, as [start, end) pairs in order, parts that touch joined. */
function unseenParts(text: string, shortEscapes: boolean): number[] {
  const parts: number[] = [];
  UNSEEN_START.lastIndex = 0;
  for (let found = UNSEEN_START.exec(text); found !== null; found = UNSEEN_START.exec(text)) {
    const start = found.index;
    const end = unseenEnd(text, start, shortEscapes);
    if (end === start) continue;
    if (parts.length > 0 && parts[parts.length - 1] === start) parts[parts.length - 1] = end;
    else parts.push(start, end);
    UNSEEN_START.lastIndex = end;
  }
  return parts;
}

/**
 * Where what no reader sees, starting at `i` (where `UNSEEN_START` found it), ends (`i` when it is
 * seen): an unseen character, a tag character (U+E0000 block, two UTF-16 units), or a terminal's
 * escape sequence with what it carries, as `text/control-chars.ts` removes it whole: a CSI to its
 * final byte, a control string (OSC, DCS…) to BEL or ST, a short escape to its final character
 * (`shortEscapes`, as a terminal reads it; else the ESC alone, as a note does).
 */
function unseenEnd(text: string, i: number, shortEscapes: boolean): number {
  const code = text.charCodeAt(i);
  if (code === 0x1b) return escapeSequenceEnd(text, i, shortEscapes);
  if (code === TAG_HIGH) return isByteIn(text, i + 1, ...TAG_LOW) ? i + 2 : i;
  // A line's end as Windows writes it: a break, seen as "\n" is (every CRLF text was read twice).
  if (code === 0x0d && text.charCodeAt(i + 1) === 0x0a) return i;
  return i + 1;
}

/** Whether the code unit at `i` is within [low, high] (false past the end). */
function isByteIn(text: string, i: number, low: number, high: number): boolean {
  const code = text.charCodeAt(i);
  return code >= low && code <= high;
}

/** A cut string may end with the start of a secret; prefixes this long or longer are redacted too. */
const MIN_SECRET_PREFIX = 6;
/** Shorter base64 runs would match ordinary text; real keys give 20 and more. */
const MIN_BASE64_RUN = 8;

/**
 * Shorter values are placeholders a local server takes (`ollama`, `lm-studio`, `x`), not
 * credentials: callers that collect every key they can find skip them, since scrubbing them would
 * cut ordinary words out of every output. (A secret handed over explicitly is always scrubbed.)
 */
export const MIN_CREDENTIAL_LENGTH = 10;

/** Whether a value found in a key's place is worth scrubbing (see MIN_CREDENTIAL_LENGTH). */
export function isCredential(value: string | null | undefined): value is string {
  return typeof value === "string" && value.trim().length >= MIN_CREDENTIAL_LENGTH;
}

export interface SecretScrubber {
  /** True when there is nothing to scrub (no secret, or only empty ones). */
  readonly empty: boolean;
  /** The text with every form of every secret replaced by "[redacted]". */
  text(text: string): string;
  /** A copy of `value` with every string and object key scrubbed, at any depth. */
  value<T>(value: T): T;
}

export interface ScrubberOptions {
  /** What replaces a secret (default REDACTED). */
  mark?: string;
}

/** A scrubber for these secrets; null, undefined, empty and blank ones are ignored. */
export function secretScrubber(secrets: Iterable<string | null | undefined>, options: ScrubberOptions = {}): SecretScrubber {
  const known = [...new Set([...secrets].filter((s): s is string => typeof s === "string" && s.trim().length >= MIN_HIDDEN_KEY))].sort((a, b) => b.length - a.length);
  if (known.length === 0) return { empty: true, text: (t) => t, value: (v) => v };
  const mark = options.mark ?? REDACTED;
  const pattern = new RegExp(known.flatMap(secretForms).join("|"), "g");
  const text = (input: string): string => redactCutPrefix(redactAsSeen(input.replace(pattern, mark), pattern, mark), known, mark);
  return { empty: false, text, value: (v) => scrubValue(v, text) as typeof v };
}

/** Scrubbers of the provider keys seen lately: a provider hides its key in every message and log line of a call. */
const keyScrubbers = new Map<string, SecretScrubber>();
const KEY_SCRUBBERS_KEPT = 16;

/**
 * `text` with every form of a web source's `key` replaced by "[key hidden]" — its request URLs, log
 * lines, error messages and the body it answered (before anything parses it, so a JSON-escaped
 * key is caught while still escaped). Keys shorter than 4 characters are left alone.
 */
export function hideKey(text: string, key: string): string {
  if (key.length < MIN_HIDDEN_KEY) return text;
  let scrubber = keyScrubbers.get(key);
  if (!scrubber) {
    if (keyScrubbers.size >= KEY_SCRUBBERS_KEPT) keyScrubbers.delete(keyScrubbers.keys().next().value as string);
    scrubber = secretScrubber([key], { mark: KEY_HIDDEN });
    keyScrubbers.set(key, scrubber);
  }
  return scrubber.text(text);
}

/** `value` with every form of every secret — in strings and object keys, at any depth — redacted. */
export function scrubSecrets<T>(value: T, secrets: readonly (string | null | undefined)[]): T {
  return secretScrubber(secrets).value(value);
}

function scrubValue(value: unknown, text: (s: string) => string): unknown {
  if (typeof value === "string") return text(value);
  if (Array.isArray(value)) return value.map((v) => scrubValue(v, text));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[text(k)] = scrubValue(v, text);
    return out;
  }
  return value;
}

/** A string that was cut ("…") and ends with the first few characters of a secret loses that tail. */
function redactCutPrefix(text: string, secrets: readonly string[], mark: string): string {
  if (!text.endsWith(CUT_MARK)) return text;
  const body = text.slice(0, -CUT_MARK.length);
  for (const secret of secrets) {
    for (let n = Math.min(secret.length - 1, body.length); n >= MIN_SECRET_PREFIX; n--) {
      if (sameLetters(body.slice(-n), secret.slice(0, n))) return `${body.slice(0, -n)}${mark}${CUT_MARK}`;
    }
  }
  return text;
}

/** Whether two strings are the same but for case, as the scrubber's pattern compares them. */
function sameLetters(a: string, b: string): boolean {
  return a.length === b.length && (a === b || a.toLowerCase() === b.toLowerCase());
}

// ── the forms of one secret ──────────────────────────────────────────────────────────────────

const encoder = new TextEncoder();

/** Regex sources that match the secret: raw/escaped/encoded character by character, and base64. */
function secretForms(secret: string): string[] {
  const perCharacter = Array.from(secret, characterForms).join("");
  return [perCharacter, ...base64Runs(secret).map(escapeRegExp)];
}

/**
 * One character in any case (a server may echo a key lower- or upper-cased), each raw, JSON-escaped
 * (`\uXXXX`, or `\/` and friends) or percent-encoded as UTF-8.
 */
function characterForms(character: string): string {
  const cases = new Set([character, character.toLowerCase(), character.toUpperCase()].filter((c) => c.length === character.length));
  const forms = [...cases].flatMap((c) => {
    const units = Array.from({ length: c.length }, (_, i) => c.charCodeAt(i));
    const shortEscape = JSON_SHORT_ESCAPES[c];
    return [
      escapeRegExp(c),
      // A markdown escape (`sk\-proj`): a rendered note or the panel shows the character alone.
      ...(MARKDOWN_ESCAPABLE.test(c) ? [`\\\\${escapeRegExp(c)}`] : []),
      units.map((u) => `\\\\u${hexPattern(u, 4)}`).join(""),
      ...(shortEscape ? [escapeRegExp(shortEscape)] : []),
      Array.from(encoder.encode(c), (byte) => `%${hexPattern(byte, 2)}`).join(""),
    ];
  });
  return `(?:${forms.join("|")})`;
}

/** ASCII punctuation, which markdown lets a backslash escape. */
const MARKDOWN_ESCAPABLE = /^[!-/:-@[-`{-~]$/;

const JSON_SHORT_ESCAPES: Record<string, string> = { "/": "\\/", '"': '\\"', "\\": "\\\\" };

/** Hex digits of `n`, each letter matching either case. */
function hexPattern(n: number, digits: number): string {
  return Array.from(n.toString(16).padStart(digits, "0"), (d) => (/[a-f]/.test(d) ? `[${d}${d.toUpperCase()}]` : d)).join("");
}

/**
 * The base64 (and base64url) characters that depend only on the secret's bytes, for each of the
 * three alignments it can have inside a longer encoded value (`user:key` in a Basic header).
 */
function base64Runs(secret: string): string[] {
  const bytes = encoder.encode(secret);
  const runs = new Set<string>();
  for (let offset = 0; offset < 3; offset++) {
    const padded = new Uint8Array(offset + bytes.length + 2);
    padded.set(bytes, offset);
    const encoded = base64(padded);
    const first = Math.ceil((8 * offset) / 6);
    const end = Math.floor((8 * (offset + bytes.length)) / 6);
    const run = encoded.slice(first, end);
    if (run.length < MIN_BASE64_RUN) continue;
    runs.add(run);
    runs.add(run.replace(/\+/g, "-").replace(/\//g, "_"));
  }
  return [...runs];
}

const BASE64_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** Plain base64 without padding: written out so it is the same in Node, browsers and mobile. */
function base64(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const triple = (bytes[i] << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    const chars = Math.ceil(((Math.min(3, bytes.length - i)) * 8) / 6);
    for (let c = 0; c < chars; c++) out += BASE64_ALPHABET[(triple >> (18 - 6 * c)) & 63];
  }
  return out;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
}
