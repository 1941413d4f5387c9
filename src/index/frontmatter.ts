// YAML frontmatter: finding the block, parsing it without ever throwing, and reading the
// properties search cares about. A broken block is a problem to report, never a reason to drop
// the note: the caller indexes its lines as text instead.
import { LineCounter, parseDocument, visit } from "yaml";
import type { NoteProblem } from "./types";

/** Where the frontmatter block sits in the note's text. */
export interface FrontmatterSpan {
  /** Offsets of the YAML between the two `---` lines. */
  yamlStart: number;
  yamlEnd: number;
  /** Offset just past the closing `---` line: where the body begins. */
  bodyStart: number;
  /** 1-based line number of the first body line. */
  bodyLine: number;
}

export type FrontmatterLocation =
  | { kind: "none" }
  | { kind: "closed"; span: FrontmatterSpan }
  /** Opens with `---` but never closes: Obsidian shows it as text, and so do we. */
  | { kind: "unterminated" };

/** Finds a frontmatter block opening on the first line (at `from`, i.e. after any BOM). */
export function locateFrontmatter(text: string, from: number): FrontmatterLocation {
  if (!text.startsWith("---", from)) return { kind: "none" };
  let lineEnd = text.indexOf("\n", from);
  if (lineEnd < 0) lineEnd = text.length;
  if (text.slice(from + 3, lineEnd).trim() !== "") return { kind: "none" };
  let line = 2;
  let pos = lineEnd + 1;
  const yamlStart = Math.min(pos, text.length);
  while (pos < text.length) {
    let end = text.indexOf("\n", pos);
    if (end < 0) end = text.length;
    const c = text.charCodeAt(pos);
    // `---` or `...` closes the block; cheap first-character test before trimming.
    if ((c === 45 || c === 46) && isClosingLine(text.slice(pos, end))) {
      return {
        kind: "closed",
        span: { yamlStart, yamlEnd: pos, bodyStart: Math.min(end + 1, text.length), bodyLine: line + 1 },
      };
    }
    pos = end + 1;
    line++;
  }
  return { kind: "unterminated" };
}

function isClosingLine(line: string): boolean {
  const t = line.trimEnd();
  return t === "---" || t === "...";
}

export type FrontmatterRead =
  | { ok: true; data: Record<string, unknown> }
  | { ok: false; problem: NoteProblem };

/**
 * Parses the YAML of a frontmatter block. Never throws. A number is kept as it is written, as a
 * string ("1.10", "02134", "1e3"): it is only ever shown and searched, and YAML's reading of it
 * ("1.1", "2134", "1000") would tell the reader another value than the note says.
 */
export function readFrontmatter(yaml: string): FrontmatterRead {
  if (yaml.trim() === "") return { ok: true, data: {} };
  const simple = readSimpleYaml(yaml);
  if (simple) return { ok: true, data: simple };
  // The library takes some 12 µs for each error it meets: a block of 2,000,000 stray `]` would hold
  // the thread for 25 s, and one of 99,000 still for 1.3–2 s. Properties that the fast reader cannot
  // read and that run this long are text.
  if (yaml.length > MAX_LIBRARY_YAML_CHARS) {
    return { ok: false, problem: frontmatterProblem(`is ${yaml.length.toLocaleString("en-US")} characters long; properties longer than ${MAX_LIBRARY_YAML_CHARS.toLocaleString("en-US")} characters are read as text unless they are simple \`key: value\` lines`) };
  }
  return readWithLibrary(yaml);
}

/** The longest frontmatter handed to the `yaml` package: 20,000 stray `]` take it some 250 ms. The
 * longest that needed it in the seven corpora was 463 characters; flat ones of any length skip it. */
const MAX_LIBRARY_YAML_CHARS = 20_000;

