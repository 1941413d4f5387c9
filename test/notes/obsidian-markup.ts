// A small model of what Obsidian's reading view makes of a note, for property tests of the
// escaper: it counts the links, embeds, wikilinks, tags, HTML, callouts, headings, highlights,
// comments, math, block ids, Dataview inline fields and code it would render, honouring
// backslash escapes, entities and code spans as CommonMark does. It errs on the side of seeing
// too much (any unescaped `[` may open a link, any `$` math), which is the safe side for a test
// that says "the escaped text adds none". Emphasis and bare URLs (which Obsidian links as text
// it shows) are not modelled.

export type MarkupKind =
  | "link"
  | "embed"
  | "wikilink"
  | "tag"
  | "html"
  | "callout"
  | "heading"
  | "highlight"
  | "comment"
  | "math"
  | "block_id"
  | "inline_field"
  | "code";

export type MarkupCount = Partial<Record<MarkupKind, number>>;

const ASCII_PUNCTUATION = /[!-/:-@[-`{-~]/;
const ENTITY = /^&(?:#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});/;
const SETEXT_UNDERLINE = /^ {0,3}(=+|-+)[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

export function markupIn(markdown: string): MarkupCount {
  const found: MarkupCount = {};
  const add = (kind: MarkupKind) => void (found[kind] = (found[kind] ?? 0) + 1);
  let previousWasText = false;
  let previousWasQuote = false;
  let fence: string | null = null;
  for (const raw of markdown.split(/\r\n?|\n/)) {
    if (fence !== null) {
      if (raw.trim().startsWith(fence)) fence = null;
      continue;
    }
    let line = raw;
    let quoted = false;
    while (/^ {0,3}>/.test(line)) {
      line = line.replace(/^ {0,3}> ?/, "");
      quoted = true;
    }
    if (quoted && !previousWasQuote && /^\s*\[!/.test(line)) add("callout");
    previousWasQuote = quoted;
    line = line.replace(/^ {0,3}(?:[-+*]|\d{1,9}[.)])(?: +|$)/, "");
    const open = FENCE.exec(line);
    if (open) {
      add("code");
      fence = open[1];
      previousWasText = false;
      continue;
    }
    if (previousWasText && SETEXT_UNDERLINE.test(line)) add("heading");
    if (/^ {0,3}#{1,6}(?=[ \t]|$)/.test(line)) add("heading");
    if (/^ {0,3}<[A-Za-z/!?]/.test(line)) add("html");
    inlineMarkup(line, add);
    previousWasText = line.trim() !== "";
  }
  return found;
}

function inlineMarkup(line: string, add: (kind: MarkupKind) => void): void {
  let i = 0;
  while (i < line.length) {
    const rest = line.slice(i);
    const c = line[i];
    if (c === "\\" && i + 1 < line.length && ASCII_PUNCTUATION.test(line[i + 1])) {
      i += 2;
      continue;
    }
    const entity = c === "&" ? ENTITY.exec(rest) : null;
    if (entity) {
      i += entity[0].length;
      continue;
    }
    if (c === "`") {
      const run = /^`+/.exec(rest)![0];
      const close = line.indexOf(run, i + run.length);
      if (close > 0 && line[close + run.length] !== "`") {
        add("code");
        i = close + run.length;
        continue;
      }
      i += run.length;
      continue;
    }
    const kind = markupAt(line, i);
    if (kind) {
      add(kind.kind);
      i += kind.length;
      continue;
    }
    i++;
  }
}

function markupAt(line: string, i: number): { kind: MarkupKind; length: number } | null {
  const rest = line.slice(i);
  const before = i === 0 ? " " : line[i - 1];
  if (rest.startsWith("![[")) return { kind: "embed", length: 3 };
  if (rest.startsWith("[[")) return { kind: "wikilink", length: 2 };
  if (rest.startsWith("[")) return { kind: "link", length: 1 };
  if (/^<[A-Za-z/!?%]/.test(rest)) return { kind: "html", length: 1 };
  if (/^#[^\s#]/.test(rest) && /\s/.test(before)) return { kind: "tag", length: 1 };
  if (rest.startsWith("==")) return { kind: "highlight", length: 2 };
  if (rest.startsWith("%%")) return { kind: "comment", length: 2 };
  if (rest.startsWith("::")) return { kind: "inline_field", length: 2 };
  if (rest.startsWith("$")) return { kind: "math", length: 1 };
  if (/^\^[A-Za-z0-9-]/.test(rest) && /\s/.test(before)) return { kind: "block_id", length: 1 };
  return null;
}

/** The kinds of which `note` has more than `template`: what the inserted text added. */
export function addedMarkup(note: string, template: string): MarkupCount {
  const inNote = markupIn(note);
  const inTemplate = markupIn(template);
  const added: MarkupCount = {};
  for (const [kind, count] of Object.entries(inNote) as [MarkupKind, number][]) {
    const extra = count - (inTemplate[kind] ?? 0);
    if (extra > 0) added[kind] = extra;
  }
  return added;
}
