// How deep a page's elements nest, and how wide, read before the extractor sees it. Defuddle and its markdown
// step walk the tree recursively and some of their passes grow with depth times size: nested
// <div>s take 1 s at 512 deep, 4 s at 1,000 and 15 s at 2,000 (linkedom, this machine), and at
// 3,000 the stack overflows. Obsidian's DOMParser stops nesting at 512 levels, so the plugin would
// freeze for about a second on such a page, the CLI and the MCP server for minutes. Articles nest
// a few dozen deep; a page deeper than MAX_PAGE_DEPTH is refused as unreadable, as is one wider
// than MAX_PAGE_WIDTH (below).

/** Element nesting a page may have and still be read. */
export const MAX_PAGE_DEPTH = 256;

/** Thrown by a page reader for a page nested deeper than MAX_PAGE_DEPTH; its message says why. */
export class PageTooDeep extends Error {
  constructor(limit: number = MAX_PAGE_DEPTH) {
    super(`its elements are nested more than ${limit.toLocaleString("en-US")} deep, which no article needs and which would hold up reading it`);
    this.name = "PageTooDeep";
  }
}

/** Throws PageTooDeep when the document nests elements deeper than MAX_PAGE_DEPTH. Walks without recursion. */
export function checkPageDepth(document: Document): void {
  const root = document.documentElement;
  if (!root) return;
  const stack: Array<[Element, number]> = [[root, 1]];
  while (stack.length > 0) {
    const [element, depth] = stack.pop()!;
    if (depth > MAX_PAGE_DEPTH) throw new PageTooDeep();
    for (let child = element.firstElementChild; child; child = child.nextElementSibling) stack.push([child, depth + 1]);
  }
}

/**
 * Nodes one element may hold directly and its page still be read. Width has costs of its own that
 * no depth limit catches: css-select (linkedom's selector engine) finds an element's siblings by
 * reading its parent's `childNodes`, which linkedom builds anew on every read, then scans them up to
 * the element; a `… + div` among Defuddle's removal selectors does that for every `<div>`, and its
 * code-block reader queries the whole block again for every text node in it. Both grow with the
 * square of the width: 20,000 sibling `<div>`s took 18 s to 2 minutes and 100,000 did not end in
 * 5, in one synchronous call no time limit can stop. Measured on large real pages (843 of 100 KB to
 * 5 MB, mostly Rust's documentation): half hold no more than 77 nodes under one element, 95 in 100
 * no more than 6,620; the 27 wider are whole books on one page (10,400–16,100), indexes of every
 * item (12,300–24,100) and generated source listings (up to 106,000, as wide as a flood), each read
 * in tens of seconds to minutes. The article pages stored with the tests are under 30 wide.
 */
export const MAX_PAGE_WIDTH = 10_000;

/** Thrown by a page reader for a page with an element holding more than MAX_PAGE_WIDTH nodes; its message says why. */
export class PageTooWide extends Error {
  constructor(limit: number = MAX_PAGE_WIDTH) {
    super(`one of its elements holds more than ${limit.toLocaleString("en-US")} items side by side, more than can be read without holding up everything else`);
    this.name = "PageTooWide";
  }
}

/**
 * Throws PageTooWide when an element of the document holds more than MAX_PAGE_WIDTH nodes. Follows
 * each node's next sibling, never `childNodes` by index: in linkedom that list is rebuilt on each
 * read, so a walk by index is itself the quadratic cost this check guards against.
 */
export function checkPageWidth(document: Document): void {
  const root = document.documentElement;
  if (!root) return;
  const elements: Element[] = [root];
  while (elements.length > 0) {
    const element = elements.pop()!;
    let width = 0;
    for (let child = element.firstChild; child; child = child.nextSibling) {
      if (++width > MAX_PAGE_WIDTH) throw new PageTooWide();
      if (child.nodeType === child.ELEMENT_NODE) elements.push(child as Element);
    }
  }
}

/**
 * Nesting the page's markup may show before it is parsed at all. Parsing is itself the cost: linkedom
 * took 0.9 s over 32,000 nested `<div>`s and 7–28 s over 100,000, in one synchronous call no time
 * limit can interrupt, so the CLI and the MCP server froze before `checkPageDepth` could refuse the
 * page. Read from the text, nesting is counted generously (a parser closes more than this scan
 * does), so the limit is four times the parsed one: an article a browser nests 256 deep is never
 * refused here, and a page under it parses in milliseconds.
 */
export const MAX_MARKUP_DEPTH = 4 * MAX_PAGE_DEPTH;

/** Elements that never hold others. */
const VOID_ELEMENTS = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "keygen", "link", "meta", "param", "source", "track", "wbr"]);
/** Elements whose content is text to their end tag, never markup (as linkedom's parser reads them). */
const RAW_TEXT_ELEMENTS = new Set(["script", "style", "title", "textarea", "xmp"]);
/**
 * What a start tag closes while it is the innermost open element: a `<li>` an open `<li>`, a `<tr>` an
 * open cell. No more than linkedom's parser closes, so the count is never below its nesting.
 */
