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
}

const prefix = "(?:[A-Za-z_][\\w.-]*:)?";

/** Every element with this local name inside `xml`: its attributes and inner text (raw). */
function elements(xml: string, name: string): { attrs: Record<string, string>; inner: string }[] {
  const pattern = new RegExp(`<${prefix}${name}(?=[\\s/>])([^>]*?)(?:/>|>([\\s\\S]*?)</${prefix}${name}\\s*>)`, "g");
  return Array.from(xml.matchAll(pattern), (m) => ({ attrs: attributes(m[1] ?? ""), inner: m[2] ?? "" }));
}

function attributes(source: string): Record<string, string> {
  const attrs: Record<string, string> = {};
  for (const m of source.matchAll(/([A-Za-z_][\w.:-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
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
    .split(/(<!\[CDATA\[[\s\S]*?\]\]>)/)
    .map((part) => (part.startsWith("<![CDATA[") ? stripTags(part.slice(9, -3)) : decodeXML(part)))
    .join("");
  const type = element.attrs.type ?? "text";
  return type === "html" || type === "xhtml" ? htmlToLine(decoded) : decoded.replace(/\s+/g, " ").trim();
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

/** The feed's entries, or undefined when `xml` is not an Atom feed (an HTML error page, plain text). */
export function parseAtomFeed(xml: string): AtomFeed | undefined {
  const body = xml.replace(/<!--[\s\S]*?-->/g, "").replace(/<\?[\s\S]*?\?>/g, "");
  if (!new RegExp(`^\\s*<${prefix}feed[\\s>]`).test(body)) return undefined;
  const entries = elements(body, "entry").map((e) => readEntry(e.inner));
  const total = text(first(body, "totalResults"));
  return { ...(/^\d+$/.test(total) ? { totalResults: Number(total) } : {}), entries };
}
