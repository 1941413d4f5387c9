// The parse cache of recently shown notes: a parse is reused only for the very same text, and the
// cache stays within its character budget by dropping the least recently shown.
import { describe, expect, it } from "vitest";
import { ShownNotes } from "../../src/index/shown-notes";
import { parseNote } from "../../src/index/markdown";
import { LinkGraph } from "../../src/index/links/link-graph";

const sectionText = (note: string, heading: string) => new ShownNotes().parse("n.md", note).sections.find((s) => s.heading === heading)!.text;

describe("ShownNotes", () => {
  it("reuses a parse while the text is unchanged and parses again when it changed", () => {
    const shown = new ShownNotes();
    const first = shown.parse("a.md", "# Garden\n\ncompost\n");
    expect(shown.parse("a.md", "# Garden\n\ncompost\n")).toBe(first);
    const changed = shown.parse("a.md", "# Garden\n\nseeds\n");
    expect(changed).not.toBe(first);
    expect(changed.sections.map((s) => s.text).join(" ")).toContain("seeds");
  });

  it("drops the least recently shown notes beyond its budget, never the one just shown", () => {
    const shown = new ShownNotes(25);
    shown.parse("a.md", "a".repeat(10));
    shown.parse("b.md", "b".repeat(10));
    shown.parse("a.md", "a".repeat(10)); // shown again: now the newest
    shown.parse("c.md", "c".repeat(10));
    expect(shown.paths()).toEqual(["a.md", "c.md"]);
    shown.parse("huge.md", "h".repeat(100));
    expect(shown.paths()).toEqual(["huge.md"]);
  });

  it("counts a changed note as just shown", () => {
    const shown = new ShownNotes(25);
    shown.parse("a.md", "a".repeat(10));
    shown.parse("b.md", "b".repeat(10));
    shown.parse("a.md", "A".repeat(10));
    shown.parse("c.md", "c".repeat(10));
    expect(shown.paths()).toEqual(["a.md", "c.md"]);
  });

  it("keeps where a shown note's blocks end: a blank line between them, a wrapped paragraph's lines together", () => {
    const note = ["# Relay", "", "## Running it", "The server that forwards", "and stores changes.", "", "1. Accept connections.", "2. Forward messages.", "", "| Question | Automerge |", "|---|---|", "| Data model | JSON |", "> Quoted words.", "Design review."].join("\n");
    expect(sectionText(note, "Running it")).toBe(
      "The server that forwards\nand stores changes.\n\nAccept connections.\n\nForward messages.\n\nQuestion   Automerge\n\nData model   JSON\n\nQuoted words.\nDesign review.",
    );
  });

  it("shows a fenced code block as one code span, apart from the prose around it", () => {
    const note = ["# Relay", "", "## Running it", "```bash", "RELAY_PORT=8787 node dist/relay.js", "echo `date`", "```", "Design review. #sync"].join("\n");
    expect(sectionText(note, "Running it")).toBe("`` RELAY_PORT=8787 node dist/relay.js\necho `date` ``\n\nDesign review. sync");
  });
});

