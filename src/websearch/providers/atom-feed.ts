// A small, tolerant reader for the Atom feeds arXiv answers with. Not a general XML parser: it
// finds elements by local name whatever their prefix (`arxiv:primary_category`,
// `opensearch:totalResults`, declared on <feed> in 2026 answers or on each element in older ones),
// reads attributes and text (CDATA kept, XML entities decoded) and ignores everything else. A body
// that is not a feed at all is reported as such, never half-read.
import { decodeXML } from "entities";
import { htmlToLine, stripTags } from "../plain-text";

export interface AtomLink {
  href: string;
  rel?: string;
  type?: string;
  title?: string;
}

export interface AtomEntry {
  id: string;
  title: string;
  summary: string;
  published?: string;
  updated?: string;
  authors: string[];
  links: AtomLink[];
  categories: string[];
  /** arXiv extension elements, by local name: `primary_category` (its term), `journal_ref`, `doi`, `comment`. */
  arxiv: Partial<Record<"primary_category" | "journal_ref" | "doi" | "comment", string>>;
}

export interface AtomFeed {
  totalResults?: number;
  entries: AtomEntry[];
  /**
   * Whether the feed ends (`</feed>`): a body cut off on its way holds only the entries before the
   * cut, and one cut before its first entry ended reads as a search that found nothing.
   */
  complete: boolean;
}

const prefix = "(?:[A-Za-z_][\\w.-]*:)?";

/**
 * Every element with this local name inside `xml`: its attributes and inner text (raw). Found in one
 * pass by index rather than by one lazy pattern, which rescanned to the end of the body for every
 * opener that is never closed: a body of unclosed tags froze the run before any deadline could fire.
 */
function elements(xml: string, name: string): { attrs: Record<string, string>; inner: string }[] {
  const opener = new RegExp(`<${prefix}${name}(?=[\\s/>])`, "g");
  const closer = new RegExp(`</${prefix}${name}\\s*>`, "g");
  const found: { attrs: Record<string, string>; inner: string }[] = [];
  // A closing tag missing after one opener is missing after every later one too; only
  // self-closing elements can still be found.
  let closable = true;
  for (let open = opener.exec(xml); open; open = opener.exec(xml)) {
    const attrsStart = opener.lastIndex;
    const tagEnd = xml.indexOf(">", attrsStart);
    if (tagEnd < 0) break; // nor does any later opener end
    opener.lastIndex = tagEnd + 1;
    if (xml[tagEnd - 1] === "/") {
      found.push({ attrs: attributes(xml.slice(attrsStart, tagEnd - 1)), inner: "" });
      continue;
    }
    if (!closable) continue;
    closer.lastIndex = tagEnd + 1;
    const close = closer.exec(xml);
    if (!close) {
      closable = false;
      continue;
    }
    found.push({ attrs: attributes(xml.slice(attrsStart, tagEnd)), inner: xml.slice(tagEnd + 1, close.index) });
    opener.lastIndex = closer.lastIndex;
  }
  return found;
}

function attributes(source: string): Record<string, string> {
  const attrs: Record<string, string> = {};
  // A name starts only where a run of name characters starts: tried inside the run too, one long
  // run with no `=` after it cost a rescan per character.
  for (const m of source.matchAll(/(?<![\w.:-])([A-Za-z_][\w.:-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
    const name = m[1].replace(/^[\w.-]+:/, "");
    attrs[name] = decodeXML(m[2] ?? m[3] ?? "");
  }
  return attrs;
}

/**
 * Inner text as plain text: entities decoded, whitespace collapsed. CDATA is not decoded, but
 * tag-shaped spans in it are dropped (web text is plain text here); `type="html"` is read as HTML.
 */
function text(element: { attrs: Record<string, string>; inner: string } | undefined): string {
  if (!element) return "";
  const decoded = element.inner
    .split(/(<!\[CDATA\[[\s\S]*?(?:\]\]>|$))/)
    .map((part) => (part.startsWith("<![CDATA[") ? stripTags(cdataText(part)) : decodeXML(part)))
    .join("");
  const type = element.attrs.type ?? "text";
  return type === "html" || type === "xhtml" ? htmlToLine(decoded) : decoded.replace(/\s+/g, " ").trim();
}

/** A CDATA section's text. One never closed runs to the end, as in XML parsers: looking for its end from every later opener was quadratic. */
function cdataText(section: string): string {
  return section.endsWith("]]>") ? section.slice(9, -3) : section.slice(9);
}

function first(xml: string, name: string): { attrs: Record<string, string>; inner: string } | undefined {
  return elements(xml, name)[0];
}

function readEntry(xml: string): AtomEntry {
  const arxiv: AtomEntry["arxiv"] = {};
  const primary = first(xml, "primary_category")?.attrs.term;
  if (primary) arxiv.primary_category = primary;
  for (const name of ["journal_ref", "doi", "comment"] as const) {
    const value = text(first(xml, name));
    if (value) arxiv[name] = value;
  }
  const published = text(first(xml, "published"));
  const updated = text(first(xml, "updated"));
  return {
    id: text(first(xml, "id")),
    title: text(first(xml, "title")),
    summary: text(first(xml, "summary")),
    ...(published ? { published } : {}),
    ...(updated ? { updated } : {}),
    authors: elements(xml, "author").map((a) => text(first(a.inner, "name"))).filter((n) => n !== ""),
    links: elements(xml, "link")
      .map((l) => l.attrs)
      .filter((a) => a.href)
      .map((a) => ({ href: a.href, ...(a.rel ? { rel: a.rel } : {}), ...(a.type ? { type: a.type } : {}), ...(a.title ? { title: a.title } : {}) })),
    categories: elements(xml, "category").map((c) => c.attrs.term ?? "").filter((t) => t !== ""),
    arxiv,
  };
}

/**
 * Comments and processing instructions, to drop, and CDATA sections, to keep whole (a `<!--` in
 * them is text). One never closed runs to the end of the body, as in XML parsers: searched for its
 * end again from every later opener, a body of unclosed `<!--` took minutes.
 */
const MARKUP_TO_SKIP = /<!\[CDATA\[[\s\S]*?(?:\]\]>|$)|<!--[\s\S]*?(?:-->|$)|<\?[\s\S]*?(?:\?>|$)/g;

/** The feed's entries, or undefined when `xml` is not an Atom feed (an HTML error page, plain text). */
export function parseAtomFeed(xml: string): AtomFeed | undefined {
  const body = xml.replace(MARKUP_TO_SKIP, (span) => (span.startsWith("<![CDATA[") ? span : ""));
  if (!new RegExp(`^\\s*<${prefix}feed[\\s>]`).test(body)) return undefined;
  const entries = elements(body, "entry").map((e) => readEntry(e.inner));
  const total = text(first(body, "totalResults"));
  // Closed, or an empty feed that closes itself (`<feed …/>`).
  const complete = new RegExp(`</${prefix}feed\\s*>`).test(body) || new RegExp(`^\\s*<${prefix}feed(?:\\s[^>]*)?/>`).test(body);
  return { ...(/^\d+$/.test(total) ? { totalResults: Number(total) } : {}), entries, complete };
}
