// Inline markdown → the plain words the search index tokenizes. One left-to-right scan per line
// that copies runs of ordinary text by slicing, so a line of prose costs one `slice`, not one
// concatenation per character. Tags and link targets found on the way are collected for the note.
import { BacktickRuns } from "../text/backtick-runs";
import { codeSpan } from "./block-text";
import { opensHiccup, readHiccup } from "./hiccup";
import { expressionEnd, ExpressionSpans, MAX_EXPRESSION, opensExpression } from "./space-lua";

/** Where one line's tags and link targets go; shared by every line of a note. */
export interface InlineSink {
  /** Tags as written (without `#`, original case); the note parser normalises them. */
  tags: string[];
  /** Link targets (`[[target]]`, `![[target]]`, relative markdown links), without `#heading`. */
  links: string[];
  /**
   * For a note about to be shown: no text for what Obsidian's reading view hides or shows as no words,
   * a `%%comment%%` and an image or embed (`![alt](x.png)`, `![[x.png]]`, `![[Other note]]`, whose
   * content the text cannot hold). Their tags and links are still collected. The index reads their
   * words: Obsidian's search finds a comment's, and alt text and file names help find a note. An HTML
   * entity (`&lt;`) shows as its character; the index reads it as written. A wiki-link shows as Obsidian
   * shows it: its alias, else its text as written, folders too, a heading after " > " (`[[API/index#Usage]]`
   * is "API/index > Usage"; the index reads "index Usage"). Logseq's `{{embed …}}`, `{{query …}}` and
   * `{{renderer …}}` show what they fetch, none of the note's words: nothing, as an embed.
   */
  readingView?: boolean;
  /** In a shown parse, how many images, embeds and such macros were read (and shown as no words). */
  objects?: number;
}

