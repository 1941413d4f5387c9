import { describe, expect, it } from "vitest";
import { VaultIndex } from "../../../src/index/vault-index";
import { VaultLinks } from "../../../src/index/links/vault-links";
import { resultsAmong } from "../../../src/index/links/results-among";
import { createAnalyzer } from "../../../src/index/tokenize";
import type { NoteStore } from "../../../src/ports";
import { fakeClock } from "../../support/fake-clock";
import { MemoryNoteStore } from "../../support/memory-note-store";

function vault(): MemoryNoteStore {
  return new MemoryNoteStore({
    "Tar.md": "# Tar\n\nArchive files with tar. See [[Compression]] and [gzip](tools/gzip.md).\n",
    "Compression.md": "---\naliases: [Squeezing files]\ntags: [archive]\n---\n# Compression\n\nHow to compress with xz and zstd.\n",
    "tools/gzip.md": "# gzip\n\nThe gzip tool shrinks a single file.\n",
    "Other.md": "# Other\n\nLinks to [[Squeezing files]] by its alias. #archive\n",
  });
}

async function built(store: MemoryNoteStore) {
  const index = new VaultIndex();
  await index.sync(store, null);
  const links = new VaultLinks();
  return { index, links, report: await links.sync(index, store) };
}

describe("VaultLinks keeps the link graph in step with the vault index", () => {
  it("reads every indexed note once, with the parser's own link targets (wikilinks, markdown links, aliases)", async () => {
    const { links, report } = await built(vault());
    expect(report.read).toBe(4);
    expect(links.graph.outlinks("Tar.md")).toEqual(["Compression.md", "tools/gzip.md"]);
    expect(links.graph.backlinks("Compression.md")).toEqual(["Other.md", "Tar.md"]);
    expect([...links.notesTagged("archive")].sort()).toEqual(["Compression.md", "Other.md"]);
  });

  it("takes no link from a Logseq query or example block (what a query looks for is no link the note makes), and the index still finds its words", async () => {
    const overview = [
      "- ## Commands",
      "\t- See [[Feature]] for what they are.",
      "\t  #+BEGIN_QUERY",
      "\t  {:query (property :type [[Command]])",
      "\t   :title \"Documented commands\"}",
      "\t  #+END_QUERY",
      "\t- #+BEGIN_EXAMPLE",
      "\t  - a [[Page]] (level 1)",
      "\t  #+END_EXAMPLE",
      "\t- After the blocks, [[Slash]] is a link again.",
    ].join("\n");
    const store = new MemoryNoteStore({ "Overview.md": overview, "Command.md": "type:: [[Feature]]\n", "Feature.md": "A feature.\n", "Slash.md": "The slash menu.\n", "Page.md": "A page.\n" });
    const { index, links } = await built(store);
    expect(links.graph.outlinks("Overview.md")).toEqual(["Feature.md", "Slash.md"]);
    expect(links.graph.backlinks("Command.md")).toEqual([]);
    expect(links.graph.backlinks("Page.md")).toEqual([]);
    expect((await index.search("documented commands", store, { limit: 3 })).map((r) => r.path)).toContain("Overview.md");
  });

  it("afterwards reads only the notes the index holds a newer version of, and drops the ones it dropped", async () => {
    const store = vault();
    const { index, links } = await built(store);
    store.files.set("Tar.md", { text: "# Tar\n\nNo links any more.\n", mtime: 1_800_000_000_000 });
    store.files.delete("Other.md");
    await index.sync(store, null);
    const again = await links.sync(index, store);
    expect(again).toMatchObject({ read: 1, removed: 1 });
    expect(links.graph.outlinks("Tar.md")).toEqual([]);
    expect(links.graph.backlinks("Compression.md")).toEqual([]);
    expect([...links.notesTagged("archive")]).toEqual(["Compression.md"]);
    expect((await links.sync(index, store)).read).toBe(0);
  });

  it("says how long a catch-up took when the wall clock was set back an hour during it (it said minus an hour)", async () => {
    const store = vault();
    const index = new VaultIndex();
    await index.sync(store, null);
    const clock = fakeClock();
    const slow: NoteStore = {
      ...store,
      list: () => store.list(),
      exists: (path) => store.exists(path),
      create: (path, text) => store.create(path, text),
      read: async (path) => {
        clock.advance(10);
        clock.set(clock.now() - 3_600_000);
        return store.read(path);
      },
    };
    const report = await new VaultLinks(clock).sync(index, slow);
    expect(report).toEqual({ read: 4, removed: 0, ms: 40 });
  });
});

describe("resultsAmong searches only the given notes", () => {
  it("returns the given notes that match, ranked and with sections, and none of the others that match too", async () => {
    const store = vault();
    const { index } = await built(store);
    // "file" is in every note but Compression's body; gzip and Tar match it and are not asked about.
    const found = await resultsAmong(index, store, "compress file", new Set(["Compression.md", "Other.md"]), { analyzer: createAnalyzer({ stemming: true }) });
    expect(found.map((r) => r.path)).toEqual(["Compression.md", "Other.md"]);
    expect(found[0].sections.length).toBeGreaterThan(0);
    expect(found[0].explanation.matchedTerms).toContain("compress");
  });

  it("quotes a note's sections as the search does: code apart from the prose after it, each table row a line", async () => {
    const note = "# Packing\n\nCompress the folder first,\nthen check it:\n\n```\ntar -cJf out.tar.xz dir\n```\nThe compress step is slow.\n\n| Tool | Ratio |\n|---|---|\n| xz | 5.1 |\n| gzip | 3.2 |\n";
    const store = new MemoryNoteStore({ "Packing.md": note, "Other.md": "# Other\n\nNothing.\n" });
    const { index } = await built(store);
    const [found] = await resultsAmong(index, store, "compress ratio", new Set(["Packing.md"]), { analyzer: createAnalyzer({ stemming: true }) });
    const [searched] = await index.search("compress ratio", store, { sectionsPerNote: 2 });
    expect(found.sections.map((s) => s.snippet)).toEqual(searched.sections.map((s) => s.snippet));
    const snippet = found.sections[0].snippet;
    expect(snippet).toContain("Compress the folder first, then check it:\n`tar -cJf out.tar.xz dir`\nThe compress step is slow.\n");
    expect(snippet).toContain("\nxz 5.1\ngzip 3.2");
  });
});

