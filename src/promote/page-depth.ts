// How deep a page's elements nest, read before the extractor sees it. Defuddle and its markdown
// step walk the tree recursively and some of their passes grow with depth times size: nested
// <div>s take 1 s at 512 deep, 4 s at 1,000 and 15 s at 2,000 (linkedom, this machine), and at
// 3,000 the stack overflows. Obsidian's DOMParser stops nesting at 512 levels, so the plugin would
// freeze for about a second on such a page, the CLI and the MCP server for minutes. Articles nest
// a few dozen deep; a page deeper than MAX_PAGE_DEPTH is refused as unreadable.

/** Element nesting a page may have and still be read. */
export const MAX_PAGE_DEPTH = 256;

/** Thrown by a page reader for a page nested deeper than MAX_PAGE_DEPTH; its message says why. */
export class PageTooDeep extends Error {
  constructor() {
    super(`its elements are nested more than ${MAX_PAGE_DEPTH} deep, which no article needs and which would hold up reading it`);
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