// Characters that can start inline markup. A line without any of them is already plain text,
// which is the common case for prose, so it skips the scan entirely.
const MARKUP = /[[\]*_`<#=\\|%!]/;
/** What only a shown parse reads as more than text: an entity, a Logseq macro, a SilverBullet expression. */
const SHOWN_MARKUP = /&|\{\{|\$\{/;

const BACKSLASH = 92;
const HASH = 35;
const BACKTICK = 96;

/** Reduces one line of inline markdown to plain text, collecting tags and links into `sink`. */
export function inlineToText(line: string, sink: InlineSink): string {
  if (!MARKUP.test(line) && !(sink.readingView === true && SHOWN_MARKUP.test(line))) return line;
  // `[1]: https://… "Title"` defines where `[text][1]` goes: Obsidian shows none of it, and its
  // address and title read as a finding of the note.
  if (line.charCodeAt(0) === 91 /* [ */ && LINK_DEFINITION.test(line)) return "";
  const n = line.length;
  const next = new NextOf(line);
  let runs: BacktickRuns | null = null;
  // Characters Logseq's hiccup may read on this line: about once each, so a line of many `[:a` no bracket closes stays linear.
  let hiccupBudget = sink.readingView === true ? n + MAX_HICCUP : 0;
  // Characters SilverBullet's `${…}` expressions may read on this line, for the same reason.
  let expressionBudget = sink.readingView === true ? n + MAX_EXPRESSION : 0;
  // Where the line's SilverBullet expressions lie, looked for only once a tag or a link is read: in one,
  // `#group` is Lua's length and `[[` opens a query or a string (`"[[" .. p.name .. "]]"`).
  let expressions: ExpressionSpans | null = null;
  let out = "";
  let copyFrom = 0; // start of the ordinary text not yet copied to `out`
  // A footnote's text, `[^1]: Hard water means…`, without its marker: ": Hard water means…" was quoted.
  let i = footnoteTextStart(line);
  if (i > 0) copyFrom = i;
  while (i < n) {
    const c = line.charCodeAt(i);
    switch (c) {
      case BACKSLASH: {
        // `\*` is a literal star: drop the backslash, copy the character untouched.
        if (i + 1 < n && isAsciiPunctuation(line.charCodeAt(i + 1))) {
          out += line.slice(copyFrom, i);
          copyFrom = i + 1;
          i += 2;
          continue;
        }
        break;
      }
      case BACKTICK: {
        runs ??= new BacktickRuns(line);
        const end = inlineCodeEnd(line, i, runs);
        if (end > 0) {
          // Code is searchable, but nothing inside it is markup (no tags, no links). It keeps its
          // backticks, so a quoted sentence shows code as the note has it (the analyser splits on them).
          out += line.slice(copyFrom, end);
          copyFrom = i = end;
          continue;
        }
        // An unmatched run of backticks is literal; skip the whole run.
        while (i < n && line.charCodeAt(i) === BACKTICK) i++;
        continue;
      }
      case 33 /* ! */: {
        if (codeAt(line, i + 1) === 91 /* [ */) {
          // `![[embed]]` and `![alt](src)` read as their link text; the `!` goes.
          const end = codeAt(line, i + 2) === 91 ? wikilinkEnd(line, i + 1, next) : markdownLinkEnd(line, i + 1, next);
          if (end > 0 && sink.readingView === true) {
            inlineToText(line.slice(i + 1, end), sink);
            sink.objects = (sink.objects ?? 0) + 1;
            out += line.slice(copyFrom, i);
            copyFrom = i = end;
            continue;
          }
          if (end > 0) {
            out += line.slice(copyFrom, i);
            copyFrom = i + 1;
            i += 1;
            continue;
          }
        }
        break;
      }
      case 91 /* [ */: {
        if (codeAt(line, i + 1) === 91) {
          const end = wikilinkEnd(line, i, next);
          if (end > 0) {
            const inner = line.slice(i + 2, end - 2);
            const into = (expressions ??= new ExpressionSpans(line)).holds(i) ? codeSink(sink) : sink;
            out += line.slice(copyFrom, i) + (sink.readingView === true ? shownWikilinkText(inner, into) : wikilinkText(inner, into));
            copyFrom = i = end;
            continue;
          }
        } else if (codeAt(line, i + 1) === 94 /* ^ */) {
          // Footnote reference `[^1]`: not words.
          const close = next.at("]", i + 2);
          if (close > 0) {
            out += line.slice(copyFrom, i);
            copyFrom = i = close + 1;
            continue;
          }
        } else if (isMnemonicBracket(line, i)) {
          // tldr-style mnemonics mark a letter inside a word: `e[x]tract`, `[c]reate`. The word is
          // what a reader sees, so the brackets go and the word stays whole.
          out += line.slice(copyFrom, i);
          const close = line.indexOf("]", i);
          out += line.slice(i + 1, close);
          copyFrom = i = close + 1;
          continue;
        } else {
          if (hiccupBudget > 0 && opensHiccup(line, i)) {
            // Logseq's `[:a {:href "…"} "@EdTravelling"]` shows as HTML: its words, or an object.
            const { form, read } = readHiccup(line, i, i + MAX_HICCUP);
            hiccupBudget -= read;
            if (form !== null) {
              if (form.text === "") sink.objects = (sink.objects ?? 0) + 1;
              out += line.slice(copyFrom, i) + form.text;
              copyFrom = i = form.end;
              continue;
            }
          }
          const end = markdownLinkEnd(line, i, next);
          if (end > 0) {
            const close = labelClose;
            const label = line.slice(i + 1, close);
            const into = (expressions ??= new ExpressionSpans(line)).holds(i) ? codeSink(sink) : sink;
            addMarkdownLinkTarget(line.slice(close + 2, end - 1), into);
            out += line.slice(copyFrom, i) + inlineToText(label, into);
            copyFrom = i = end;
            continue;
          }
        }
        break;
      }
      case 60 /* < */: {
        // An HTML comment ends at `-->`, not at a `>` inside it: "<!-- if temp > 30 -->" left "30 -->" shown.
        const commentEnd = line.startsWith("<!--", i) ? next.at("-->", i + 4) : -1;
        if (commentEnd > 0) {
          out += `${line.slice(copyFrom, i)} `;
          copyFrom = i = commentEnd + 3;
          continue;
        }
        const after = codeAt(line, i + 1);
        if (isAsciiLetter(after) || after === 47 /* / */ || after === 33 /* ! */) {
          const close = next.at(">", i + 2);
          if (close > 0) {
            const inner = line.slice(i + 1, close);
            // `<https://…>` is an autolink: keep the address; anything else is a tag to strip.
            const keep = inner.includes("://") && !inner.includes(" ") ? inner : " ";
            out += line.slice(copyFrom, i) + keep;
            copyFrom = i = close + 1;
            continue;
          }
        }
        break;
      }
      case HASH: {
        if (i === 0 || isSpace(line.charCodeAt(i - 1))) {
          const end = tagEnd(line, i + 1);
          if (end > 0) {
            const tag = line.slice(i + 1, end);
            if (!(expressions ??= new ExpressionSpans(line)).holds(i)) sink.tags.push(tag);
            out += line.slice(copyFrom, i) + tag.replace(/\//g, " ");
            copyFrom = i = end;
            continue;
          }
        }
        break;
      }
      case 36 /* $ */: {
        // SilverBullet's `${query[[…]]}` is code: shown as written, as a code span, never its `[[` as a
        // link or its `==` as a highlight. The index reads it as any text, but takes no tag or link from it
        // (`ExpressionSpans`: a "link" there names no note).
        if (expressionBudget <= 0 || !opensExpression(line, i)) break;
        const { end, read } = expressionEnd(line, i, i + MAX_EXPRESSION);
        expressionBudget -= read;
        if (end < 0) break;
        out += line.slice(copyFrom, i) + codeSpan(line.slice(i, end));
        copyFrom = i = end;
        continue;
      }
      case 123 /* { */: {
        const end = sink.readingView === true ? hiddenMacroEnd(line, i, next) : -1;
        if (end > 0) {
          // Its page or block reference is still one of the note's links.
          inlineToText(line.slice(i + 2, end - 2), sink);
          sink.objects = (sink.objects ?? 0) + 1;
          out += line.slice(copyFrom, i);
          copyFrom = i = end;
          continue;
        }
        break;
      }
      case 38 /* & */: {
        // `&lt;` shows as "<" (the escaper writes web text's "<" so into a source note), `&#8212;` as "—".
        const entity = sink.readingView === true ? entityAt(line, i) : null;
        if (entity !== null) {
          out += line.slice(copyFrom, i) + entity.text;
          copyFrom = i = entity.end;
          continue;
        }
        break;
      }
      case 42 /* * */:
      case 124 /* | */: {
        // Emphasis stars go; table pipes become spaces so cells do not run together.
        out += line.slice(copyFrom, i) + (c === 124 ? " " : "");
        copyFrom = i + 1;
        break;
      }
      case 95 /* _ */: {
        // `_emphasis_` goes, but `snake_case` keeps its underscore.
        if (!isWordChar(codeAt(line, i - 1)) || !isWordChar(codeAt(line, i + 1))) {
          out += line.slice(copyFrom, i);
          copyFrom = i + 1;
        }
        break;
      }
      // `~~struck out~~` keeps its marks (the analyser splits on them): a quote of it must not pass
      // off what the note withdrew as what it says ("~~Descale with vinegar.~~ Use citric acid.").
      case 61 /* = */:
      case 37 /* % */: {
        // `==highlight==`, `%%comment%%`: only doubled markers are markup.
        const commentEnd = c === 37 && sink.readingView === true && codeAt(line, i + 1) === c ? next.at("%%", i + 2) : -1;
        if (commentEnd > 0) {
          inlineToText(line.slice(i + 2, commentEnd), sink);
          out += line.slice(copyFrom, i);
          copyFrom = i = commentEnd + 2;
          continue;
        }
        if (codeAt(line, i + 1) === c) {
          out += line.slice(copyFrom, i);
          copyFrom = i = i + 2;
          continue;
        }
        break;
      }
    }
    i++;
  }
  return copyFrom === 0 ? line : out + line.slice(copyFrom);
}

/** The HTML entities notes hold (web pages' and the escaper's), as the characters they show. */
const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0", mdash: "—", ndash: "–", hellip: "…",
  lsquo: "‘", rsquo: "’", ldquo: "“", rdquo: "”", laquo: "«", raquo: "»", copy: "©", reg: "®", trade: "™",
  times: "×", middot: "·", bull: "•", deg: "°", euro: "€", pound: "£",
};
const ENTITY = /&(?:#(\d{1,7})|#[xX]([\da-fA-F]{1,6})|([A-Za-z]{2,8}));/y;

/** The character an entity at `at` (`&lt;`, `&#60;`, `&#x3C;`) shows and where it ends; null for none this reads. */
function entityAt(line: string, at: number): { text: string; end: number } | null {
  ENTITY.lastIndex = at;
  const m = ENTITY.exec(line);
  if (m === null) return null;
  const end = at + m[0].length;
  if (m[3] !== undefined) return Object.hasOwn(NAMED_ENTITIES, m[3]) ? { text: NAMED_ENTITIES[m[3]], end } : null;
  const code = m[1] !== undefined ? Number(m[1]) : parseInt(m[2], 16);
  // No NUL, surrogate or code point past Unicode: CommonMark shows those as U+FFFD; left as written here.
  return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? { text: String.fromCodePoint(code), end } : null;
}

/**
 * A link reference definition, the whole line: a label (no brackets, not a footnote's `^`), a colon,
 * a destination and an optional title. A line with more words after the destination is prose.
 */
const LINK_DEFINITION = /^\[(?!\^)[^[\]]{1,999}\]:[ \t]*(?:<[^<>]*>|[^\s<]\S*)(?:[ \t]+(?:"[^"]*"|'[^']*'|\([^()]*\)))?[ \t]*$/;

/** Where a footnote definition's text starts (`[^1]: text`), or 0 when the line is none. */
function footnoteTextStart(line: string): number {
  if (line.charCodeAt(0) !== 91 || codeAt(line, 1) !== 94 /* ^ */) return 0;
  const close = line.indexOf("]:", 2);
  if (close < 3 || /[\s[\]]/.test(line.slice(2, close))) return 0;
  let i = close + 2;
  while (isSpace(codeAt(line, i))) i++;
  return i;
}

/**
 * Logseq's macros that show what they fetch (a page or block embedded, a query's results, a plugin's
 * view, a deck of cards, a video), never the words written in them: `{{embed [[Page]]}}`, `{{query (task TODO)}}`.
 */
const HIDDEN_MACRO = /^\{\{(?:embed|query|renderer|cards|video|youtube|tweet|twitter|pdf)(?=[\s}])/;

/** End (exclusive) of a macro at `start` that a shown note hides, or -1; its braces may be more than two (`{{{embed …}}}`), and all go. */
function hiddenMacroEnd(line: string, start: number, next: NextOf): number {
  let open = start;
  while (codeAt(line, open) === 123) open++;
  const braces = open - start;
  if (braces < 2 || !HIDDEN_MACRO.test(line.slice(open - 2, open + 10))) return -1;
  const close = next.at("}}", open);
  if (close < 0) return -1;
  let end = close + 2;
  while (end - close < braces && codeAt(line, end) === 125) end++;
  return end;
}

const DOTTED_NOTE = /^[\w-]+(?:\.[\w-]+)+(?:#.*)?$/;
const DENDRON_VAULT = /^dendron:\/\/[^/|]*\//;

/** The inside of `[[…]]` read: the note it names (Dendron's way round too) and its alias; its target recorded. */
function readWikilink(inner: string, sink: InlineSink): { target: string; alias: string; hash: number; file: string } {
  const bar = inner.indexOf("|");
  // Inside tables the alias bar is escaped as `\|`.
  const targetEnd = bar > 0 && inner.charCodeAt(bar - 1) === BACKSLASH ? bar - 1 : bar;
  let target = (bar >= 0 ? inner.slice(0, targetEnd) : inner).trim();
  let alias = bar >= 0 ? inner.slice(bar + 1).trim() : "";
  // Dendron writes `[[label|dotted.note.name]]`, the other way round from Obsidian, and names a
  // note of another vault `dendron://vault/note.name`: the vault is no part of the note's name.
  const aliasInVault = DENDRON_VAULT.test(alias);
  if (aliasInVault || (alias && DOTTED_NOTE.test(alias) && !DOTTED_NOTE.test(target))) [target, alias] = [alias, target];
  target = target.replace(DENDRON_VAULT, "");
  const hash = target.indexOf("#");
  const file = (hash >= 0 ? target.slice(0, hash) : target).trim();
  if (file) sink.links.push(file);
  return { target, alias, hash, file };
}

/**
 * A wiki-link as reading view shows it: its alias, else its text as written ("term/page", folders and
 * all, and a `.md` the writer typed: "Guide.md"), each `#` part after " > " ("API/index >
 * index.indexObjects()"; `[[#Usage]]` is "Usage"). Only the index reads the name without `.md`.
 */
function shownWikilinkText(inner: string, sink: InlineSink): string {
  const { target, alias, hash, file } = readWikilink(inner, sink);
  if (alias) return alias;
  const parts = hash >= 0 ? target.slice(hash + 1).split("#").map((part) => part.trim()).filter((part) => part !== "") : [];
  return (file ? [file, ...parts] : parts).join(" > ");
}

/** Turns the inside of `[[…]]` into the words the index reads, and records its target. */
function wikilinkText(inner: string, sink: InlineSink): string {
  const { target, alias, hash, file } = readWikilink(inner, sink);
  if (alias) return alias;
  const slash = file.lastIndexOf("/");
  const name = stripMd(slash >= 0 ? file.slice(slash + 1) : file);
  // `#heading` and `#^block` parts: headings are words worth keeping, block ids are not.
  const subpath = hash >= 0 ? target.slice(hash + 1).replace(/#?\^[\w-]*$/, "").replace(/#/g, " ").trim() : "";
  if (!subpath) return name;
  return name ? `${name} ${subpath}` : subpath;
}

function addMarkdownLinkTarget(rawTarget: string, sink: InlineSink): void {
  let target = rawTarget.trim();
  if (target.startsWith("[[")) {
    // Logseq writes a page link in markdown form, `[label]([[Page name]])`: a page name, dots and all.
    const close = target.indexOf("]]");
    const page = target.slice(2, close < 0 ? target.length : close).split("#", 1)[0].trim();
    if (page) sink.links.push(page);
    return;
  }
  // `[text](<path with spaces.md> "title")`
  if (target.startsWith("<")) target = target.slice(1, Math.max(1, target.indexOf(">")));
  else {
    const space = target.indexOf(" ");
    if (space > 0) target = target.slice(0, space);
  }
  if (!target || target.startsWith("#") || /^[a-z][a-z0-9+.-]*:/i.test(target)) return;
  const hash = target.indexOf("#");
  if (hash >= 0) target = target.slice(0, hash);
  // Only links that can be notes: `.md` files or extension-less paths, not images or PDFs.
  const dot = target.lastIndexOf(".");
  if (dot > target.lastIndexOf("/") && !/\.md$/i.test(target)) return;
  // A malformed %-escape keeps the target as written. Checked, not caught: a thrown URIError costs
  // some 10 µs, and a line of `[a](%)` threw once a link (2 MB took 3 s).
  if (target.includes("%") && escapesDecode(target)) target = decodeURIComponent(target);
  if (target) sink.links.push(target);
}

/**
 * Whether `decodeURIComponent` reads `s` without throwing: every `%` starts two hex digits, and the
 * bytes they give are well-formed UTF-8 (no overlong form, surrogate or code point past U+10FFFF).
 */
export function escapesDecode(s: string): boolean {
  let owed = 0; // continuation bytes the last lead byte still needs
  let low = 0x80;
  let high = 0xbf; // the range the next continuation byte must fall in
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) !== 37 /* % */) {
      if (owed > 0) return false;
      continue;
    }
    const byte = hexByte(s, i + 1);
    if (byte < 0) return false;
    i += 2;
    if (owed > 0) {
      if (byte < low || byte > high) return false;
      owed--;
      low = 0x80;
      high = 0xbf;
    } else if (byte >= 0xc2 && byte <= 0xdf) {
      owed = 1;
    } else if (byte >= 0xe0 && byte <= 0xef) {
      owed = 2;
      if (byte === 0xe0) low = 0xa0; // no overlong form
      if (byte === 0xed) high = 0x9f; // no surrogate
    } else if (byte >= 0xf0 && byte <= 0xf4) {
      owed = 3;
      if (byte === 0xf0) low = 0x90; // no overlong form
      if (byte === 0xf4) high = 0x8f; // nothing past U+10FFFF
    } else if (byte >= 0x80) {
      return false;
    }
  }
  return owed === 0;
}

/** The byte written as two hex digits at `at`, or -1. */
function hexByte(s: string, at: number): number {
  const high = hexDigit(codeAt(s, at));
  const low = hexDigit(codeAt(s, at + 1));
  return high < 0 || low < 0 ? -1 : high * 16 + low;
}

function hexDigit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  const lower = c | 32;
  return lower >= 97 && lower <= 102 ? lower - 87 : -1;
}

function stripMd(name: string): string {
  return name.length > 3 && name.slice(-3).toLowerCase() === ".md" ? name.slice(0, -3) : name;
}

/**
 * Where the next occurrence of a closing marker is, remembered per marker so that a line full of
 * unclosed `[[`, `[` or `<` (or a note full of unclosed `<!--`) costs one scan, not one scan per
 * opener (which would be quadratic). Mostly asked at offsets that grow; a link's target is looked at
 * ahead of the reading, and an answer found from there says nothing of what lies before it (a
 * `[[wikilink]]` in the label of `[see [[Note]]]([[Page` was read as no link).
 */
export class NextOf {
  private readonly found = new Map<string, { from: number; at: number }>();
  constructor(private readonly line: string) {}

  /** Index of the first `needle` at or after `from`, or -1. */
  at(needle: string, from: number): number {
    const known = this.found.get(needle);
    if (known !== undefined && known.from <= from && (known.at === -1 || known.at >= from)) return known.at;
    const at = this.line.indexOf(needle, from);
    this.found.set(needle, { from, at });
    return at;
  }
}

/** Where what a SilverBullet expression's code holds goes: a link's label read as any, its tags and links nowhere. */
function codeSink(sink: InlineSink): InlineSink {
  return { tags: [], links: [], readingView: sink.readingView };
}

/** Characters a hiccup form on one line may span (Logseq's inline HTML). */
const MAX_HICCUP = 2000;

// Link labels and targets longer than this are prose in brackets, not links; the bound keeps a
// line of many `[` linear.
const MAX_LABEL = 1000;
const MAX_TARGET = 2000;
// Brackets in a label and parentheses in a target nest no deeper than this (cmark's limit for
// parentheses). The length bounds alone left a line of unclosed `[a](` at 2,000 characters read per
// opener (2 MB took 3 s, `![a](` 6 s): an opener left open deepens every scan that passes it, so
// with this bound no character is read by more than this many scans.
const MAX_NESTING = 32;

/** End (exclusive) of `[[…]]` starting at `start`, or -1 when it is not closed on this line. */
function wikilinkEnd(line: string, start: number, next: NextOf): number {
  const close = next.at("]]", start + 2);
  if (close < 0) return -1;
  // `[[a]] and [[b` must not swallow the first link into a bogus second one.
  const reopen = next.at("[[", start + 2);
  if (reopen >= 0 && reopen < close) return -1;
  return close + 2;
}

// Set by `markdownLinkEnd`: where the label's `]` was, so the caller need not search again.
let labelClose = -1;

/** End (exclusive) of `[label](target)` starting at `start`, or -1. Parentheses in URLs nest. */
function markdownLinkEnd(line: string, start: number, next: NextOf): number {
  if (next.at("](", start + 1) < 0) return -1;
  let depth = 0;
  let i = start + 1;
  let n = Math.min(line.length, start + MAX_LABEL);
  // The label: stop at the `]` that closes it (nested brackets allowed, e.g. `[a [b]](c)`).
  for (; i < n; i++) {
    const c = line.charCodeAt(i);
    if (c === BACKSLASH) i++;
    else if (c === 91) {
      if (++depth > MAX_NESTING) return -1;
    } else if (c === 93) {
      if (depth === 0) break;
      depth--;
    }
  }
  if (i >= n || codeAt(line, i + 1) !== 40 /* ( */) return -1;
  labelClose = i;
  depth = 0;
  n = Math.min(line.length, i + MAX_TARGET);
  i += 2;
  // `(<path with spaces.md>)`, as Obsidian writes such a path, and Logseq's `([[Page name]])`:
  // their spaces are no prose.
  const wrapped = codeAt(line, i) === 60 /* < */ ? ">" : line.startsWith("[[", i) ? "]]" : null;
  if (wrapped) {
    const close = next.at(wrapped, i + 1);
    if (close < 0 || close >= n) return -1;
    i = close + wrapped.length;
  }
  for (; i < n; i++) {
    const c = line.charCodeAt(i);
    if (c === 40) {
      if (++depth > MAX_NESTING) return -1;
    } else if (c === 41) {
      if (depth === 0) return i + 1;
      depth--;
    } else if (c === 32 && depth === 0 && codeAt(line, i + 1) !== 34 /* " */) {
      // A space outside a title means this was prose in brackets, not a link.
      return -1;
    }
  }
  return -1;
}

/** End (exclusive) of an inline code span opening at `start`, or -1 when it never closes. */
function inlineCodeEnd(line: string, start: number, runs: BacktickRuns): number {
  let ticks = 0;
  while (codeAt(line, start + ticks) === BACKTICK) ticks++;
  // Looked for along the rest of the line, each run with no closer read it again: a line of runs
  // of 1, 2, 3 … backticks (2 MB) took 17 s.
  const close = runs.closing(start + ticks, ticks);
  return close < 0 ? -1 : close + ticks;
}

/**
 * End (exclusive) of a tag body starting at `start` (just after `#`), or -1 when it is not a tag:
 * empty, only digits (`#1` is an issue number), or a heading-like `##`.
 */
function tagEnd(line: string, start: number): number {
  let i = start;
  let hasNonDigit = false;
  const n = line.length;
  while (i < n) {
    const c = line.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      i++;
    } else if (isAsciiLetter(c) || c === 95 || c === 45) {
      hasNonDigit = true;
      i++;
    } else if (c === 47 /* / */) {
      i++;
    } else if (c > 127 && !isUnicodeBreak(c)) {
      hasNonDigit = true;
      i++;
    } else break;
  }
  // A trailing `/` belongs to the sentence, not the tag.
  while (i > start && line.charCodeAt(i - 1) === 47) i--;
  if (!hasNonDigit || i === start) return -1;
  return i;
}

