// Logseq's hiccup: a Clojure vector such as `[:p "Hello " [:em "World!"]]`, which Logseq renders as
// HTML, inside a line or as a block of its own. A shown note gives the words it renders: the strings
// among an element's children ("Hello World!"); none of an element's attributes (`{:src "…"}`) or
// code (`(str "#/page/" tag)`), which show no words. An element with none (`[:img {:src …}]`, `[:hr]`)
// shows an object, as an image does; a `[:code …]` element's words show as a code span, as inline code
// does in a quote. Only a shown parse reads hiccup; the index reads it as written.
import { codeSpan } from "./block-text";
import { codeAt } from "./inline-text";

/** A hiccup form read: where it ends (exclusive) and the words it shows, "" for none. */
export interface HiccupForm {
  end: number;
  text: string;
}

/** What a read gives: the form, or null when none closes within reach; and how many characters it read, for the caller's budget. */
export interface HiccupRead {
  form: HiccupForm | null;
  read: number;
}

/** Brackets, braces and parentheses nest no deeper than this in a form; deeper is no hiccup (and keeps each read short). */
const MAX_NESTING = 32;

/**
 * The HTML elements a form may open with: `[:warning: careful]` or `[:a lot of fun]` in prose is no
 * hiccup unless its element is one and it shows something (below).
 */
const ELEMENTS = new Set([
  "a", "abbr", "address", "article", "aside", "audio", "b", "blockquote", "br", "button", "canvas", "caption", "cite", "code", "dd", "del",
  "details", "div", "dl", "dt", "em", "embed", "figcaption", "figure", "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "i",
  "iframe", "img", "input", "ins", "kbd", "label", "li", "main", "mark", "nav", "object", "ol", "p", "pre", "q", "s", "samp", "section",
  "small", "source", "span", "strong", "sub", "summary", "sup", "svg", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "u", "ul", "video",
]);

/** Elements that show an object and no words of their own: a form of one is hiccup though it holds no string. */
const OBJECT_ELEMENTS = new Set(["audio", "br", "canvas", "embed", "hr", "iframe", "img", "input", "object", "svg", "video"]);

/** Elements that start a line of their own when rendered: their words are kept apart from the words around them. */
const BLOCK_ELEMENTS = new Set([
  "address", "article", "aside", "blockquote", "br", "dd", "div", "dl", "dt", "figcaption", "figure", "footer", "h1", "h2", "h3", "h4",
  "h5", "h6", "header", "hr", "li", "main", "nav", "ol", "p", "pre", "section", "table", "td", "th", "tr", "ul",
]);

/** Whether a hiccup element may open at `at`: `[:` and a tag's first letter. */
export function opensHiccup(s: string, at: number): boolean {
  if (codeAt(s, at) !== 91 /* [ */ || codeAt(s, at + 1) !== 58 /* : */) return false;
  const c = codeAt(s, at + 2) | 32;
  return c >= 97 && c <= 122;
}

/**
 * Whether the form opening at `at` and showing `text` is hiccup, not prose in brackets: its element is
 * an HTML one, and it shows words, an object, or at least carries a class or attributes (`[:div.mb-4]`,
 * an empty box Logseq draws).
 */
function isHiccup(s: string, at: number, end: number, text: string): boolean {
  const tag = tagAt(s, at + 1);
  if (!ELEMENTS.has(tag)) return false;
  const after = codeAt(s, at + 2 + tag.length);
  return text !== "" || OBJECT_ELEMENTS.has(tag) || after === 46 /* . */ || after === 35 /* # */ || s.slice(at, end).includes("{");
}

/**
 * Reads the hiccup form opening at `at` (where `opensHiccup` holds) no further than `limit`: its
 * brackets must close in order there, strings aside. Line breaks inside it are spaces.
 */
export function readHiccup(s: string, at: number, limit: number): HiccupRead {
  /** The openers around the reading, innermost last, and where the text stood when each opened. */
  const open: Opener[] = [];
  const textAt: number[] = [];
  /** How many of them are no element's children (an attribute map, a list of code): their strings show nothing. */
  let hidden = 0;
  let text = "";
  /** Whether a block element began or ended since the last words kept: the next words start apart. */
  let apart = false;
  const end = Math.min(limit, s.length);
  for (let i = at; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c === 34 /* " */) {
      const close = stringEnd(s, i + 1, end);
      if (close < 0) break;
      const words = hidden === 0 ? unescaped(s.slice(i + 1, close)) : "";
      if (words !== "") {
        if (apart && text !== "" && !/\s$/.test(text)) text += " ";
        apart = false;
        text += words;
      }
      i = close;
    } else if (c === 91 /* [ */ || c === 123 /* { */ || c === 40 /* ( */) {
      if (open.length === MAX_NESTING) return { form: null, read: i - at };
      const opener: Opener = c === 123 ? "map" : c === 40 ? "list" : elementKind(tagAt(s, i + 1));
      open.push(opener);
      textAt.push(text.length);
      if (opener === "map" || opener === "list") hidden++;
      else if (opener === "block") apart = true;
    } else if (c === 93 /* ] */ || c === 125 /* } */ || c === 41 /* ) */) {
      const opener = open.pop();
      const from = textAt.pop()!;
      const closes = c === 125 ? opener === "map" : c === 41 ? opener === "list" : opener === "element" || opener === "block" || opener === "code";
      if (!closes) return { form: null, read: i - at };
      if (opener === "map" || opener === "list") hidden--;
      else if (opener === "block") apart = true;
      else if (opener === "code" && text.length > from) text = text.slice(0, from) + codeSpan(text.slice(from));
      if (open.length > 0) continue;
      const shown = text.replace(/\s+/g, " ").trim();
      return { form: isHiccup(s, at, i + 1, shown) ? { end: i + 1, text: shown } : null, read: i + 1 - at };
    }
  }
  return { form: null, read: end - at };
}

/** What a bracket opened: an attribute map, a list of code, an element, one shown as a block, or as code. */
type Opener = "map" | "list" | "element" | "block" | "code";

/** Elements whose words show as code. */
const CODE_ELEMENTS = new Set(["code", "kbd", "samp"]);

function elementKind(tag: string): Opener {
  return BLOCK_ELEMENTS.has(tag) ? "block" : CODE_ELEMENTS.has(tag) ? "code" : "element";
}

/** Where the string whose text starts at `from` closes (its `"`), or -1 before `end`. */
function stringEnd(s: string, from: number, end: number): number {
  for (let i = from; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c === 92 /* \ */) i++;
    else if (c === 34) return i;
  }
  return -1;
}

/** A Clojure string's text: `\"` is a quote, `\\` a backslash, `\n` a line break (a space here). */
function unescaped(raw: string): string {
  return raw.includes("\\") ? raw.replace(/\\(.)/g, (_, ch: string) => (ch === "n" || ch === "t" ? " " : ch)) : raw;
}

/** The tag of an element whose `:` is at `at` (`:div.mb-4` is "div"), lower-cased; "" when none. */
function tagAt(s: string, at: number): string {
  if (codeAt(s, at) !== 58 /* : */) return "";
  let i = at + 1;
  while (i - at <= 12 && isTagChar(codeAt(s, i))) i++;
  return s.slice(at + 1, i).toLowerCase();
}

/** A letter, a digit or `-` (NaN past the end is none). */
function isTagChar(c: number): boolean {
  const lower = c | 32;
  return (lower >= 97 && lower <= 122) || (c >= 48 && c <= 57) || c === 45;
}