/** `readFrontmatter` by the `yaml` package alone (the fast reader's yardstick in tests). */
export function readWithLibrary(yaml: string): FrontmatterRead {
  try {
    // Core schema: dates stay strings (`created: 2024-03-01`), as Obsidian shows them.
    // Where an error is, is worked out for the first one only: the library's pretty errors copy out
    // the whole line of each, and a line of 80,000 `]` (an error each) took 24 s.
    const lines = new LineCounter();
    const doc = parseDocument(yaml, { uniqueKeys: false, prettyErrors: false, lineCounter: lines, schema: "core", logLevel: "silent" });
    if (doc.errors.length > 0) {
      const error = doc.errors[0];
      // Said as the pretty message's first line was, less its place: a token's spaces at its end stay.
      const what = error.pos[0] !== -1 && !error.message.includes("\n") ? error.message.trimStart() : firstLine(error.message);
      // The YAML starts on the note's second line, after the opening `---`.
      const where = error.pos[0] !== -1 ? ` on line ${lines.linePos(error.pos[0]).line + 1}` : "";
      return { ok: false, problem: frontmatterProblem(`is not valid YAML${where} (${what})`) };
    }
    visit(doc, {
      Scalar(_key, node) {
        if (typeof node.value === "number" && Number.isFinite(node.value) && typeof node.source === "string") node.value = node.source;
      },
    });
    const value: unknown = doc.toJS({ maxAliasCount: 50 });
    if (value === null || value === undefined) return { ok: true, data: {} };
    if (typeof value !== "object" || Array.isArray(value)) {
      return { ok: false, problem: frontmatterProblem("is not a set of properties (expected `key: value` lines)") };
    }
    return { ok: true, data: value as Record<string, unknown> };
  } catch (error) {
    // Alias bombs and other pathological input end up here.
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, problem: frontmatterProblem(`could not be read (${firstLine(message)})`) };
  }
}

/**
 * Reads the flat `key: value` / `key:` + `- item` frontmatter nearly every note has, giving the
 * same result the `yaml` package would, in a fraction of its time (it dominated cold indexing).
 * Returns null at the first construct it is not certain about, and the caller uses `yaml`.
 */
export function readSimpleYaml(src: string): Record<string, unknown> | null {
  const data: Record<string, unknown> = {};
  let list: unknown[] | null = null; // the sequence being filled under the last `key:`
  let listKey = "";
  let pos = 0;
  const n = src.length;
  while (pos < n) {
    let end = src.indexOf("\n", pos);
    if (end < 0) end = n;
    let line = src.slice(pos, end);
    pos = end + 1;
    if (line.charCodeAt(line.length - 1) === 13) line = line.slice(0, -1);
    if (line.indexOf("\t") >= 0) return null;
    const text = line.trimEnd();
    if (text === "" || text.charCodeAt(0) === 35 /* # */) continue;

    const indent = text.length - text.trimStart().length;
    if (text.charCodeAt(indent) === 45 /* - */ && (text.length === indent + 1 || text.charCodeAt(indent + 1) === 32)) {
      // A `- item` line only belongs to a `key:` whose value was left empty.
      if (list === null) return null;
      const item = plainScalar(text.slice(indent + 1).trim());
      if (item === NOT_SIMPLE) return null;
      list.push(item);
      data[listKey] = list;
      continue;
    }
    if (indent > 0) return null;
    list = null;

    const colon = text.indexOf(":");
    if (colon <= 0) return null;
    if (colon + 1 < text.length && text.charCodeAt(colon + 1) !== 32) return null;
    const key = text.slice(0, colon);
    // `data.__proto__ = [a]` would set the object's prototype, not a property: the library keeps it as a key.
    if (!SIMPLE_KEY.test(key) || key === "__proto__") return null;
    const rest = text.slice(colon + 1).trim();
    if (rest === "") {
      // Either null or the head of a block sequence; the next lines decide.
      data[key] = null;
      list = [];
      listKey = key;
      continue;
    }
    const value = rest.charCodeAt(0) === 91 /* [ */ ? flowSequence(rest) : plainScalar(rest);
    if (value === NOT_SIMPLE) return null;
    data[key] = value;
  }
  return data;
}

const NOT_SIMPLE = Symbol("not simple YAML");
const SIMPLE_KEY = /^[A-Za-z_][\w.-]*(?: [\w.-]+)*$/;
const INTEGER = /^[-+]?[0-9]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
// Characters that give a plain scalar's first character a YAML meaning.
const INDICATOR = new Set("-?:,[]{}#&*!|>'\"%@`");

/** A scalar on one line, typed the way YAML 1.2's core schema types it, but a number kept as it is
 * written (`readFrontmatter`); NOT_SIMPLE if unsure. */