const CLOSES_INNERMOST = new Map<string, ReadonlySet<string>>([
  ["tr", new Set(["tr", "th", "td"])],
  ["th", new Set(["th"])],
  ["td", new Set(["thead", "th", "td"])],
  ["li", new Set(["li"])],
  ["option", new Set(["option"])],
  ["optgroup", new Set(["optgroup", "option"])],
  ["dd", new Set(["dt", "dd"])],
  ["dt", new Set(["dt", "dd"])],
  ["rt", new Set(["rt", "rp"])],
  ["rp", new Set(["rt", "rp"])],
  ...["p", "h1", "h2", "h3", "h4", "h5", "h6", "address", "article", "aside", "blockquote", "details", "div", "dl", "fieldset", "figcaption", "figure", "footer", "form", "header", "main", "nav", "ol", "pre", "section", "table", "ul"].map(
    (name) => [name, new Set(["p"])] as const,
  ),
]);
/** Where `/>` closes an element: inside SVG and MathML; in HTML `<div/>` opens a `<div>`. */
const FOREIGN_ELEMENTS = new Set(["svg", "math"]);
/** Elements inside SVG or MathML whose content is HTML again (a `<div/>` in a `<foreignObject>` opens a `<div>`). */
const HTML_INSIDE_FOREIGN = new Set(["mi", "mo", "mn", "ms", "mtext", "annotation-xml", "foreignobject", "desc", "title"]);

/**
 * Throws PageTooDeep when the markup opens elements more than MAX_MARKUP_DEPTH deep. One pass over
 * the text, every step moving forward (no pattern that could look back), open elements counted
 * by name so an end tag pops to its element without searching.
 */
export function checkMarkupDepth(html: string): void {
  const open: string[] = [];
  // Per open element, whether `/>` closes an element inside it (SVG or MathML, not HTML within them).
  const foreignInside: boolean[] = [];
  const openByName = new Map<string, number>();
  const inForeign = () => foreignInside[foreignInside.length - 1] === true;
  const push = (name: string) => {
    foreignInside.push(FOREIGN_ELEMENTS.has(name) || (inForeign() && !HTML_INSIDE_FOREIGN.has(name)));
    open.push(name);
    openByName.set(name, (openByName.get(name) ?? 0) + 1);
    if (open.length > MAX_MARKUP_DEPTH) throw new PageTooDeep(MAX_MARKUP_DEPTH);
  };
  const pop = () => {
    const name = open.pop()!;
    foreignInside.pop();
    openByName.set(name, openByName.get(name)! - 1);
  };
  for (let at = html.indexOf("<"); at !== -1; at = html.indexOf("<", at)) {
    const tag = readTag(html, at);
    if (tag === null) return;
    at = tag.end;
    if (tag.kind !== "start" && tag.kind !== "end") continue;
    const { name } = tag;
    if (tag.kind === "end") {
      if ((openByName.get(name) ?? 0) === 0) continue;
      while (open[open.length - 1] !== name) pop();
      pop();
      continue;
    }
    if (VOID_ELEMENTS.has(name) || (tag.selfClosing && (inForeign() || FOREIGN_ELEMENTS.has(name)))) continue;
    const closes = CLOSES_INNERMOST.get(name);
    while (closes && open.length > 0 && closes.has(open[open.length - 1])) pop();
    push(name);
    if (RAW_TEXT_ELEMENTS.has(name)) {
      const close = indexOfIgnoringCase(html, `</${name}`, at);
      if (close === -1) return;
      at = close;
    }
  }
}

type MarkupTag = { kind: "start" | "end"; name: string; selfClosing: boolean; end: number } | { kind: "other"; end: number };

/** The tag, comment or declaration at `at` (a `<`), and where it ends; null when the text ends inside it. */
function readTag(html: string, at: number): MarkupTag | null {
  if (html.startsWith("<!--", at)) {
    const close = html.indexOf("-->", at + 4);
    return close === -1 ? null : { kind: "other", end: close + 3 };
  }
  const next = html[at + 1] ?? "";
  if (next === "!" || next === "?") {
    const close = html.indexOf(">", at);
    return close === -1 ? null : { kind: "other", end: close + 1 };
  }
  const isEnd = next === "/";
  const nameStart = at + (isEnd ? 2 : 1);
  if (!isAsciiLetter(html.charCodeAt(nameStart))) return { kind: "other", end: at + 1 };
  let i = nameStart;
  while (i < html.length && !isSpace(html.charCodeAt(i)) && html[i] !== "/" && html[i] !== ">") i++;
  const name = html.slice(nameStart, i).toLowerCase();
  // Past the attributes. A value in quotes may hold a `>`; a quote inside an unquoted value (`b=x'`)
  // quotes nothing, nor is a `/` ending one (`d=M0/>`) a self-closing tag's.
  let selfClosing = false;
  let value: "none" | "next" | "unquoted" = "none";
  for (; i < html.length; i++) {
    const c = html[i];
    if (c === ">") return { kind: isEnd ? "end" : "start", name, selfClosing, end: i + 1 };
    if (value === "next" && (c === '"' || c === "'")) {
      i = html.indexOf(c, i + 1);
      if (i === -1) return null;
      value = "none";
      selfClosing = false;
      continue;
    }
    const space = isSpace(html.charCodeAt(i));
    if (c === "=" && value === "none") value = "next";
    else if (space) value = value === "next" ? "next" : "none";
    else if (value === "next") value = "unquoted";
    selfClosing = c === "/" && value === "none";
  }
  return null;
}

function isAsciiLetter(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

/** HTML's white space between attributes: tab, line feed, form feed, carriage return, space. */
function isSpace(code: number): boolean {
  return code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d || code === 0x20;
}

/** Where `needle` (lower-case) next occurs in `text` at or after `from`, in any case; -1 when it does not. */
function indexOfIgnoringCase(text: string, needle: string, from: number): number {
  for (let at = text.indexOf("<", from); at !== -1; at = text.indexOf("<", at + 1)) {
    if (text.slice(at, at + needle.length).toLowerCase() === needle) return at;
  }
  return -1;
}
