import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { describe, expect, it, vi } from "vitest";
import { locateFrontmatter, propertyWords, readSimpleYaml, readWithLibrary } from "../../src/index/frontmatter";
import { escapesDecode, inlineToText, type InlineSink } from "../../src/index/inline-text";
import { parseNote } from "../../src/index/markdown";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
const corpora = join(repoRoot, "../shared/corpora");
const sampleVault = join(repoRoot, "examples/vault");

describe("parseNote: frontmatter", () => {
  it("reads title, aliases, tags and source from the properties", () => {
    const note = parseNote(
      "Reading/Hello.md",
      "---\ntitle: Hello Automerge\naliases: [hello, first steps]\ntags: crdt/automerge, reading\nsource: https://automerge.org/docs/hello/\n---\nBody text.\n",
    );
    expect(note.title).toBe("Hello Automerge");
    expect(note.aliases).toEqual(["hello", "first steps"]);
    expect(note.tags).toEqual(["crdt/automerge", "crdt", "reading"]);
    expect(note.sourceUrls).toEqual(["https://automerge.org/docs/hello/"]);
    expect(note.problems).toEqual([]);
  });

  it("takes no tag from another property's text, as Obsidian does not (a saved page's description), but keeps its links", () => {
    const text = "---\ntags: reading\ndescription: \"Notes on #budget and [[Plans]]\"\n---\nBody #body.\n";
    for (const propertyLines of [false, true]) {
      const note = parseNote("Sources/Page.md", text, { propertyLines });
      expect(note.tags).toEqual(["reading", "body"]);
      expect(note.links).toContain("Plans");
      expect(note.sections.map((s) => s.text).join(" ")).toContain("budget");
    }
    // Frontmatter that cannot be parsed is searched as text, and gives no tags either.
    expect(parseNote("b.md", "---\nkey: [unclosed #stray\n---\nBody.\n").tags).toEqual([]);
  });

  it("accepts the singular `alias` and `tag` keys, space-separated tags and a leading #", () => {
    const note = parseNote("a.md", "---\nalias: Solo\ntag: '#One two'\n---\n");
    expect(note.aliases).toEqual(["Solo"]);
    expect(note.tags).toEqual(["one", "two"]);
  });

  it("keeps every `source` and `url` value as written", () => {
    const note = parseNote("a.md", "---\nsource:\n  - https://a.example/x?y=1\n  - https://b.example/\nurl: https://c.example\n---\n");
    expect(note.sourceUrls).toEqual(["https://a.example/x?y=1", "https://b.example/", "https://c.example"]);
  });

  it("adds prose properties such as description to the preamble's searchable text, but not ids or dates", () => {
    const note = parseNote("a.md", "---\nid: x7f3\ndesc: Sync engines compared\ncreated: 2024-05-01\n---\n# Heading\nbody\n");
    expect(note.sections[0]).toMatchObject({ level: 0, text: "Sync engines compared" });
    expect(note.sections[0].text).not.toContain("x7f3");
    expect(note.sections[0].text).not.toContain("2024");
  });

  it("searches a note's `type` property, which Obsidian users give their own values (a shrine, a city)", () => {
    const note = parseNote("Fushimi Inari.md", '---\ncategories:\n  - "[[Places]]"\ntype:\n  - "[[Shrines]]"\nloc:\n  - "[[Kyoto]]"\n---\n');
    expect(note.sections[0].text).toContain("Shrines");
    expect(note.sections[0].text).toContain("Kyoto");
  });

  it("gives search the names of properties that hold a value and their figures, not bookkeeping, prose or blobs", () => {
    const note = parseNote("Film.md", "---\nimdbId: tt0083658\nyear: 1982\nlast: 2023-09-14\ncoordinates:\n  - \"35.02\"\nhash: \"12345678901234567890123456789012345\"\ndirector: \"[[Ridley Scott]]\"\nrating:\ncreated: 2024-01-01\nid: 42\n---\n");
    expect(propertyWords(note.frontmatter)).toEqual(["imdbId", "year", "1982", "last", "2023-09-14", "coordinates", "35.02", "director"]);
    const cycle: unknown[] = ["[[Shrines]]"];
    cycle.push(cycle);
    const odd = { size: Number.NaN, big: Infinity, flag: true, off: false, nested: { a: 1 }, "": "no name", site: "https://a.example/", cycle };
    expect(propertyWords(odd)).toEqual(["flag", "cycle"]);
    expect(parseNote("Cycle.md", "---\na: &x [*x]\nb: &y [[*y]]\n---\nStill a note.\n", { propertyLines: true }).sections[0].text).toBe("Still a note.");
  });

  it("gives a note about to be shown its properties as lines of their own, and the index their prose alone, with the same links", () => {
    const text = '---\ncategories:\n  - "[[Albums]]"\nartist: "[[Paul Chambers]]"\nyear: 1957\nfavourite: true\ncover: https://img.example/bass.jpg\ncreated: 2023-09-12\nrating:\n---\nNotes on the record.\n';
    const shown = parseNote("Bass on Top.md", text, { propertyLines: true });
    expect(shown.sections[0].text).toBe("categories: Albums;\nartist: Paul Chambers;\nyear: 1957;\nfavourite: yes;\nNotes on the record.");
    const indexed = parseNote("Bass on Top.md", text);
    expect(indexed.sections[0].text).toBe("Albums\nPaul Chambers\nNotes on the record.");
    expect(shown.links).toEqual(indexed.links);
    expect(indexed.links).toEqual(["Albums", "Paul Chambers"]);
  });

  it("shows and searches a number as the note writes it, not as YAML reads it (1.10 is not 1.1, a zip code keeps its 0)", () => {
    const yaml = "version: 1.10\nzip: 02134\nbig: 12345678901234567890\nsize: 1e3\nratio: .50\nsigned: +7\nsizes: [1.50, 2]\nyear: 1982\n";
    // The same values when the YAML library reads the block (a folded value sends it there).
    const fancy = `${yaml}summary: >-\n  Folded\nmask: 0x1F\n`;
    expect(readSimpleYaml(fancy)).toBeNull();
    for (const block of [yaml, fancy]) {
      const note = parseNote("Release.md", `---\n${block}---\nBody.\n`, { propertyLines: true });
      expect(note.frontmatter).toMatchObject({ version: "1.10", zip: "02134", big: "12345678901234567890", size: "1e3", ratio: ".50", signed: "+7", sizes: ["1.50", "2"], year: "1982" });
      expect(note.sections[0].text).toContain("version: 1.10;\nzip: 02134;\nbig: 12345678901234567890;\nsize: 1e3;\nratio: .50;\nsigned: +7;\nsizes: 1.50, 2;\nyear: 1982;");
      expect(propertyWords(note.frontmatter)).toEqual(expect.arrayContaining(["1.10", "02134", "1e3", "1982"]));
    }
    expect(parseNote("m.md", `---\n${fancy}---\n`, { propertyLines: true }).sections[0].text).toContain("mask: 0x1F;");
    // A title that is a number is its title as written.
    expect(parseNote("x.md", "---\ntitle: 2001.10\n---\n").title).toBe("2001.10");
  });

  it("gives the same properties whether the fast reader or the YAML library reads them", () => {
    const flat = "title: Plain\ntags:\n  - a\n  - b\ncount: 3\n";
    const fancy = "title: >-\n  Plain\ntags: !!seq\n  - a\n  - b\ncount: 3\n";
    expect(readSimpleYaml(fancy)).toBeNull();
    expect(parseNote("x.md", `---\n${flat}---\n`).frontmatter).toEqual(parseNote("x.md", `---\n${fancy}---\n`).frontmatter);
  });

  it("reads a `__proto__` property as a property, as the YAML library does, never as the properties' prototype", () => {
    for (const block of ["__proto__: [a, b]\ntitle: T\n", "__proto__:\n  - a\n  - b\ntitle: T\n"]) {
      expect(readSimpleYaml(block)).toBeNull();
      const note = parseNote("x.md", `---\n${block}---\nBody.\n`, { propertyLines: true });
      expect(Object.getPrototypeOf(note.frontmatter)).toBe(Object.prototype);
      expect(Object.keys(note.frontmatter)).toEqual(["__proto__", "title"]);
      expect(note.sections[0].text).toBe("__proto__: a, b;\nBody.");
    }
  });

  it("indexes a note with invalid YAML as text and records a frontmatter problem", () => {
    const text = "---\ntitle: [unclosed\nsummary: still searchable\n---\nThe body survives.\n";
    const note = parseNote("Broken.md", text);
    expect(note.frontmatter).toEqual({});
    expect(note.title).toBe("Broken");
    expect(note.problems).toHaveLength(1);
    expect(note.problems[0].kind).toBe("frontmatter");
    expect(note.sections[0].text).toContain("still searchable");
    expect(note.sections[0].text).toContain("The body survives.");
    expect(note.sections[0].start).toBe(0);
  });

  it("indexes an unterminated frontmatter block as text", () => {
    const note = parseNote("Open.md", "---\ntitle: Never closed\n\n# Real heading\nwords\n");
    expect(note.problems.map((p) => p.kind)).toEqual(["frontmatter"]);
    // Its lines are body text before the H1, so the H1 heads a section and the file name is the title.
    expect(note.title).toBe("Open");
    expect(note.sections.map((s) => s.heading)).toEqual(["", "Real heading"]);
    expect(note.sections[0].text).toContain("title: Never closed");
  });

  it("reports frontmatter that is a list instead of properties", () => {
    const note = parseNote("List.md", "---\n- a\n- b\n---\ntext\n");
    expect(note.problems).toEqual([expect.objectContaining({ kind: "frontmatter" })]);
    expect(note.frontmatter).toEqual({});
  });

  it("treats an empty frontmatter block as no properties, without a problem", () => {
    const note = parseNote("Empty.md", "---\n---\ntext\n");
    expect(note.problems).toEqual([]);
    expect(note.sections[0].text).toBe("text");
  });
});