function plainScalar(s: string): unknown {
  if (s === "") return null;
  const first = s[0];
  if (first === '"') {
    // No escapes: a backslash means YAML would rewrite the string.
    return s.length >= 2 && s.endsWith('"') && s.indexOf('"', 1) === s.length - 1 && !s.includes("\\")
      ? s.slice(1, -1)
      : NOT_SIMPLE;
  }
  if (first === "'") {
    return s.length >= 2 && s.endsWith("'") && s.indexOf("'", 1) === s.length - 1 ? s.slice(1, -1) : NOT_SIMPLE;
  }
  if (INDICATOR.has(first)) return NOT_SIMPLE;
  if (s.includes(": ") || s.includes(" #") || s.endsWith(":")) return NOT_SIMPLE;
  switch (s) {
    case "~": case "null": case "Null": case "NULL":
      return null;
    case "true": case "True": case "TRUE":
      return true;
    case "false": case "False": case "FALSE":
      return false;
  }
  const c = s.charCodeAt(0);
  if ((c >= 48 && c <= 57) || c === 43 || c === 46) {
    // Plain decimal numbers only, as written; hex, octal and `.inf` are left to the real parser.
    if (INTEGER.test(s) || FLOAT.test(s)) return s;
    if (s.startsWith("0x") || s.startsWith("0o") || c === 46) return NOT_SIMPLE;
  }
  return s;
}

/** `[a, b, "c"]` with plain or simply quoted items; NOT_SIMPLE for anything nested. */
function flowSequence(s: string): unknown {
  if (!s.endsWith("]")) return NOT_SIMPLE;
  const inner = s.slice(1, -1);
  if (/[[\]{}]/.test(inner)) return NOT_SIMPLE;
  if (inner.trim() === "") return [];
  const items: unknown[] = [];
  for (const part of inner.split(",")) {
    const item = part.trim();
    if (item === "") return NOT_SIMPLE;
    const value = plainScalar(item);
    if (value === NOT_SIMPLE) return NOT_SIMPLE;
    items.push(value);
  }
  return items;
}

export function frontmatterProblem(what: string): NoteProblem {
  return { kind: "frontmatter", message: `Frontmatter ${what}; the note is indexed as plain text.` };
}

function firstLine(message: string): string {
  const nl = message.indexOf("\n");
  return (nl < 0 ? message : message.slice(0, nl)).trim();
}

/** The properties search uses, read from parsed frontmatter. */
export interface NoteProperties {
  title: string | null;
  aliases: string[];
  /** As written (may carry `#`, any case); the note parser normalises them. */
  tags: string[];
  sourceUrls: string[];
  /** Prose-like property values (description, summary…) to search with the preamble. */
  text: string[];
}

// Properties that are structure or bookkeeping, not words a person would search for.
const NOT_TEXT = new Set([
  "title", "aliases", "alias", "tags", "tag", "source", "url", "id", "uid", "created", "updated",
  "modified", "date", "cssclass", "cssclasses", "permalink", "publish", "layout", "nav_order",
  "parent", "has_children", "stub", "template", "lang", "draft", "weight", "slug", "image", "banner",
  // Written by promotion into source notes (Web Clipper–style): facts about the fetch, not content.
  "published", "retrieved", "provider", "extract_status", "trace", "query", "favicon",
]);

export function readProperties(data: Record<string, unknown>): NoteProperties {
  const props: NoteProperties = { title: null, aliases: [], tags: [], sourceUrls: [], text: [] };
  for (const key of Object.keys(data)) {
    const value = data[key];
    const name = key.toLowerCase();
    switch (name) {
      case "title":
        if (props.title === null && (typeof value === "string" || typeof value === "number")) {
          const title = String(value).trim();
          if (title) props.title = title;
        }
        break;
      case "aliases":
      case "alias":
        // Item by item, as Obsidian reads them: a listed "Smith, John" is one name; only a plain
        // string (the older way to write several) is split at its commas.
        for (const alias of listOf(value, /,/, { splitItems: false })) props.aliases.push(alias);
        break;
      case "tags":
      case "tag":
        for (const tag of listOf(value, /[,\s]+/)) props.tags.push(tag);
        break;
      case "source":
      case "url":
        for (const url of listOf(value, null)) props.sourceUrls.push(url);
        break;
      default:
        if (!NOT_TEXT.has(name)) collectText(value, props.text);
    }
  }
  return props;
}

