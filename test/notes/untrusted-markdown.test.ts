import { Parser } from "commonmark";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseNote } from "../../src/index/markdown";
import { CONTAINER_MARKERS } from "../../src/notes/markdown-escape";
import { linkDestination } from "../../src/notes/note-links";
import { sanitizeExtractedMarkdown, type SanitizedMarkdown } from "../../src/notes/untrusted-markdown";

const clean = (md: string) => sanitizeExtractedMarkdown(md).markdown;

/** The language of each code block, as CommonMark reads the markdown ("" for none): what a plugin's code block processor is picked by. */
function codeLanguages(markdown: string): string[] {
  const walker = new Parser().parse(markdown).walker();
  const found: string[] = [];
  for (let step = walker.next(); step; step = walker.next()) {
    if (step.entering && step.node.type === "code_block") found.push((step.node.info ?? "").split(/\s+/)[0]);
  }
  return found;
}

/** Every link and image address CommonMark reads in the markdown. */
function destinations(markdown: string): string[] {
  const walker = new Parser().parse(markdown).walker();
  const found: string[] = [];
  for (let step = walker.next(); step; step = walker.next()) {
    if (step.entering && (step.node.type === "link" || step.node.type === "image")) found.push(step.node.destination ?? "");
  }
  return found;
}

/** Links whose parts stand on two lines: a page reader writes a <br> or a block inside <a> so. */
const LINKS_ACROSS_LINES = [
  "[a\nb](javascript:alert(1))",
  "[a  \nb](obsidian://open?vault=v&file=Secret)",
  "[a](\njavascript:alert(1))",
  "[ab](obsidian://x\n)",
  '[a](\n<obsidian://x>\n"t"\n)',
  "[x]:\nobsidian://y\n\n[x]",
  "[a\nb](Secret.md)",
  "![a\nb](file:///etc/passwd)",
];

/** Code blocks behind quotes and list markers, or indented under a list item, as page readers write them. */
const FENCES_IN_CONTAINERS = [
  '> ```dataviewjs\n> dv.paragraph("PWNED")\n> ```',
  '- ```dataviewjs\n\tdv.paragraph("PWNED")\n\t```',
  '- item\n\t```dataview\n\tLIST FROM ""\n\t```',
  "> > ```dataviewjs\n> > dv.paragraph(1)\n> > ```",
  "1. - ```dataviewjs\n\t\tdv.paragraph(1)\n\t\t```",
  ">- ~~~tasks\n>  not done\n>  ~~~",
  "- a\n  - b\n    ```dataviewjs\n    dv.paragraph(1)\n    ```",
  "- a\n\n    ```meta-bind\n    INPUT[toggle:done]\n    ```",
];