describe("parseNote: encoding", () => {
  it("records a byte order mark as an encoding problem and still reads the frontmatter", () => {
    const note = parseNote("Bom.md", "\uFEFF---\ntitle: With BOM\n---\ntext\n");
    expect(note.title).toBe("With BOM");
    expect(note.problems).toEqual([expect.objectContaining({ kind: "encoding" })]);
  });

  it("counts replacement characters as an encoding problem", () => {
    const note = parseNote("Bad.md", "caf\uFFFD and na\uFFFDve\n");
    expect(note.problems).toHaveLength(1);
    expect(note.problems[0]).toMatchObject({ kind: "encoding" });
    expect(note.problems[0].message).toContain("2 unreadable characters");
  });
});

describe("parseNote: tags", () => {
  it("collects inline tags, nested ones with their parents", () => {
    const note = parseNote("a.md", "Working on #crdt/automerge/sync and #privacy today.\n");
    expect(note.tags).toEqual(["crdt/automerge/sync", "crdt/automerge", "crdt", "privacy"]);
    expect(note.sections[0].text).toBe("Working on crdt automerge sync and privacy today.");
  });

  it("ignores issue numbers, URL anchors, headings and tags inside code", () => {
    const text = [
      "# Heading not a tag",
      "Fixed in #123 see https://example.com/page#anchor and a#b.",
      "`#inline-code` stays code",
      "```",
      "#fenced-code",
      "```",
      "Real one: #kept",
    ].join("\n");
    expect(parseNote("a.md", text).tags).toEqual(["kept"]);
  });

  it("reads Logseq `tags::` properties", () => {
    const note = parseNote("a.md", "tags:: [[Local First]], #sync, offline\n- a bullet\n");
    expect(note.tags).toEqual(["local first", "sync", "offline"]);
  });

  it("takes no tag from a Logseq source, query, example or export block (code, as Logseq renders it); their words stay", () => {
    const text = [
      "- Compile it with #gcc:",
      "\t  #+BEGIN_SRC c",
      "\t  #include <stdio.h>",
      "\t  #define SIZE 10",
      "\t  #+END_SRC",
      "\t- #+BEGIN_QUERY",
      "\t  {:query [:find (pull ?b [*]) :where [?b :block/refs #project]]}",
      "\t  #+END_QUERY",
      "\t- #+begin_example",
      "\t  - a #shown-tag in an example",
      "\t    tags:: motor, steering wheel",
      "\t  #+end_example",
      "- #+BEGIN_EXPORT html",
      "  <p>#raw</p>",
      "  #+END_EXPORT",
      "- #+BEGIN_NOTE",
      "  A note's #kept-in-note is a tag: Logseq renders its markdown.",
      "  #+END_NOTE",
      "- After the blocks, #after is a tag again.",
      "- #+BEGIN_SRC never closed, so #open-src is read as any line is",
    ].join("\n");
    const note = parseNote("a.md", text);
    expect(note.tags).toEqual(["gcc", "kept-in-note", "after", "open-src"]);
    expect(note.sections[0].text).toContain("include\ndefine SIZE 10");
    expect(note.sections[0].text).toContain("a shown-tag in an example");
  });

  it("takes no tag from a SilverBullet `${…}` expression (Lua: `#group` is a length), on one line or many; their words stay", () => {
    const text = [
      "Records by #status below.",
      "${query[[",
      "  from p = index.pages(\"adr\")",
      "  group by p.status",
      "  select { Status = key, Count = #group }",
      "#heading-like line inside",
      "]]} and #after-close on its closing line",
      "Inline ${#items} items, ${count(t, #rows)}, then #inline-after.",
      "Math ${n \\choose #k}$ is no expression: #k counts.",
      "- ${widgets.button(\"x\",",
      "  #in-list)} #list-after",
    ].join("\n");
    const note = parseNote("ADR.md", text);
    expect(note.tags).toEqual(["status", "after-close", "inline-after", "k", "list-after"]);
    expect(note.sections[0].text).toContain("select { Status = key, Count = group }");
    expect(note.sections[0].text).toContain("Inline ${#items} items, ${count(t, rows)}");
  });

  it("takes no link from a SilverBullet `${…}` expression (its `[[` opens a query or a string), on one line or many; their words stay", () => {
    const text = [
      "Decisions about [[Architecture]] below.",
      "${query[[",
      "  from p = index.pages(\"adr\")",
      "  select { ADR = \"[[\" .. p.name .. \"]]\", Doc = \"[spec](Spec.md)\" }",
      "]]} and [[After Close]] on its closing line",
      "${mermaid.diagram(mermaid.timeline{",
      "  pages = query[[from index.pages(\"adr\")]],",
      "})}",
      "Inline ${query[[from index.tags()]]} then [[Inline After]], ${t(\"![[Embedded]] [see [[Labelled]]](Target.md)\")}.",
      "Math ${n \\choose [[k]]}$ is no expression: [[k]] is a link.",
      "- ${widgets.button(\"[[In List]]\",",
      "  [[Also In List]])} [[List After]]",
    ].join("\n");
    const note = parseNote("ADR.md", text);
    expect(note.links).toEqual(["Architecture", "After Close", "Inline After", "k", "List After"]);
    expect(note.sections[0].text).toContain("select { ADR = \"\" .. p.name .. \"\", Doc = \"spec\" }");
    expect(note.sections[0].text).toContain("${t(\"Embedded see Labelled\")}");
  });

  it("reads tags written in other scripts", () => {
    expect(parseNote("a.md", "メモ #日本語/ノート と #тег.\n").tags).toEqual(["日本語/ノート", "日本語", "тег"]);
  });
});