// Where blocks end is the parser's to say (`ParseOptions.blocks`), line by line as it reads them: a
// copy that found each text line again in the note by its letters lost the lines it could not find
// (no letters, or a link's target dropped mid-line) into the block above, and read fences in comments.
describe("ShownNotes: where a shown note's blocks end", () => {
  it("keeps a code block whole when its first and last lines have no letters (a JSON object's braces)", () => {
    const note = ["# Setup", "Set it in the config:", "", "```json", "{", '  "port": 8787', "}", "```", "", "Then restart."].join("\n");
    expect(sectionText(note, "Setup")).toBe('Set it in the config:\n\n`{\n"port": 8787\n}`\n\nThen restart.');
  });

  it("keeps a list item holding a link apart from the paragraph above it", () => {
    const note = ["# Guide", "Read this first.", "", "- see [the guide](https://example.com/guide) here", "- second item"].join("\n");
    expect(sectionText(note, "Guide")).toBe("Read this first.\n\nsee the guide here\n\nsecond item");
  });

  it("reads no fence inside a comment: the prose after the comment stays prose, apart from the prose before it", () => {
    const note = ["# Notes", "Text before.", "<!--", "```sh", "rm -rf build", "``` -->", "After the comment.", "More prose."].join("\n");
    expect(sectionText(note, "Notes")).toBe("Text before.\n\nAfter the comment.\nMore prose.");
  });

  it("shows a code block of 200,000 backtick runs as one code span", () => {
    const note = "# Log\n```\n" + "` tick\n".repeat(200_000) + "```\n";
    const text = sectionText(note, "Log");
    expect(text.startsWith("`` ` tick\n")).toBe(true);
    expect(text.endsWith("` tick ``")).toBe(true);
  });

  it("keeps a table's rows apart, with or without pipes around them", () => {
    const note = ["# Ports", "Name | Value", "--- | ---", "port | 8787", "host | local", "", "After the table."].join("\n");
    expect(sectionText(note, "Ports")).toBe("Name   Value\n\nport   8787\n\nhost   local\n\nAfter the table.");
  });

  it("ends a block at a thematic break, and a heading in a quote is a block of its own", () => {
    expect(sectionText("# Rule\nFirst paragraph.\n***\nSecond paragraph.", "Rule")).toBe("First paragraph.\n\nSecond paragraph.");
    expect(sectionText("# Quote\n> ## Setup\n> Run the installer.", "Quote")).toBe("Setup\n\nRun the installer.");
  });

  it("shows a one-line code block, and a fence shown in indented code, as code", () => {
    expect(sectionText("# Install\n```sh\nnpm install -g foam-cli\n```", "Install")).toBe("`npm install -g foam-cli`");
    const tasks = ["# Query", "All open tasks:", "", "    ```tasks", "    not done", "    due today", "    ```", "", "More."].join("\n");
    expect(sectionText(tasks, "Query")).toBe("All open tasks:\n\n`not done\ndue today`\n\nMore.");
  });

  it("keeps properties one block, and a body line shaped like one in its paragraph", () => {
    const note = ["---", "director: Ridley Scott", "year: 1982", "---", "Warning: spoilers ahead;", "the ending is discussed."].join("\n");
    expect(new ShownNotes().parse("n.md", note).sections[0].text).toBe("director: Ridley Scott;\nyear: 1982;\n\nWarning: spoilers ahead;\nthe ending is discussed.");
  });
});

