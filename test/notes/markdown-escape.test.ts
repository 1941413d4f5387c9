import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Parser } from "commonmark";
import { escapeMarkdownText, plainLine, quoteLines, quoteParagraphs } from "../../src/notes/markdown-escape";
import { webLink, wikilink } from "../../src/notes/note-links";
import { addedMarkup, markupIn } from "./obsidian-markup";

describe("escapeMarkdownText", () => {
  it("escapes what markdown or Obsidian would read as syntax, and nothing a reader would miss", () => {
    expect(escapeMarkdownText("<b>x</b> [[y]] #z *w* `c` $m$ ==h== %%c%% 50% a=b")).toBe(
      "&lt;b&gt;x&lt;/b&gt; \\[\\[y\\]\\] \\#z \\*w\\* \\`c\\` \\$m\\$ \\=\\=h\\=\\= \\%\\%c\\%\\% 50% a=b",
    );
  });

  it("does not let a line start a list or a heading", () => {
    expect(escapeMarkdownText("- item")).toBe("\\- item");
    expect(escapeMarkdownText("1. item")).toBe("1\\. item");
    expect(escapeMarkdownText("Title\n---\nmore\n=")).toBe("Title\n\\---\nmore\n\\=");
  });

  it("removes bidirectional overrides and control characters", () => {
    expect(escapeMarkdownText("safe\u202Etxt.exe\u0007 \u001b[31mred")).toBe("safetxt.exe red");
  });

  it("writes < and > as entities, so the raw text holds no tag and no Templater command either", () => {
    expect(escapeMarkdownText("<% tp.file.title %> <script>")).toBe("&lt;% tp.file.title %&gt; &lt;script&gt;");
    expect(escapeMarkdownText("&lt;b&gt; is an entity")).toBe("\\&lt;b\\&gt; is an entity");
  });

  it("leaves snake_case readable and escapes underscores at a word's edge", () => {
    expect(escapeMarkdownText("local_retrieval _emphasis_")).toBe("local_retrieval \\_emphasis\\_");
  });

  it("keeps Dataview inline fields and block ids from forming", () => {
    expect(escapeMarkdownText("rating:: 5 and ^block-id")).toBe("rating\\:\\: 5 and \\^block-id");
  });
});

describe("quoting untrusted text", () => {
  it("quotes each paragraph and joins them inside one blockquote", () => {
    expect(quoteParagraphs("first  line\nwraps\n\nsecond")).toBe("> first line wraps\n>\n> second");
  });

  it("quotes line by line, keeping blank lines inside the quote", () => {
    expect(quoteLines("# A talk\n\n  - point  ")).toBe("> \\# A talk\n>\n> \\- point");
  });

  it("a lone carriage return breaks a quoted line, never the quote: no web text reads as the note's own paragraph", () => {
    const quoted = quoteLines("Snippet.\r\rThe vault's own notes say this is settled.\r# Heading");
    expect(quoted).toBe("> Snippet.\n>\n> The vault's own notes say this is settled.\n> \\# Heading");
    for (const line of quoted.split("\n")) expect(line).toMatch(/^>/);
  });
});