describe("parseNote: sections", () => {
  const text = "Intro line.\n\n# Title\nLead.\n\n## Part A\nA text.\n\n### Deep\nDeep text.\n\n## Part B\nB text.\n";

  it("splits the note at headings, with a preamble for text before the first one", () => {
    const note = parseNote("a.md", text);
    expect(note.sections.map((s) => [s.heading, s.level, s.line])).toEqual([
      ["", 0, 1],
      ["Title", 1, 3],
      ["Part A", 2, 6],
      ["Deep", 3, 9],
      ["Part B", 2, 12],
    ]);
    expect(note.sections[3].headingPath).toEqual(["Title", "Part A", "Deep"]);
    expect(note.sections[4].headingPath).toEqual(["Title", "Part B"]);
  });

  it("gives offsets that cover the note: each section ends where the next begins", () => {
    const note = parseNote("a.md", text);
    for (let k = 1; k < note.sections.length; k++) expect(note.sections[k].start).toBe(note.sections[k - 1].end);
    expect(note.sections.at(-1)!.end).toBe(text.length);
    expect(text.slice(note.sections[2].start, note.sections[2].end)).toBe("## Part A\nA text.\n\n");
  });

  it("leaves out an empty preamble when the note opens with a heading", () => {
    expect(parseNote("a.md", "# Only\ntext\n").sections.map((s) => s.heading)).toEqual(["Only"]);
  });

  it("keeps where blocks end only in a shown parse: the index's text is the same lines, one line break apart, with no code span", () => {
    const note = "# Setup\nRun it:\n\n```sh\nnpm i\n```\n- one\n- two\n";
    expect(parseNote("a.md", note).sections[0].text).toBe("Run it:\nnpm i\none\ntwo");
    expect(parseNote("a.md", note, { blocks: true }).sections[0].text).toBe("Run it:\n\n`npm i`\n\none\n\ntwo");
  });

  it("still gives an empty note one section", () => {
    expect(parseNote("a.md", "").sections).toEqual([{ heading: "", level: 0, headingPath: [], start: 0, end: 0, text: "", line: 1 }]);
  });

  it("does not treat `#` lines inside code fences as headings", () => {
    const note = parseNote("a.md", "# Real\n```bash\n# a shell comment\n```\n~~~\n## also code\n~~~\n");
    expect(note.sections.map((s) => s.heading)).toEqual(["Real"]);
    expect(note.sections[0].text).toBe("# a shell comment\n## also code");
  });

  describe("reads code fences as Obsidian renders them (CommonMark)", () => {
    const headings = (text: string) => parseNote("Fences.md", text).sections.map((s) => s.heading);

    it("a run of backticks indented four spaces or more neither opens nor closes a fence", () => {
      // Indented code, not a fence: it ends at the first line less indented, and the headings below it are headings.
      const opened = parseNote("Fences.md", "Some prose.\n\n        ```js\n# Usage\nrun it\n");
      expect(opened.sections.map((s) => [s.heading, s.text])).toEqual([["", "Some prose."], ["Usage", "run it"]]);
      // Inside a fence, an indented run is a line of its code: the fence runs on to the end.
      const closed = parseNote("Fences.md", "# Setup\n```sh\nnpm i\n        ```\n# Usage\nrun it\n");
      expect(closed.sections.map((s) => s.heading)).toEqual(["Setup"]);
      expect(closed.title).toBe("Setup");
    });

    it("a closer followed by a no-break space is a line of code, not the end", () => {
      expect(headings("# Setup\n```sh\nnpm i\n```\u00a0\n# Usage\nrun it\n")).toEqual(["Setup"]);
      expect(headings("# Setup\n```sh\nnpm i\n``` \t\n# Usage\nrun it\n")).toEqual(["Setup", "Usage"]);
    });

    it("a fence in a quote, callout or list item ends with it, closed or not", () => {
      expect(headings("# Setup\n> [!tip]\n> ```sh\n> npm i\n\n# Usage\nrun it\n")).toEqual(["Setup", "Usage"]);
      expect(headings("# Setup\n- ```sh\n  npm i\n\n# Usage\nrun it\n")).toEqual(["Setup", "Usage"]);
      const closedInItem = parseNote("Fences.md", "# Setup\n- step\n  ```sh\n  npm i\n  ```\n# Usage\n");
      expect(closedInItem.sections.map((s) => [s.heading, s.text])).toEqual([["Setup", "step\nnpm i"], ["Usage", ""]]);
    });

    it("reads a fence in a bullet nested by tabs as code, as Logseq writes them: its links and tags are none", () => {
      const note = parseNote("Fences.md", '- Config\n\t- Capture\n\t\t- ```edn\n\t\t  {:text "[[quick capture]] #inbox"}\n\t\t  ```\n# After\n');
      expect([note.links, note.tags, note.sections.map((s) => s.heading)]).toEqual([[], [], ["", "After"]]);
    });

    it("reads a fence shown in indented code (docs show an example query so) as code: its `#tag` and `# comment` are none", () => {
      const note = parseNote("Fences.md", "Example:\n\n    ```tasks\n    tags include #todo\n    # short mode\n    ```\n\n#real\n## After\n");
      expect([note.tags, note.sections.map((s) => s.heading)]).toEqual([["real"], ["", "After"]]);
      expect(note.sections[0].text).toContain("# short mode");
    });

    it("a quoted run of backticks does not close a fence opened outside the quote", () => {
      const note = parseNote("Fences.md", "# Setup\n```md\n> ```\n# Quoted heading, still code\n```\n# Usage\n");
      expect(note.sections.map((s) => s.heading)).toEqual(["Setup", "Usage"]);
      expect(note.sections[0].text).toContain("# Quoted heading, still code");
    });
  });

  it("reads no heading or setext underline inside a comment block, as Obsidian hides them; its words stay", () => {
    const html = parseNote("a.md", "# Real\n<!--\nDraft line\n---\n# Old heading\n#draft see [[Linked]]\n-->\nAfter\n");
    expect(html.sections.map((s) => s.heading)).toEqual(["Real"]);
    expect(html.title).toBe("Real");
    expect(html.tags).toEqual([]);
    expect(html.links).toEqual([]);
    expect(html.sections[0].text).toContain("Old heading");
    expect(html.sections[0].text).toContain("After");

    const percent = parseNote("b.md", "Intro\n\n%%\n#### Duplicate ids\nCommented out for now.\n%%\n\n### dependsOn\nText\n");
    expect(percent.sections.map((s) => s.heading)).toEqual(["", "dependsOn"]);
    expect(percent.sections[0].text).toContain("Duplicate ids");

    // The closing marker may end a line; what follows it is text. A fence inside is no fence.
    const closed = parseNote("c.md", "# Kept\n%% ----\n## Not a heading #nope\n```sh\n---- %% shown #yes\n## Also kept\n<!-- ```sh\nnpm info\n``` -->\n## Last\n");
    expect(closed.sections.map((s) => s.heading)).toEqual(["Kept", "Also kept", "Last"]);
    expect(closed.tags).toEqual(["nope", "yes"]);
    expect(closed.sections[0].text).toContain("shown");
  });

  it("takes the tags and links of a `%%` comment, as Obsidian's metadata does (notes hide tags there), and none of an HTML comment's", () => {
    // As Obsidian 1.8 lists them: a `#tag` in a `%%` block is a tag whether the block spans lines or
    // not; nothing in `<!-- -->` is, since Obsidian reads no markdown inside HTML.
    const note = parseNote("a.md", "# Plan\n%%\n#project/alpha see [[Roadmap]]\n%%\nText %% #inline %%\n<!--\n#draft [[Old plan]]\n-->\n<!-- #gone [[Gone]] -->\n");
    expect(note.tags).toEqual(["project/alpha", "project", "inline"]);
    expect(note.links).toEqual(["Roadmap"]);
    expect(note.sections.map((s) => s.heading)).toEqual(["Plan"]);
    expect(note.sections[0].text).toContain("Old plan");
  });

  it("takes no comment that nothing closes: a stray `%%` or `<!--` hides no heading after it", () => {
    const stray = parseNote("d.md", "# One\n%% a literal mermaid line\n## Two\n#kept\n<!-- never closed\n## Three\n");
    expect(stray.sections.map((s) => s.heading)).toEqual(["One", "Two", "Three"]);
    expect(stray.tags).toEqual(["kept"]);
    // A `%%` inside prose opens nothing (a Lua string in a SilverBullet page).
    const prose = parseNote("e.md", '# One\n  { text = "%% any line" },\n## Two\n%%\n');
    expect(prose.sections.map((s) => s.heading)).toEqual(["One", "Two"]);
  });

  it("reads setext headings, but a rule after a blank line is only a rule", () => {
    const note = parseNote("a.md", "Big title\n=========\nText\n\n---\n\nSmaller\n-------\nMore\n");
    expect(note.sections.map((s) => [s.heading, s.level])).toEqual([
      ["Big title", 1],
      ["Smaller", 2],
    ]);
    expect(note.sections[0].text).toBe("Text");
    expect(note.sections[1].start).toBe("Big title\n=========\nText\n\n---\n\n".length);
  });

  it("takes no setext heading from a list item's lines: Logseq's empty bullet `-` after a block of two lines", () => {
    const note = parseNote("journal.md", "- Testing\n  Testing\n-\n- Item\nlazy line\n---\nAfter the rule\n---\nReal heading\n===\n");
    expect(note.sections.map((s) => [s.heading, s.level])).toEqual([
      ["", 0],
      ["After the rule", 2],
      ["Real heading", 1],
    ]);
    expect(note.sections[0].text).toBe("Testing\nTesting\nItem\nlazy line");
  });

  it("strips closing hashes but keeps a hash that belongs to a word", () => {
    expect(parseNote("a.md", "## Notes on C# ##\n").sections[0].heading).toBe("Notes on C#");
  });

  it("finds section offsets and lines in CRLF text", () => {
    const crlf = "---\r\ntitle: T\r\n---\r\nintro\r\n# H\r\nbody\r\n";
    const note = parseNote("a.md", crlf);
    expect(note.sections.map((s) => [s.heading, s.line, s.text])).toEqual([
      ["", 4, "intro"],
      ["H", 5, "body"],
    ]);
    expect(crlf.slice(note.sections[1].start).startsWith("# H\r\n")).toBe(true);
  });
});