describe("sanitizeExtractedMarkdown", () => {
  it("drops scripts, frames, styles and forms with their content", () => {
    const result = sanitizeExtractedMarkdown("Before\n\n<script>alert(1)</script>\n<iframe src=\"https://x\">\n</iframe>\n<STYLE>p{}</STYLE><form action=x><input name=a></form>\n\nAfter");
    expect(result.markdown).toBe("Before\n\nAfter");
    expect(result.removed.elements).toBe(4);
  });

  it("reads a page line of many list markers that opens no fence at once, as prose", () => {
    const line = `${"-   ".repeat(40)}x`;
    expect(sanitizeExtractedMarkdown(`${line}\n`).markdown).toContain("x");
  });

  it("leaves no link to anything but http(s) and mailto when a link's parts stand on two lines", () => {
    for (const md of LINKS_ACROSS_LINES) {
      expect(destinations(md).length, md).toBe(1);
      expect(destinations(clean(md)), md).toEqual([]);
    }
    // Links the cleaning keeps stay links, on one line or two.
    expect(destinations(clean("[ok](https://x.example/a) [m](mailto:a@b.example) ![i](https://x.example/i.png) [c\nd](https://x.example/c)"))).toEqual([
      "https://x.example/a",
      "mailto:a@b.example",
      "https://x.example/i.png",
      "https://x.example/c",
    ]);
  });

  it("shows other raw HTML as text, without its event handlers", () => {
    const result = sanitizeExtractedMarkdown('<video controls src="https://x/v.mp4" onplay="steal()"></video> and <img src=x onerror=alert(1)>');
    expect(result.markdown).toBe('&lt;video controls src="https://x/v.mp4">&lt;/video> and &lt;img src=x>');
    expect(result.removed.handlers).toBe(2);
  });

  it("keeps http, https and mailto links and drops every other scheme, keeping the words", () => {
    expect(clean("[a](https://ok.example/x) [b](javascript:alert(1)) [c](obsidian://open?vault=v) [d](mailto:me@example.org) [e](file:///etc/passwd)")).toBe(
      "[a](https://ok.example/x) b c [d](mailto:me@example.org) e",
    );
    expect(clean("![pic](data:image/svg+xml;base64,AAAA) ![ok](https://img.example/p.png)")).toBe("[Image: ok](https://img.example/p.png)");
  });

  it("drops unsafe reference-style link definitions", () => {
    expect(clean("See [x][1].\n\n[1]: javascript:alert(1)\n[2]: https://ok.example")).toBe("See [x][1].\n\n[2]: https://ok.example");
  });

  // CommonMark reads a definition behind a quote or a list marker as the document's own: the
  // `[x][a]` of the text above linked to javascript:, obsidian:// and a vault note through it.
  it("drops unsafe link definitions behind quotes and list markers too, where CommonMark still reads them", () => {
    for (const md of ["[x][a]\n\n> [a]: javascript:alert(1)", "[x][a]\n\n- [a]: Secret.md", "[x][a]\n\n1. > [a]: <obsidian://open?file=x> \"t\"", "[x][a]\n\n>[a]:\n>Secret.md", "[x][a]\n\n  - [a]: file:///etc/passwd"]) {
      expect(destinations(md).length, md).toBe(1);
      expect(destinations(clean(md)), md).toEqual([]);
    }
    expect(clean("See [x][a].\n\n> [a]: https://ok.example\n> [b]: javascript:x")).toBe("See [x][a].\n\n> [a]: https://ok.example\n>");
    expect(destinations(clean("See [x][a].\n\n> [a]: https://ok.example"))).toEqual(["https://ok.example"]);
  });

  it("rewrites link targets through the given function (tracking parameters out)", () => {
    const md = sanitizeExtractedMarkdown("[a](https://x.example/p?utm_source=y&id=2)", { rewriteUrl: (u) => u.replace(/utm_source=[^&]*&?/, "") }).markdown;
    expect(md).toBe("[a](https://x.example/p?id=2)");
  });

  it("strips the language of code blocks that plugins would execute, and keeps the code", () => {
    expect(clean("```dataviewjs\ndv.list()\n```")).toBe("```\ndv.list()\n```");
    expect(clean("~~~tasks\nnot done\n~~~")).toBe("~~~\nnot done\n~~~");
    expect(clean("```ts\nconst a = 1;\n```")).toBe("```ts\nconst a = 1;\n```");
  });

  it("strips the language of a code block behind a quote or list marker or indented under a list item, which CommonMark reads as code all the same", () => {
    for (const md of FENCES_IN_CONTAINERS) {
      expect(codeLanguages(md).some((language) => language !== ""), md).toBe(true);
      expect(codeLanguages(clean(md)), md).toEqual(codeLanguages(md).map(() => ""));
    }
    // Indented code as the page's first line is no fence; it keeps its indent, so none forms in the note.
    expect(codeLanguages(clean("    ```dataviewjs\n    dv.paragraph(1)\n    ```"))).toEqual([""]);
  });

  it("keeps the indent of a first line of indented code, which shows its text: `    >` is a `>`, not an empty quote", () => {
    expect(clean("\n \n    >")).toBe("    >");
    expect(new Parser().parse(clean("    >")).firstChild?.literal).toBe(">\n");
    // Three spaces in, it is the quote it reads as, and the spaces go.
    expect(clean("   >")).toBe(">");
  });

  it("changes nothing but the language on such a block's lines, and keeps a language no plugin runs", () => {
    expect(clean('> ```dataviewjs\n> dv.paragraph("PWNED")\n> ```')).toBe('> ```\n> dv.paragraph("PWNED")\n> ```');
    expect(clean("1. - ```dataviewjs\n\t\tdv.paragraph(1)\n\t\t```")).toBe("1. - ```\n\t\tdv.paragraph(1)\n\t\t```");
    expect(clean("> ```ts\n> const a = 1;\n> ```")).toBe("> ```ts\n> const a = 1;\n> ```");
    expect(clean("- run `x` and ```dataviewjs `y`")).toBe("- run `x` and ```dataviewjs `y`");
  });

  it("ends a code block of a list item where the item ends, so what follows is cleaned as the text it is", () => {
    const after = clean("- x\n  ```js\n  code\n```dataviewjs\ndv.paragraph(1)\n```");
    expect(codeLanguages(after)).toEqual(["js", ""]);
    expect(clean("- x\n  ```js\n[[Secret]]")).toBe("- x\n  ```js\n  ```\n\\[\\[Secret]]");
    // A closer may stand up to three spaces past the item's text: CommonMark ends the block there.
    expect(codeLanguages(clean("- x\n  ```js\n     ```\n  ```dataviewjs\n  dv.paragraph(1)\n  ```"))).toEqual(["js", ""]);
  });

  it("reads what follows a fence behind a list marker as prose, so a fence it hides cannot keep its language (review found - ~~~, then   ```js)", () => {
    // A reader: `  ```js` and `  ~~~` are the item's code and its closer; `  ```dataviewjs` opens a block that runs.
    expect(codeLanguages(clean("- ~~~\n  ```js\n  ~~~\n  ```dataviewjs\n  dv.paragraph(1)\n  ```"))).not.toContain("dataviewjs");
    expect(clean("- ```\n  ````js\n  ```\n  ```dataviewjs\n  dv.paragraph(1)\n  ```")).not.toContain("dataviewjs");
    expect(clean("> ~~~\n> ```js\n> ~~~\n> ```dataviewjs\n> x\n> ```")).not.toContain("dataviewjs");
    // A line at the margin ends every list item and quote: fences after it are read as before.
    expect(clean("- ~~~\n  x\n  ~~~\n\ntext\n```dataviewjs\n[[a]]\n```")).toBe("- ~~~\n  x\n  ~~~\n\ntext\n```\n[[a]]\n```");
    expect(clean("- ```js\n  a\n  ```\n```ts\n#x\n```")).toBe("- ```js\n  a\n  ```\n```ts\n#x\n```");
  });

  it("leaves HTML inside code blocks alone, as code", () => {
    expect(clean("```html\n<script>alert(1)</script>\n```")).toBe("```html\n<script>alert(1)</script>\n```");
  });

  it("closes a code block the page left open, so it cannot swallow what follows", () => {
    expect(clean("```\nunclosed")).toBe("```\nunclosed\n```");
  });

  it("turns Dataview inline queries into text and keeps other inline code", () => {
    expect(clean("run `= this.file.name` and `$= dv.current()` but `npm i` stays")).toBe("run \\`= this.file.name\\` and \\`\\$= dv.current()\\` but `npm i` stays");
  });

  it("breaks Templater commands everywhere, code included", () => {
    expect(clean("text <% tp.file.title %>")).toBe("text &lt;% tp.file.title %>");
    expect(clean("```\n<% tp.system.prompt() %>\n```")).toBe("```\n< % tp.system.prompt() %>\n```");
  });

  it("keeps wikilinks, embeds, tags and comments from forming", () => {
    expect(clean("see [[Secret]] and ![[Private.md]] #tag %%hidden%% <!-- c -->")).toBe("see \\[\\[Secret]] and !\\[\\[Private.md]] \\#tag \\%\\%hidden\\%\\% &lt;!-- c -->");
  });

  it("keeps headings, lists, emphasis and escaped text as they read; an escaped tag becomes an entity", () => {
    const md = "## Title\n\n- one\n- **two**\n\n1. first\n\nA literal \\<b> tag and a \\#not-tag.";
    expect(clean(md)).toBe(md.replace("\\<b>", "&lt;b>"));
  });

  it("removes bidirectional overrides and control characters", () => {
    expect(clean("safe\u202Etxt.exe\u0007")).toBe("safetxt.exe");
  });
});