describe("plainLine", () => {
  it("makes one line for a property, without controls or wikilinks", () => {
    expect(plainLine(" a\n b\u0007c [[d]] \u202E")).toBe("a bc [d]");
  });

  it("leaves no [[ or ]] however many brackets a hostile title stacks", () => {
    for (const title of ["[[[Secret]]]", "[[[[x]]]]", "[[ [[x]] ]]", "[[[x]] and ]][[[y", "[\u0007[x]\u202E]", "[\n[x]\r\n]"]) {
      expect(plainLine(title), title).not.toMatch(/\[\[|\]\]/);
    }
    expect(plainLine("[[[Secret]]]")).toBe("[Secret]");
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(..."[]x \n\u0007\u202E"), maxLength: 40 }), (title) => {
        expect(plainLine(title)).not.toMatch(/\[\[|\]\]/);
      }),
      { numRuns: 1000 },
    );
  });

  it("breaks a Templater command, which runs from a new file's properties too", () => {
    expect(plainLine('<%* await tp.system.prompt("x") %>')).toBe('< %* await tp.system.prompt("x") %>');
  });

  // Dataview renders a text property as markdown: a page title's <img> or ![](…) loaded the page's pixel
  // in every `TABLE title` over the sources, and its `$= …` ran as inline JavaScript there.
  it("leaves no image, HTML, link or inline query for Dataview to render from a property, and keeps a title readable", () => {
    const hostile = [
      "Post ![p](https://evil.example/p.png)",
      'Post <img src="https://evil.example/p.png">',
      '<iframe src="https://evil.example/"></iframe>',
      "<https://evil.example/autolink>",
      "[run](obsidian://advanced-uri?commandid=x)",
      "a ![[Secret.png]] b",
      "a !\n[p](https://evil.example/p.png) ]\n(x)",
      '`$= app.vault.adapter.remove("x")`',
      "`` = this.file.name ``",
      "`a` then ` \n$=dv.el('b', 'c')`",
      "$\\style{position:fixed;inset:0}{x}$ and $\\href{obsidian://x}{y}$",
    ];
    for (const title of hostile) {
      const line = plainLine(title);
      const walker = new Parser().parse(line).walker();
      for (let step = walker.next(); step; step = walker.next()) {
        if (!step.entering) continue;
        expect(["image", "html_inline", "html_block", "link"], `${title} → ${line}`).not.toContain(step.node.type);
        if (step.node.type === "code") expect(step.node.literal?.trim(), `${title} → ${line}`).not.toMatch(/^\$?=/);
      }
      // Math is read from the raw line: a macro is live behind an odd run of backslashes (`\\` is a line break).
      for (const [, run] of line.matchAll(/(\\+)(?:style|href)/g)) expect(run.length % 2, `${title} → ${line}`).toBe(0);
    }
    expect(plainLine("Using `git rebase` <b>well</b> & [notes]")).toBe("Using `git rebase` < b>well< /b> & [notes]");
  });

  // MathJax reads math between `$`s only: a LaTeX page's title and a recordings folder on Windows had
  // their backslashes doubled in the note's properties, where nothing could have made math of them.
  it("leaves a backslash word alone where no `$` could make math of it, and a title with `<3` or `a < b` as written", () => {
    expect(plainLine("How to use \\href and \\url in LaTeX")).toBe("How to use \\href and \\url in LaTeX");
    expect(plainLine("C:\\Users\\me\\data\\replays")).toBe("C:\\Users\\me\\data\\replays");
    expect(plainLine("I <3 notes: a < b, b <= c")).toBe("I <3 notes: a < b, b <= c");
    expect(plainLine("Costs $5: see \\href{obsidian://x}{y}$")).toBe("Costs $5: see \\\\href{obsidian://x}{y}$");
  });
});

describe("wikilink", () => {
  it("links a note whose path a wikilink cannot hold with a markdown link to that note, embedding nothing", () => {
    const link = wikilink("Inbox/a]] ![[Private|x.md", { alias: "a]] ![[Private|x" });
    expect(link).toBe("[a\\]\\] !\\[\\[Private\\|x](Inbox/a%5D%5D%20%21%5B%5BPrivate%7Cx.md)");
    expect(markupIn(link)).toEqual({ link: 1 });
    expect(wikilink("Tools/Syncthing.md", { heading: "Versioning", alias: "Syncthing" })).toBe("[[Tools/Syncthing#Versioning|Syncthing]]");
    expect(wikilink("Clips/<% tp.file.title %>.md")).toBe("[Clips/&lt;% tp.file.title %&gt;](Clips/%3C%25%20tp.file.title%20%25%3E.md)");
    expect(wikilink("Clips/Page.md", { alias: "<% tp.file.title %>" })).toBe("[[Clips/Page|< % tp.file.title %>]]");
  });

  it("gives no alias a `%%` that would open a comment hiding the note after it (a page title cut from the file name)", () => {
    expect(wikilink("Research/Sources/Long page title.md", { alias: "Long page title 100%% sure %%%" })).toBe("[[Research/Sources/Long page title|Long page title 100% % sure % % %]]");
    expect(markupIn(wikilink("Research/Sources/Page.md", { alias: "a %%b%%" })).comment).toBeUndefined();
  });
});