function isUnicodeBreak(c: number): boolean {
  // No-break and typographic spaces, general punctuation (quotes, dashes, ellipsis), CJK
  // punctuation, full-width forms' punctuation: all end a tag, as they do in Obsidian.
  return (
    c === 0xa0 ||
    (c >= 0x2000 && c <= 0x206f) ||
    (c >= 0x3000 && c <= 0x303f) ||
    (c >= 0xff00 && c <= 0xff0f) ||
    c === 0xfeff
  );
}

/**
 * The code unit at `i`, or -1 outside `s` (where `charCodeAt` gives NaN, which no test here takes for a
 * character either). V8 throws a function's optimised code away at a read past a string's end: a
 * fresh process compiled the line readers again and again. A read that may fall outside goes through here.
 */
export function codeAt(s: string, i: number): number {
  return i >= 0 && i < s.length ? s.charCodeAt(i) : -1;
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 0xa0;
}

function isAsciiLetter(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
}

function isWordChar(c: number): boolean {
  // -1 (outside the line) is not a word character.
  return isAsciiLetter(c) || (c >= 48 && c <= 57) || c > 127;
}

function isAsciiPunctuation(c: number): boolean {
  return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126);
}

/** `[x]` holding one to three letters and glued to a letter on at least one side. */
function isMnemonicBracket(line: string, open: number): boolean {
  let close = open + 1;
  while (close < line.length && close - open <= 4 && isAsciiLetter(line.charCodeAt(close))) close++;
  const letters = close - open - 1;
  if (letters < 1 || letters > 3 || codeAt(line, close) !== 93 /* ] */) return false;
  const after = codeAt(line, close + 1);
  if (after === 40 /* ( */ || after === 91 /* [ */) return false;
  return isAsciiLetter(codeAt(line, open - 1)) || isAsciiLetter(after);
}