/** A property value a reader can see: a figure (a number, a date), "yes", or prose (links unread). */
export type ShownValue = { kind: "figure" | "yes" | "prose"; text: string };

/**
 * The properties a reader is told about, in the note's order: those with a value a reader can see
 * (a list's items, one level deep, or the value itself) that are not bookkeeping (id, created,
 * aliases…). The one filter for what search reads of them and for what a shown note displays.
 */
export function shownProperties(data: Record<string, unknown>): { name: string; values: ShownValue[] }[] {
  const out: { name: string; values: ShownValue[] }[] = [];
  for (const name of Object.keys(data)) {
    if (name.trim() === "" || NOT_TEXT.has(name.toLowerCase())) continue;
    const value = data[name];
    const values = (Array.isArray(value) ? value : [value]).flatMap((item) => shownValue(item) ?? []);
    if (values.length > 0) out.push({ name, values });
  }
  return out;
}

/**
 * What search reads of the properties beyond their prose (which goes with the preamble's text): the
 * names of those shown, and their values that are figures ("1982", "2023-09-12"). A note that is
 * all properties (a film with `director` and `year`) then answers "who directed it", "what year"
 * and "1982". A camelCase name ("imdbId") is split by the analyser, as any word is.
 */
export function propertyWords(data: Record<string, unknown>): string[] {
  return shownProperties(data).flatMap(({ name, values }) => [name, ...values.filter((v) => v.kind === "figure").map((v) => v.text)]);
}

/**
 * A shown property as one line of text, "artist: Paul Chambers;", its prose values read by `prose`
 * (links become their text), or null when nothing of it is left to read.
 */
export function propertyLine(property: { name: string; values: ShownValue[] }, prose: (value: string) => string): string | null {
  const values = property.values.map((v) => (v.kind === "prose" ? prose(v.text) : v.text)).filter((t) => t !== "");
  // The semicolon keeps properties apart where a snippet runs the lines together.
  return values.length > 0 ? `${property.name}: ${values.join(", ")};` : null;
}

function shownValue(value: unknown): ShownValue | null {
  if (value === true) return { kind: "yes", text: "yes" };
  if (typeof value === "number") return Number.isFinite(value) ? { kind: "figure", text: String(value) } : null;
  if (typeof value !== "string") return null;
  const text = value.trim();
  if (text === "") return null;
  if (isWrittenNumber(text)) return { kind: "figure", text };
  if (isProse(text)) return { kind: "prose", text };
  // With no letter: a figure when short; longer ones are codes or blobs, and bare URLs are neither.
  return text.length <= MAX_FIGURE_CHARS && !/\p{L}/u.test(text) ? { kind: "figure", text } : null;
}

/** Longer values with no letter are codes or blobs, not figures anyone types. */
const MAX_FIGURE_CHARS = 32;

/**
 * A property that may be a list or a single value. Strings are split on `separator` if given; a
 * list's items too, unless `splitItems` is false.
 */
function listOf(value: unknown, separator: RegExp | null, { splitItems = true } = {}): string[] {
  const out: string[] = [];
  const add = (item: unknown, split: RegExp | null): void => {
    if (typeof item !== "string" && typeof item !== "number") return;
    const s = String(item);
    for (const part of split ? s.split(split) : [s]) {
      const t = part.trim();
      if (t) out.push(t);
    }
  };
  if (Array.isArray(value)) for (const item of value) add(item, splitItems ? separator : null);
  else add(value, separator);
  return out;
}

/** The prose among a property's values (one level of a list deep), as `shownValue` reads them. */
function collectText(value: unknown, out: string[]): void {
  for (const item of Array.isArray(value) ? value : [value]) {
    const shown = shownValue(item);
    if (shown?.kind === "prose") out.push(shown.text);
  }
}

/** A number as YAML reads one, written any way it may be ("1.10", "1e3", "0x1F"). */
function isWrittenNumber(s: string): boolean {
  return s.length <= MAX_FIGURE_CHARS && (INTEGER.test(s) || FLOAT.test(s) || /^0(?:x[0-9a-f]+|o[0-7]+)$/i.test(s));
}

/** Words someone might search for: has a letter, and is not a bare URL. */
function isProse(s: string): boolean {
  return /\p{L}/u.test(s) && !/^\s*[a-z][a-z0-9+.-]*:\/\/\S*\s*$/i.test(s);
}