describe("webLink", () => {
  it("leaves no `%%` in an address, which would open a comment hiding the note up to the next one", () => {
    // A `%` that starts no escape survives canonicalising as written, and `<%tp%>` becomes `%3C%tp%%3E`.
    for (const url of ["https://evil.example/a%%b", "https://evil.example/%3C%tp%%3E", "https://evil.example/?q=100%", "https://evil.example/%%%"]) {
      const link = webLink("Page", url);
      expect(link, url).not.toContain("%%");
      expect(markupIn(`${link} · ${webLink("Next", url)}`).comment, url).toBeUndefined();
    }
    expect(webLink("Page", "https://evil.example/a%%b?q=100%")).toBe("[Page](https://evil.example/a%25%25b?q=100%25)");
  });

  it("keeps an address's own escapes as they are", () => {
    expect(webLink("Euro", "https://x.example/%E2%82%AC%20a%2fb")).toBe("[Euro](https://x.example/%E2%82%AC%20a%2fb)");
  });
});

describe("the escaper, rendered as Obsidian markdown", () => {
  const anyText = fc.oneof(
    fc.string({ unit: "grapheme", maxLength: 80 }),
    fc.string({ unit: fc.constantFrom(..."[]()!#<>`*_~=%$^:&;|\\-+.1 \n\t>\r\u202E\u0000abc"), maxLength: 40 }),
  );
  /** Where notes put escaped text, each as a template of one slot. */
  const templates: [string, (text: string) => string][] = [
    ["a heading", (t) => `# Research: ${escapeMarkdownText(t)}`],
    ["a list item", (t) => `- **provider_failed** — ${escapeMarkdownText(t)}`],
    ["a table cell", (t) => `| ms | Event |\n| ---: | --- |\n| 1 | ${escapeMarkdownText(t)} |`],
    ["an italic line", (t) => `## Extracted text\n\n_${escapeMarkdownText(t)}_`],
    ["a paragraph after text", (t) => `Judge: **weak_evidence**\n${escapeMarkdownText(t)}`],
    ["a quote, line by line", (t) => `**Outside vault**\n\n${quoteLines(t)}`],
    ["a quote of paragraphs", (t) => `## Provider excerpt\n\n${quoteParagraphs(t)}`],
    ["a callout", (t) => `> [!warning] Unverified answer\n> ${escapeMarkdownText(t)}`],
    ["a web link's text", (t) => `Found: ${webLink(t, "https://example.org/a")} · example.org`],
  ];

  for (const [where, template] of templates) {
    it(`adds no link, embed, tag, HTML, callout or heading in ${where}`, () => {
      fc.assert(
        fc.property(anyText, (text) => {
          expect(addedMarkup(template(text), template("plain words"))).toEqual({});
        }),
        { numRuns: 400 },
      );
    });
  }

  it("would see the markup if the text were not escaped (the model is not blind)", () => {
    const raw = "[[Note]] ![[Embed]] [x](y) #tag <b> ==h== %%c%% $m$ ^id a:: b `code`\n# Heading\nText\n---\n> [!note] callout";
    expect(markupIn(raw)).toEqual({
      wikilink: 1,
      embed: 1,
      link: 2,
      tag: 1,
      html: 1,
      highlight: 2,
      comment: 2,
      math: 2,
      block_id: 1,
      inline_field: 1,
      code: 1,
      heading: 2,
      callout: 1,
    });
    expect(markupIn(escapeMarkdownText(raw))).toEqual({});
  });
});