describe("sanitizeExtractedMarkdown: what a page must not add to the vault's own data", () => {
  it("turns Dataview inline fields into text, so a page's `tags::` or `aliases::` are not the note's", () => {
    const page = "status:: pwned\n- rating:: 5\nSee [due:: 2020-01-01] and (hidden:: yes).\naliases:: What did we decide about the budget";
    const out = clean(page);
    expect(out).not.toContain("::");
    expect(out).toBe(page.replace(/::/g, "\\:\\:"));
    const note = parseNote("Research/Sources/Page.md", `# Page\n\n${clean("tags:: secret-plan\naliases:: Budget decision\ntitle:: Passwords")}`);
    expect(note.tags).toEqual([]);
    expect(note.aliases).toEqual([]);
    expect(note.title).toBe("Page");
  });

  it("keeps a tag from forming where Obsidian starts an inline run anew: a quote, a table cell, a link label, emphasis", () => {
    const page = ">#quoted\n| a |#cell|\n[#label](https://x.example/a) **#bold** _#em_ ==#mark==";
    const out = clean(page);
    expect(out).toBe(">\\#quoted\n| a |\\#cell|\n[\\#label](https://x.example/a) **\\#bold** _\\#em_ ==\\#mark==");
    expect(parseNote("Research/Sources/Page.md", out).tags).toEqual([]);
  });

  it("leaves entities, addresses and headings alone when it escapes tags", () => {
    expect(clean("&#60;b&#62; [a](https://x.example/p#part) # Title C#")).toBe("&#60;b&#62; [a](https://x.example/p#part) # Title C#");
  });

  it("makes MathJax macros that link, style or load text, and keeps other math", () => {
    const page = "$\\href{obsidian://advanced-uri?commandid=x}{click}$ $$\\style{position:fixed}{x}$$ $\\class{a}{b}\\cssId{c}{d}\\bbox[border:1px]{e}\\require{x}$ $\\frac{a}{b} \\\\ \\alpha$";
    expect(clean(page)).toBe(
      "$\\\\href{obsidian://advanced-uri?commandid=x}{click}$ $$\\\\style{position:fixed}{x}$$ $\\\\class{a}{b}\\\\cssId{c}{d}\\\\bbox[border:1px]{e}\\\\require{x}$ $\\frac{a}{b} \\\\ \\alpha$",
    );
    // An even run of backslashes is no macro; an odd one gets one more.
    expect(clean("a \\\\href b \\\\\\href")).toBe("a \\\\href b \\\\\\\\href");
    // Code is code: no math there.
    expect(clean("`\\href{x}{y}`")).toBe("`\\href{x}{y}`");
  });

  it("makes every image a link to it, so opening the note fetches nothing (a device on the user's network included)", () => {
    const page = "![router](http://192.168.1.1/reboot) ![](https://t.example/pixel.gif \"t\")\n![ref image][px]\n\n[px]: https://t.example/p.gif\n[![badge](https://ci.example/b.svg)](https://ci.example)";
    const out = clean(page);
    expect(out).toBe("[Image: router](http://192.168.1.1/reboot) [Image](https://t.example/pixel.gif \"t\")\n!\\[ref image][px]\n\n[px]: https://t.example/p.gif\n[!\\[badge](https://ci.example/b.svg)](https://ci.example)");
    const walker = new Parser().parse(out).walker();
    for (let step = walker.next(); step; step = walker.next()) expect(step.node.type).not.toBe("image");
  });

  // Obsidian hides ` ^id` at a line's end (a block id, an anchor of the note): the page's "^1" was not shown.
  it("shows a page's ` ^id` at a line's end as text, not as a block id, and keeps footnotes and other carets", () => {
    expect(clean("As Smith wrote ^1\n\n- an item ^x-2  \n^intro\n\nA claim ^2 here.")).toBe("As Smith wrote \\^1\n\n- an item \\^x-2  \n\\^intro\n\nA claim ^2 here.");
    expect(clean("A claim.[^1] and ^[an inline note]\n\n[^1]: Smith ^2020 and 2^10 ^src")).toBe("A claim.[^1] and ^[an inline note]\n\n[^1]: Smith ^2020 and 2^10 \\^src");
  });

  it("keeps a page's footnotes, and still drops a footnote that is only an unsafe address", () => {
    const page = "A claim.[^1]\n\n[^1]: Smith, J. The source, 2020.\n[^2]: https://x.example/paper\n[^3]: javascript:alert(1)";
    expect(clean(page)).toBe("A claim.[^1]\n\n[^1]: Smith, J. The source, 2020.\n[^2]: https://x.example/paper");
  });
});