// What Obsidian's reading view shows is what a card, the CLI and the evidence brief quote: a comment,
// an image, Logseq's folding state are nothing the note says, and a callout's title ends where it ends.
describe("ShownNotes: only what reading view shows", () => {
  it("shows no comment, inline or a block of either kind, and the index still finds its words", () => {
    const note = ["# Garden", "Water twice a week. %%private: the neighbour steals tomatoes%% Mulch in May.", "", "%%", "a draft about #compost", "%%", "", "<!--", "an old plan", "-->", "Harvest in August."].join("\n");
    expect(sectionText(note, "Garden")).toBe("Water twice a week.  Mulch in May.\n\nHarvest in August.");
    const shown = new ShownNotes().parse("n.md", note);
    expect(shown.tags).toEqual(["compost"]);
    const indexed = parseNote("n.md", note).sections[0].text;
    expect(indexed).toContain("neighbour steals tomatoes");
    expect(indexed).toContain("a draft about compost");
    expect(indexed).toContain("an old plan");
  });

  it("gives Logseq's `key:: value` lines as frontmatter's properties are shown, in a block of their own, without the outliner's state", () => {
    const note = ["type:: [[Feature]]", "platforms:: [[All Platforms]]", "alias:: term/embedded page", "collapsed:: true", "", "- Page embed", "  id:: 64a1f0c2-0000-4000-8000-000000000000", "  description:: term/embedded page embed", "\t- Allows an entire page to be embedded."].join("\n");
    expect(new ShownNotes().parse("n.md", note).sections[0].text).toBe(
      "type: Feature;\nplatforms: All Platforms;\n\nPage embed\n\ndescription: term/embedded page embed;\n\nAllows an entire page to be embedded.",
    );
    expect(parseNote("n.md", note).sections[0].text).toBe("Feature\nAll Platforms\nterm/embedded page\ntrue\nPage embed\n64a1f0c2-0000-4000-8000-000000000000\nterm/embedded page embed\nAllows an entire page to be embedded.");
  });

  it("shows an HTML entity as the character Obsidian shows (a promoted page's escaped \"<\"), and code as written", () => {
    const note = ["# Relay", "Migrate to a client &lt;-> server design, Tom &amp; Jerry &#8212; see `&lt;div&gt;` and &bogus;."].join("\n");
    expect(sectionText(note, "Relay")).toBe("Migrate to a client <-> server design, Tom & Jerry — see `&lt;div&gt;` and &bogus;.");
    expect(parseNote("n.md", note).sections[0].text).toBe("Migrate to a client &lt;-> server design, Tom &amp; Jerry &#8212; see `&lt;div&gt;` and &bogus;.");
  });

  it("shows a callout's title as a block of its own, not the start of the sentence under it", () => {
    const note = ["# Kettle", "> [!warning] Never mix vinegar with bleach", "> Descale the kettle with citric acid."].join("\n");
    expect(sectionText(note, "Kettle")).toBe("Never mix vinegar with bleach\n\nDescale the kettle with citric acid.");
  });

  it("shows no image or embed, and keeps their links and their words for the index", () => {
    const note = ["# Swarms", "![A flock of starlings forming a swarm](swarm-diagram.png) The swarm diagram shows the flock.", "![[x.png]]", "![[Murmuration]]", "[![build](badge.svg)](https://ci.example.com) Builds nightly."].join("\n");
    const shown = new ShownNotes().parse("n.md", note);
    // The image and the embed stand between the two lines: an empty block (block-text.ts).
    expect(shown.sections[0].text).toBe("The swarm diagram shows the flock.\n\n\n\nBuilds nightly.");
    const indexed = parseNote("n.md", note);
    expect(shown.links).toEqual(indexed.links);
    expect(indexed.sections[0].text).toBe("A flock of starlings forming a swarm The swarm diagram shows the flock.\nx.png\nMurmuration\nbuild Builds nightly.");
  });

  it("leaves an empty block where a block shows only an image, so a lead-in is not read as hanging on the block after its object", () => {
    const note = [
      "- ## Page embeds",
      "\t- Now, you get the following shortcode:",
      "\t\t- ![page-embed-shortcode.png](../assets/page-embed-shortcode.png)",
      "\t- Inside the `[[double brackets]]`, type the name of the page you wish to embed.",
      "\t- See this:",
      "\t  ![[diagram.png]]",
      "\t  {{embed [[Parent A]]}}",
      "\t- Page embeds show the page name on top.",
    ].join("\n");
    expect(sectionText(note, "Page embeds")).toBe(
      "Now, you get the following shortcode:\n\n\n\nInside the `[[double brackets]]`, type the name of the page you wish to embed.\n\nSee this:\n\n\n\nPage embeds show the page name on top.",
    );
    expect(parseNote("n.md", note).sections[0].text).not.toContain("\n\n");
  });

  it("shows none of Logseq's settings of a block (`logseq.order-list-type:: number`), which the index reads as written", () => {
    const note = ["- To create a card:", "\t- You can add `#card` to any block to make it a card.", "\t  logseq.order-list-type:: number", "\t- Right click the bullet.", "\t  logseq.order-list-type:: number"].join("\n");
    expect(new ShownNotes().parse("n.md", note).sections[0].text).toBe("To create a card:\n\nYou can add `#card` to any block to make it a card.\n\nRight click the bullet.");
    expect(parseNote("n.md", note).sections[0].text).toContain("make it a card.\nlogseq.order-list-type:: number");
  });

  it("shows Logseq's source, query and example blocks as code, and a note or tip block as a block of its text", () => {
    const note = [
      "- Add your date format to config.edn:",
      "  #+BEGIN_SRC clojure",
      "  :journal/page-title-format \"yyyy-MM-dd\"",
      "  - not an item",
      "  #+END_SRC",
      "- #+BEGIN_NOTE",
      "  This only works on the desktop app.",
      "  #+END_NOTE",
      "- All tasks",
      "  #+BEGIN_QUERY",
      "  {:title \"All tasks\" :query [:find (pull ?b [*]) :where [?b :block/marker _]]}",
      "  #+END_QUERY",
      "- Written #+BEGIN_SRC in prose stays prose.",
    ].join("\n");
    expect(new ShownNotes().parse("n.md", note).sections[0].text).toBe(
      [
        "Add your date format to config.edn:",
        '`:journal/page-title-format "yyyy-MM-dd"\n- not an item`',
        "This only works on the desktop app.",
        "All tasks",
        '`{:title "All tasks" :query [:find (pull ?b [*]) :where [?b :block/marker _]]}`',
        "Written #+BEGIN_SRC in prose stays prose.",
      ].join("\n\n"),
    );
    // The index reads the markers' words as written: they are searchable on purpose.
    const indexed = parseNote("n.md", note).sections[0].text;
    expect(indexed).toContain("#+BEGIN_SRC clojure");
    expect(indexed).toContain("#+END_NOTE");
  });

  it("reads a `#+BEGIN_SRC` no line closes as prose, and closes one in a quote at its closing line", () => {
    const note = ["- Open with #+BEGIN_SRC", "  #+BEGIN_SRC", "  Then the text goes on."].join("\n");
    expect(new ShownNotes().parse("n.md", note).sections[0].text).toBe("Open with #+BEGIN_SRC\n#+BEGIN_SRC\nThen the text goes on.");
    const quoted = ["> #+BEGIN_SRC sh", "> make relay", "> #+END_SRC", "", "The relay runs."].join("\n");
    expect(new ShownNotes().parse("n.md", quoted).sections[0].text).toBe("`make relay`\n\nThe relay runs.");
  });

  it("shows no `{{embed …}}`, `{{query …}}` or `{{renderer …}}` macro, keeps their links, and shows other macros as written", () => {
    const note = ["# Embeds", "Before {{embed [[Parent A]]}} after {{{embed ((5fbf4fbf-82c5-4d81-ba82-b66726bda00c)) }}} end.", "{{query (and [[tag1]] (task TODO))}}", "{{renderer :todomaton}} {{cloze hidden answer}} and `{{query x}}`."].join("\n");
    const shown = new ShownNotes().parse("n.md", note);
    // The query's line shows its results, none of the note's words: an empty block.
    expect(shown.sections[0].text).toBe("Before  after  end.\n\n\n\n{{cloze hidden answer}} and `{{query x}}`.");
    const indexed = parseNote("n.md", note);
    expect(shown.links).toEqual(indexed.links);
    expect(indexed.sections[0].text).toContain("{{embed Parent A}}");
  });

  it("shows a wiki-link's text as reading view does: folders as written, a heading after \" > \"; the index's words stay", () => {
    const note = ["# Links", "See [[term/page]], [[API/index#index.indexObjects(…)]], [[#Usage]], [[Guide.md#Setup#Sync]], [[Guide#^b15695]] and [[term/page|the page]]."].join("\n");
    expect(sectionText(note, "Links")).toBe("See term/page, API/index > index.indexObjects(…), Usage, Guide.md > Setup > Sync, Guide > ^b15695 and the page.");
    expect(parseNote("n.md", note).sections[0].text).toBe("See page, index index.indexObjects(…), Usage, Guide Setup Sync, Guide and the page.");
  });

  it("shows Logseq's hiccup as Logseq renders it: its words, a code element as code, one that shows an object as an empty block; the index reads it as written", () => {
    const note = [
      "- Watch the video by [:a {:href \"https://twitter.com/EdTravelling\" :target \"_blank\"} \"@EdTravelling\"], which shows the install.",
      "\t  [:div.videoWrapper.mb-4",
      "\t        [:iframe",
      "\t         {:allow",
      "\t          \"accelerometer; autoplay; encrypted-media\"",
      "\t        :src \"https://www.youtube.com/embed/Vw-x7yTTO0s\"}]]",
      "- Example:",
      "\t- [:h2 {:style {:color \"red\"}} \"h2 title\"]",
      "\t  [:p \"Hello \" [:em \"World!\"]]",
      "- [:code \"template-including-parent:: false\"] is a template property.",
    ].join("\n");
    expect(new ShownNotes().parse("n.md", note).sections[0].text).toBe(
      [
        "Watch the video by @EdTravelling, which shows the install.",
        "",
        "Example:",
        "h2 title\nHello World!",
        "`template-including-parent:: false` is a template property.",
      ].join("\n\n"),
    );
    const indexed = parseNote("n.md", note).sections[0].text;
    expect(indexed).toContain("[:iframe");
    expect(indexed).toContain('[:p "Hello " [:em "World!"]]');
  });

  it("shows SilverBullet's `${…}` expressions as code, as written (no `[[` read as a link, no `==` as a highlight); the index still reads their words", () => {
    const note = [
      "Records are listed below. See [[Health]] for reviews.",
      "${query[[",
      "  from p = index.pages(\"adr\")",
      "  where p.status == \"superseded\"",
      "  select { ADR = \"[[\" .. p.name .. \"]]\", Count = #group }",
      "]]}",
      "Run the ${widgets.commandButton(\"System: Reload\")} command, or ${query[[from index.tags()]]} inline.",
    ].join("\n");
    expect(new ShownNotes().parse("n.md", note).sections[0].text).toBe(
      [
        "Records are listed below. See Health for reviews.",
        '`${query[[\nfrom p = index.pages("adr")\nwhere p.status == "superseded"\nselect { ADR = "[[" .. p.name .. "]]", Count = #group }\n]]}`',
        'Run the `${widgets.commandButton("System: Reload")}` command, or `${query[[from index.tags()]]}` inline.',
      ].join("\n\n"),
    );
    expect(parseNote("n.md", note).sections[0].text).toContain('from p = index.pages("adr")');
    // Inline math is no expression.
    expect(sectionText("# Math\nPick ${n \\choose k}$ of them.", "Math")).toBe("Pick ${n \\choose k}$ of them.");
  });

  it("shows a wiki-link's `.md` as the writer typed it, as reading view does, and the link still goes to the note", () => {
    const note = ["# Links", "Read [[Some Note.md]], [[folder/Note.md|the folder's note]] and [[Note.md#Heading]]."].join("\n");
    expect(sectionText(note, "Links")).toBe("Read Some Note.md, the folder's note and Note.md > Heading.");
    const shown = new ShownNotes().parse("n.md", note);
    expect(shown.links).toEqual(["Some Note.md", "folder/Note.md", "Note.md"]);
    const graph = new LinkGraph();
    for (const path of ["Some Note.md", "folder/Note.md"]) graph.setNote({ path, links: [], names: [] });
    graph.setNote({ path: "n.md", links: shown.links, names: [] });
    expect(graph.outlinks("n.md")).toEqual(["Some Note.md", "folder/Note.md"]);
    // The index reads the note's name, not the file's extension.
    expect(parseNote("n.md", note).sections[0].text).toBe("Read Some Note, the folder's note and Note Heading.");
  });
});