describe("parseNote: inline markup becomes plain words", () => {
  const textOf = (line: string): string => parseNote("a.md", line).sections[0].text;

  it("reduces wikilinks and embeds to their alias or the target's name, and collects the targets", () => {
    const note = parseNote("a.md", "See [[Projects/Sync Engine|the engine]], [[CRDT primer#Merging rules]] and ![[diagram.png]].\n");
    expect(note.sections[0].text).toBe("See the engine, CRDT primer Merging rules and diagram.png.");
    expect(note.links).toEqual(["Projects/Sync Engine", "CRDT primer", "diagram.png"]);
  });

  it("reads Dendron's label-first links the Dendron way round", () => {
    const note = parseNote("a.md", "As in [[Details|dendron.topic.lookup#details]] and [[Plain Note|its alias]].\n");
    expect(note.sections[0].text).toBe("As in Details and its alias.");
    expect(note.links).toEqual(["dendron.topic.lookup", "Plain Note"]);
  });

  it("reads Dendron's links into a named vault (`dendron://vault/note`) as links to the note, shown by their label", () => {
    const note = parseNote("a.md", "Ask in [[Discord Roles|dendron://dendron.dendron-site/community.discord.roles]], see [[dendron://dendron.dendron-site/changelog]] or [[here|dendron://site/tutorial#outputs]].\n");
    expect(note.sections[0].text).toBe("Ask in Discord Roles, see changelog or here.");
    expect(note.links).toEqual(["community.discord.roles", "changelog", "tutorial"]);
  });

  it("turns markdown links into their text and keeps relative note links", () => {
    const note = parseNote("a.md", "Read [the docs](https://x.dev/a_(b)) and [my note](Notes/My%20Note.md#part).\n");
    expect(note.sections[0].text).toBe("Read the docs and my note.");
    expect(note.links).toEqual(["Notes/My Note.md"]);
  });

  it("reads Logseq's page link in markdown form, `[label]([[Page]])`, as a link to the page", () => {
    const note = parseNote("a.md", "- [Documentation]([[Handbook]]) and [delete]([[Whiteboard/Deletion]]) in [0.9.2]([[Version 0.9.2]])\n");
    expect(note.sections[0].text).toBe("Documentation and delete in 0.9.2");
    expect(note.links).toEqual(["Handbook", "Whiteboard/Deletion", "Version 0.9.2"]);
  });

  it("reads a markdown link whose target is in angle brackets, as Obsidian writes a path with spaces", () => {
    const note = parseNote("a.md", 'See [the plan](<Projects/Sync plan.md>) and ![chart](<img/a b.png> "Chart") too.\n');
    expect(note.sections[0].text).toBe("See the plan and chart too.");
    expect(note.links).toEqual(["Projects/Sync plan.md"]);
  });

  it("removes emphasis, highlights and HTML, keeping snake_case intact and struck-out text marked as struck out", () => {
    expect(textOf("**bold** _it_ ==mark== ~~gone~~ <b>tag</b> keep_this_name")).toBe("bold it mark ~~gone~~  tag  keep_this_name");
  });

  it("keeps callout titles and bodies but not the callout marker", () => {
    const note = parseNote("a.md", "> [!warning]- Data loss risk\n> Back up the *repo* first.\n");
    expect(note.sections[0].text).toBe("Data loss risk\nBack up the repo first.");
  });

  it("drops list markers, task boxes, table dividers and block ids", () => {
    const text = "- [x] done item ^abc123\n1. first\n| a | b |\n|---|:-:|\n| 1 | 2 |\n";
    expect(textOf(text)).toBe("done item\nfirst\na   b\n1   2");
  });

  it("reads a wikilink and HTML before a link target that never closes (the target's closer, looked for ahead, hid them)", () => {
    const note = parseNote("a.md", "[see [[Note]] here]([[Page\n[a <b>bold</b> c](<path\n");
    expect(note.links).toEqual(["Note"]);
    expect(note.sections[0].text).toBe("[see Note here]([[Page\n[a  bold  c](<path");
  });

  it("keeps inline code text without reading tags or links inside it", () => {
    const note = parseNote("a.md", "Run `git log #notatag [[nolink]]` now\n");
    expect(note.sections[0].text).toBe("Run `git log #notatag [[nolink]]` now");
    expect(note.tags).toEqual([]);
    expect(note.links).toEqual([]);
  });
});