// ── hostile pages: the patterns read in steps match what they matched as one pattern ──────────

/**
 * The cleaning as it was when its element, link, tag and handler patterns ran as single regexes,
 * each of them quadratic on some page. Only what pages over the alphabet below reach: with no ` or
 * ~ there is no code block or span, and no control or bidi character to remove.
 */
function cleanAsBefore(markdown: string): SanitizedMarkdown {
  const removed = { elements: 0, links: 0, handlers: 0 };
  const dropped = "script|style|iframe|frame|frameset|object|embed|applet|noscript|template|form|button|input|select|textarea|link|meta|base|portal";
  const drop = () => {
    removed.elements++;
    return "";
  };
  const target = (raw: string, schemes: string[]): string | null => {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return null;
    }
    return schemes.includes(url.protocol) ? linkDestination(raw) : null;
  };
  const prose = markdown
    .replace(/\r\n?/g, "\n")
    .replace(new RegExp(`(?<!\\\\)<(${dropped})\\b[^>]*>[\\s\\S]*?<\\/\\1\\s*>`, "gi"), drop)
    .replace(new RegExp(`(?<!\\\\)<\\/?(?:${dropped})\\b[^>]*>`, "gi"), drop);
  const lines = prose.split("\n").map((line) => {
    // A definition behind quote and list markers too (CommonMark reads one there): they stay, it goes.
    const definition = new RegExp(String.raw`^(${CONTAINER_MARKERS})( {0,3}\[[^\]]+\]:\s*)<?(\S+?)>?(\s.*)?$`).exec(line);
    if (definition) {
      const url = target(definition[3], ["http:", "https:", "mailto:"]);
      if (url === null) removed.links++;
      return url === null ? definition[1].trimEnd() : `${definition[1]}${definition[2]}${url}${definition[4] ?? ""}`;
    }
    return line
      .replace(/(!?)\[((?:\\.|[^\]\\])*)\]\(\s*<?((?:[^\s()<>]|\([^\s()<>]*\))*)>?((?:\s+(?:"[^"]*"|'[^']*'))?)\s*\)/g, (_m, bang: string, label: string, raw: string, title: string) => {
        const url = target(raw, bang ? ["http:", "https:"] : ["http:", "https:", "mailto:"]);
        if (url === null) removed.links++;
        if (url === null) return bang ? "" : label;
        return bang ? `[${label.trim() === "" ? "Image" : `Image: ${label}`}](${url}${title})` : `[${label}](${url}${title})`;
      })
      .replace(/(?<!\\)<(\/?[A-Za-z][A-Za-z0-9-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>/g, (_m, name: string, attrs: string) => {
        const cleaned = attrs.replace(/\s+(on[a-z]+|(?:href|src|action|formaction|xlink:href)(?=\s*=\s*["']?\s*(?:javascript|vbscript|data):))\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)/gi, () => {
          removed.handlers++;
          return "";
        });
        return `&lt;${name}${cleaned}>`;
      })
      .replace(/(?<!\\)<(?=[!?%])/g, "&lt;")
      .replace(/\\<(?=[A-Za-z/!?%])/g, "&lt;")
      .replace(/(?<!\\)\[\[/g, "\\[\\[")
      .replace(/!\[/g, "!\\[")
      .replace(/(^|[\s(>|[*_~=])#(?=[^\s#\\])/g, "$1\\#")
      .replace(/%%/g, "\\%\\%")
      .replace(/::/g, "\\:\\:")
      .replace(/(?<!\\)((?:\\\\)*)\\(?=(?:href|url|class|cssId|style|data|require|bbox|mmlToken|unicode|html)(?![A-Za-z]))/g, "$1\\\\");
  });
  const cleaned = lines
    .join("\n")
    .replace(/\]\((?!\s*<?(?:https?:\/\/|mailto:))/gi, "]\\(")
    .replace(new RegExp(String.raw`^(${CONTAINER_MARKERS} {0,3}\[[^\]\n]+)\]:(?=[ \t]*$)`, "gm"), "$1]\\:")
    .replace(/\n{3,}/g, "\n\n")
    .trimEnd()
    .replace(/^\s*\n/, "");
  return { markdown: INDENTED_CODE.test(cleaned) ? cleaned : cleaned.trimStart(), removed };
}

/**
 * A first line four columns in is indented code, and keeps its indent: `    >` shows a `>` as code,
 * where `>` at the margin is an empty quote that shows nothing (and `    ```` would open a fence).
 */
const INDENTED_CODE = /^(?: {4}| {0,3}\t)/;

const oneOf = (...texts: string[]) => fc.constantFrom(...texts);
/** Mostly `text`, sometimes missing or wrong: near misses are where a rewrite would differ. */
const usually = (text: string, ...otherwise: string[]) => fc.oneof({ arbitrary: fc.constant(text), weight: 3 }, { arbitrary: oneOf("", ...otherwise), weight: 1 });
const joined = (parts: fc.Arbitrary<string[]>) => parts.map((part) => part.join(""));

/** The characters the patterns turn on (U+2028 is a line break to `.`), and a few words. */
const CHARACTERS = ["[", "]", "(", ")", "\\", "<", ">", '"', "'", "/", "!", "a", "b", "s", "c", "r", "i", "p", "t", " ", "\n", ":", "=", "\u2028"];
const WORDS = ["script", "https://x.example", "javascript:", "on", "[x]", "](", "</"];
const LINK = joined(
  fc.tuple(
    oneOf("", "!"),
    usually("["),
    joined(fc.array(oneOf("x", "[", "\\]", "\\", "\\\u2028", " ", "!["), { maxLength: 3 })),
    usually("]", "]]"),
    usually("(", "( "),
    oneOf("", " ", "  ", "<"),
    oneOf("", "https://x.example", "javascript:x", "a(b)", "(", ">", " "),
    oneOf("", ' "t x"', " 't'", ' "', "  'a"),
    usually(")", " )", "\n)"),
  ),
);
const TAG = joined(
  fc.tuple(
    usually("<", "\\<", "<<"),
    oneOf("", "/"),
    oneOf("a", "b-1", "script", "SCRIPT", "frameset", "frame", "style", "x", " "),
    joined(fc.array(oneOf(" ", "  ", "x", "=", " onclick=x", "  onx=1", ' href="javascript:x"', '"', "'", '">"', "<a", "\n"), { maxLength: 4 })),
    usually(">", " >"),
  ),
);
const CLOSER = joined(fc.tuple(usually("</", "<", "\\</"), oneOf("script", "SCRIPT", "style", "frame", "frameset", "scriptx"), usually(">", " >", "\n>", "x>")));
const HOSTILE_PAGE = joined(fc.array(fc.oneof(oneOf(...CHARACTERS, ...WORDS), LINK, TAG, CLOSER), { maxLength: 12 }));

describe("sanitizeExtractedMarkdown on pages built to be slow", () => {
  it("drops, escapes and keeps just what the single patterns did, on any page of links, tags and elements half made", () => {
    fc.assert(
      fc.property(HOSTILE_PAGE, (page) => {
        expect(sanitizeExtractedMarkdown(page)).toEqual(cleanAsBefore(page));
      }),
      // Pages a random run rarely draws, once counterexamples, are read every run; 5,000 random ones explore besides.
      { numRuns: 5000, examples: [["    >"], [" \n    >"], ["\n   >"], ["    [a](javascript:x)"]] },
    );
  });

  // Each page below took the single pattern many seconds (a `[` line some 20 s or more).
  it("reads a line of 150,000 `[` with no `]` once, and still cleans the links after it", () => {
    const result = sanitizeExtractedMarkdown(`${"[".repeat(150_000)}\n[a](javascript:alert(1)) [b](https://x.example/b)`);
    expect(result.markdown).toBe(`${"\\[".repeat(150_000)}\na [b](https://x.example/b)`);
    expect(result.removed.links).toBe(1);
  });

  it("reads the spaces of a `](` left open once", () => {
    expect(clean(`[a](${" ".repeat(150_000)}x`)).toBe(`[a]\\(${" ".repeat(150_000)}x`);
  });

  it("shows 50,000 tags left open as the text they are, and still cleans the tag after them", () => {
    const result = sanitizeExtractedMarkdown(`${"<a ".repeat(50_000)}\n<img src=x onerror=alert(1)>`);
    expect(result.markdown).toBe(`${"<a ".repeat(50_000)}\n&lt;img src=x>`);
    expect(result.removed.handlers).toBe(1);
    expect(clean('<a "'.repeat(37_500))).toBe('<a "'.repeat(37_500));
  });

  it("reads a tag's run of 150,000 spaces once when looking for handlers", () => {
    const result = sanitizeExtractedMarkdown(`<a${" ".repeat(150_000)}x onclick=alert(1)>`);
    expect(result.markdown).toBe(`&lt;a${" ".repeat(150_000)}x>`);
    expect(result.removed.handlers).toBe(1);
  });

  // 100,000 backticks before a U+2028 took the fence pattern 9 s (this line: some 15 minutes), and
  // a run of 60,000 or more was a code-span pattern too large to make (the cleaning threw).
  it("reads a line of 1,000,000 backticks that `.` cannot read to its end once, as prose", () => {
    const line = `${"`".repeat(1_000_000)}\u2028x`;
    expect(clean(line)).toBe(line);
    expect(clean(`> - ${line}`)).toBe(`> - ${line}`);
  });

  it("keeps 18,750 `<script ` with no `>` as text, and drops 18,750 `<script>` with no closer one tag at a time", () => {
    expect(sanitizeExtractedMarkdown("<script ".repeat(18_750))).toEqual({ markdown: "<script ".repeat(18_750).trimEnd(), removed: { elements: 0, links: 0, handlers: 0 } });
    expect(sanitizeExtractedMarkdown("<script>".repeat(18_750))).toEqual({ markdown: "", removed: { elements: 18_750, links: 0, handlers: 0 } });
  });
});

describe("code blocks end where a reader ends them (code-fences.ts)", () => {
  /** What CommonMark makes live in the cleaned page: links other than http(s), raw HTML, code that a plugin runs. */
  function liveIn(markdown: string): string[] {
    const live: string[] = [];
    const walker = new Parser().parse(markdown).walker();
    for (let step = walker.next(); step; step = walker.next()) {
      const node = step.node;
      if (!step.entering) continue;
      if (node.type === "link" && !/^https?:/.test(node.destination ?? "")) live.push(`link ${node.destination}`);
      if (node.type === "html_inline" || node.type === "html_block") live.push(`html ${node.literal}`);
      if (node.type === "code_block" && node.info && /dataview/i.test(node.info)) live.push(`code ${node.info}`);
    }
    return live;
  }

  it.each([
    ["a first line of indented code, taken to the margin, became a fence", ["    ```", "- item", "```", "``` `", "    ```", "[x](obsidian://evil)"]],
    ["a fence in a quote, ended by a line outside it, opened a block the page's next opener closed", ["> > ```dataviewjs", "   ```", "[x](obsidian://evil)", "````", "~~~dataviewjs", "dv.el('b', 'x')"]],
    ["the same behind a list item's marker", ["> ```", "  ```", "x", "```", "<img src=x onerror=alert(1)>"]],
  ])("%s: nothing in its code is live", (_, lines) => {
    const out = clean(lines.join("\n"));
    expect(liveIn(out), out).toEqual([]);
  });

  it("a page whose fences every reader reads alike keeps its code as written", () => {
    expect(clean("Intro\n\n````md\n```dataviewjs\n[x](obsidian://a)\n```\n````\n\nAfter")).toBe("Intro\n\n````md\n```dataviewjs\n[x](obsidian://a)\n```\n````\n\nAfter");
  });
});