/** How many characters `read` reads of strings (calls of `charCodeAt`, the scanners' one way in): work, not time. */
function charReads(read: () => void): number {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- taken off to be put back, and only ever called on a string
  const original = String.prototype.charCodeAt;
  let reads = 0;
  String.prototype.charCodeAt = function (this: string, at: number) {
    reads++;
    return original.call(this, at);
  };
  try {
    read();
  } finally {
    String.prototype.charCodeAt = original;
  }
  return reads;
}

describe("parseNote: hostile input", () => {
  it("reads each character of a line of links that never close a bounded number of times", () => {
    // Each opener read up to 2,000 characters on: 2 MB of `[a](` took 3 s, of `![a](` 6 s (300 to 700 reads a character).
    const lines = ["[a](".repeat(2_000), "![a](".repeat(2_000), "[a ".repeat(3_000) + "](x)", '[a](x "'.repeat(1_500)];
    for (const line of lines) {
      const sink: InlineSink = { tags: [], links: [] };
      expect(charReads(() => inlineToText(line, sink)) / line.length, line.slice(0, 8)).toBeLessThan(100);
    }
    // Nesting as deep as a real link's holds, with parentheses in the address and brackets in the label.
    const deep = `[see ${"[a ".repeat(31)}x${"]".repeat(31)}](a${"(".repeat(31)}b${")".repeat(31)}.md)`;
    expect(parseNote("a.md", deep).links).toEqual([`a${"(".repeat(31)}b${")".repeat(31)}.md`]);
    expect(parseNote("a.md", `[x](a${"(".repeat(33)}b${")".repeat(33)}.md)`).links).toEqual([]);
  });

  it("does not try to decode a link target whose %-escapes are malformed (each try threw: a line of `[a](%)` took 3 s)", () => {
    const decode = vi.spyOn(globalThis, "decodeURIComponent");
    try {
      const note = parseNote("a.md", "[a](%) [b](Bad%zz.md) [c](Half%C3.md) [d](%ED%A0%80.md) [e](My%20Note.md) [f](Caf%C3%A9.md)\n");
      expect(note.links).toEqual(["%", "Bad%zz.md", "Half%C3.md", "%ED%A0%80.md", "My Note.md", "Café.md"]);
      expect(decode.mock.calls.map(([target]) => target)).toEqual(["My%20Note.md", "Caf%C3%A9.md"]);
    } finally {
      decode.mockRestore();
    }
  });

  it("knows which %-escapes decode exactly as decodeURIComponent does", () => {
    const decodes = (s: string) => {
      try {
        decodeURIComponent(s);
        return true;
      } catch {
        return false;
      }
    };
    const hex = (byte: number) => `%${byte.toString(16).padStart(2, "0")}`;
    // Every one- and two-byte escape, then three- and four-byte ones around UTF-8's edges.
    const samples = ["%", "%4", "%4g", "a%41b", "%%41", "x%C3%"];
    for (let a = 0; a < 256; a++) for (let b = 0; b < 256; b++) samples.push(hex(a), hex(a) + hex(b), `${hex(a)}x${hex(b)}`);
    const edges = [0x00, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff];
    for (const a of edges) for (const b of edges) for (const c of edges) {
      samples.push(hex(a) + hex(b) + hex(c));
      for (const d of edges) samples.push(hex(a) + hex(b) + hex(c) + hex(d));
    }
    const wrong = samples.filter((s) => escapesDecode(s) !== decodes(s));
    expect(wrong).toEqual([]);
  });

  it("reads long lines full of unclosed brackets, wikilinks and tags as text", () => {
    // These once took tens of seconds (closing markers were searched once per opener); speed is
    // watched by `npm run bench`, this pins that the text survives intact.
    const lines = ["[a ".repeat(20_000) + "](x)", "[[a ".repeat(20_000), "<a ".repeat(20_000), "[^".repeat(20_000)];
    const note = parseNote("hostile.md", lines.join("\n"));
    expect(note.sections).toHaveLength(1);
    const words = note.sections[0].text.match(/\ba\b/g) ?? [];
    expect(words.length).toBeGreaterThanOrEqual(60_000);
    // Only the last bracket of the first line closes into a real link.
    expect(note.links).toEqual(["x"]);
  });

  it("reports a frontmatter line of 19,000 `]` as not YAML, with its line, and reads the note on", () => {
    // The YAML library made a message with the whole line for each `]`: 80,000 of them took 24 s.
    const note = parseNote("brackets.md", `---\ntitle: ${"]".repeat(19_000)}\n---\nbody`);
    expect(note.problems).toEqual([
      { kind: "frontmatter", message: 'Frontmatter is not valid YAML on line 2 (Unexpected flow-seq-end token in YAML stream: "]"); the note is indexed as plain text.' },
    ]);
    expect(note.sections.map((section) => section.text.slice(-4))).toEqual(["body"]);
  });

  it("reads frontmatter of 1,900,000 `]` as text without handing it to the YAML library, and says why", () => {
    // The library meets an error at each `]`, some 12 µs each: 23 s for this block.
    const note = parseNote("brackets.md", `---\ntitle: ${"]".repeat(1_900_000)}\n---\nbody`);
    expect(note.problems).toEqual([
      {
        kind: "frontmatter",
        message: "Frontmatter is 1,900,008 characters long; properties longer than 20,000 characters are read as text unless they are simple `key: value` lines; the note is indexed as plain text.",
      },
    ]);
    // The block is read as text, as a broken one always is.
    expect(note.sections.map((section) => section.text.slice(-4))).toEqual(["body"]);
  });

  it("hands the YAML library no frontmatter of 99,000 `]`, which held it 1.3–2 s, and keeps long flat properties", () => {
    const note = parseNote("brackets.md", `---\n${"]".repeat(99_000)}\n---\nbody`);
    expect(note.problems.map((p) => p.message)).toEqual([
      "Frontmatter is 99,001 characters long; properties longer than 20,000 characters are read as text unless they are simple `key: value` lines; the note is indexed as plain text.",
    ]);
    // Plain `key: value` lines are read however long they run.
    const flat = parseNote("long.md", `---\ntitle: Long\nsummary: ${"word ".repeat(30_000)}\n---\nbody`);
    expect(flat.problems).toEqual([]);
    expect(flat.title).toBe("Long");
  });

  it("reads a line of backtick runs of 1, 2 … 4,000 that none closes once, keeping them as text", () => {
    // Each run looked for its closer along the rest of the line: this line took 107 s.
    let line = "a";
    for (let n = 1; n <= 4_000; n++) line += `${"`".repeat(n)}a`;
    const note = parseNote("backticks.md", `${line}\n\`x\` and \`\`y\`\``);
    expect(note.sections[0].text).toBe(`${line}\n\`x\` and \`\`y\`\``);
  });
});

describe("parseNote: title", () => {
  it("prefers the frontmatter title, then the opening H1, then the file name", () => {
    expect(parseNote("x.md", "---\ntitle: From props\n---\n# From heading\n").title).toBe("From props");
    expect(parseNote("x.md", "## Not H1\n# From heading\n").title).toBe("From heading");
    expect(parseNote("Folder/Plain name.md", "no headings").title).toBe("Plain name");
  });

  it("takes an H1 as the title only when it is the note's one H1 and no body text comes before it", () => {
    // SilverBullet and Logseq pages use H1s as sections: the first of several is no title.
    const sections = "---\ntags: adr\n---\n# Context\nWhy.\n\n# Decision\nWhat.\n";
    expect(parseNote("ADR/001 Offline-First PWA.md", sections).title).toBe("001 Offline-First PWA");
    // An H1 further down, after the note's opening prose, heads a section, not the note.
    expect(parseNote("Page.md", "---\ndescription: A document.\n---\nPages are written in Markdown.\n\n# Types of pages\n").title).toBe("Page");
    // Properties, Logseq's `key:: value` lines and blank lines before the H1 leave it the title.
    expect(parseNote("x.md", "---\nsummary: prose\n---\n\n# The title\ntext\n## Part\n").title).toBe("The title");
    expect(parseNote("x.md", "type:: guide\n\n- # The title\n  - text\n").title).toBe("The title");
  });

  it("keeps Dendron-style dotted file names whole", () => {
    expect(parseNote("vault/project.crdt.automerge.md", "text").title).toBe("project.crdt.automerge");
  });
});


describe("the sample vault", () => {
  const notes = listMarkdown(sampleVault).map((file) => parseNote(relative(sampleVault, file), readFileSync(file, "utf8")));
  const names = new Set(notes.map((n) => n.path.replace(/^.*\//, "").replace(/\.md$/, "")));

  it("parses every note without problems, and every wikilink points at a note that exists", () => {
    expect(notes.length).toBeGreaterThanOrEqual(28);
    for (const note of notes) {
      expect(note.problems, note.path).toEqual([]);
      for (const link of note.links) expect(names.has(link), `${note.path} links to missing "${link}"`).toBe(true);
    }
  });

  it("has the Automerge getting-started reading note the web demo deduplicates against", () => {
    const withSource = notes.filter((n) => n.sourceUrls.includes("https://automerge.org/docs/hello/"));
    expect(withSource.map((n) => n.path)).toEqual(["Reading/Automerge - Hello (getting started).md"]);
  });

  it("is the vault the eval sets point into", () => {
    const paths = new Set(notes.map((n) => n.path));
    for (const file of ["evals/search/sample-vault.json", "evals/judge/sample-vault.json"]) {
      const cases = JSON.parse(readFileSync(join(repoRoot, file), "utf8")) as { relevant?: string[] }[];
      for (const c of cases) for (const p of c.relevant ?? []) expect(paths.has(p), `${file}: ${p}`).toBe(true);
    }
  });
});

function listMarkdown(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    const full = join(dir, entry);
    if (statSync(full).isDirectory()) out.push(...listMarkdown(full));
    else if (entry.endsWith(".md")) out.push(full);
  }
  return out;
}

const haveCorpora = existsSync(corpora);
if (!haveCorpora) console.warn(`Skipping corpus tests: ${corpora} is not present.`);

describe.skipIf(!haveCorpora)("parseNote over the shared corpora", () => {
  const files = haveCorpora ? listMarkdown(corpora) : [];

  it("parses every note without throwing, with sections that start at their heading line", () => {
    expect(files.length).toBeGreaterThan(1000);
    let sections = 0;
    for (const file of files) {
      const text = readFileSync(file, "utf8");
      const note = parseNote(relative(corpora, file), text);
      expect(note.sections.length).toBeGreaterThan(0);
      for (const s of note.sections) {
        sections++;
        expect(s.start).toBeLessThanOrEqual(s.end);
        expect(s.end).toBeLessThanOrEqual(text.length);
        if (s.level === 0) continue;
        const body = text.slice(s.start, s.end);
        const firstLine = body.slice(0, body.search(/\r?\n|$/));
        const second = body.slice(firstLine.length).replace(/^\r?\n/, "").split(/\r?\n/, 1)[0];
        const atx = new RegExp(`^(?: {0,3}|- )#{${s.level}}(?:[ \\t]|$)`).test(firstLine);
        const setext = /^ {0,3}(=+|-+)[ \t]*$/.test(second);
        if (!atx && !setext) throw new Error(`${file}: section "${s.heading}" does not start at a heading line: ${JSON.stringify(firstLine)}`);
        expect(text.slice(0, s.start).split("\n").length).toBe(s.line);
      }
    }
    expect(sections).toBeGreaterThan(files.length);
  });

  it("reads every flat frontmatter block exactly as the YAML library does", () => {
    let compared = 0;
    for (const file of files) {
      const text = readFileSync(file, "utf8");
      const location = locateFrontmatter(text, 0);
      if (location.kind !== "closed") continue;
      const yaml = text.slice(location.span.yamlStart, location.span.yamlEnd);
      const fast = readSimpleYaml(yaml);
      if (!fast) continue;
      compared++;
      const slow = readWithLibrary(yaml);
      if (!slow.ok || !isDeepStrictEqual({ ...slow.data }, fast)) throw new Error(`${file}: fast frontmatter reader disagrees with yaml`);
    }
    expect(compared).toBeGreaterThan(500);
  });
});
