import { describe, expect, it } from "vitest";
import { DeadlineMissed } from "../../../src/deadline";
import { VaultIndex } from "../../../src/index/vault-index";
import { VaultLinks } from "../../../src/index/links/vault-links";
import { resultsAmong } from "../../../src/index/links/results-among";
import { createAnalyzer } from "../../../src/index/tokenize";
import type { NoteStore } from "../../../src/ports";
import { ControlledStore, renameFolder } from "../../support/controlled-note-store";
import { fakeClock, FAKE_NOW } from "../../support/fake-clock";
import { MemoryNoteStore } from "../../support/memory-note-store";

function vault(): MemoryNoteStore {
  return new MemoryNoteStore({
    "Tar.md": "# Tar\n\nArchive files with tar. See [[Compression]] and [gzip](tools/gzip.md).\n",
    "Compression.md": "---\naliases: [Squeezing files]\ntags: [archive]\n---\n# Compression\n\nHow to compress with xz and zstd.\n",
    "tools/gzip.md": "# gzip\n\nThe gzip tool shrinks a single file.\n",
    "Other.md": "# Other\n\nLinks to [[Squeezing files]] by its alias. #archive\n",
  });
}

async function built(store: NoteStore) {
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
    expect(report).toEqual({ read: 4, moved: 0, removed: 0, ms: 40 });
  });
});

/** Well before the fake clock's now: the index holds these notes proven by their date and size, so it moves them unread. */
const WRITTEN = FAKE_NOW - 60_000;

/**
 * A folder of 20 notes linking by name, by relative and absolute path, with titles, aliases and tags,
 * and notes outside it that link into it by name and by path (a path that breaks, one that comes to
 * exist, a name another note shares).
 */
function folderVault(): ControlledStore {
  const store = new ControlledStore();
  const notes: Record<string, string> = {
    "Projects/Plan.md": "---\naliases: [Roadmap]\ntags: [planning]\n---\n# The plan\n\nSee [[Budget]], [the glossary](../Shared/Glossary.md), [again](Shared/Glossary.md), [the budget](./Budget.md) and [[Nowhere]].\n",
    "Projects/Budget.md": "# Budget\n\nFor [[Plan]] and [[Roadmap]]; the old [[Projects/Plan]].\n",
    "Projects/Notes/Meeting.md": "Up to [the plan](../Plan.md) and [[Glossary]]. #meeting\n",
    "Shared/Glossary.md": "# Glossary\n\nTerms of [[The plan]].\n",
    "Elsewhere/Budget.md": "# Budget\n\nThe household one.\n",
    "Home.md": "[[Plan]], [[Budget]], [by path](Projects/Budget.md), [not yet](Archive/2024/Plan.md), [[Notes/Meeting]], [[Roadmap]].\n",
  };
  for (let i = 0; i < 16; i++) notes[`Projects/Log ${i}.md`] = `Day ${i}, see [[Log ${(i + 1) % 16}]] and [up](../Home.md).\n`;
  for (const [path, text] of Object.entries(notes)) store.write(path, text, WRITTEN);
  return store;
}


/** Everything the graph answers about the indexed notes: each note's outgoing links, backlinks, links to nothing, and the tags' notes. */
function graphOf(links: VaultLinks, index: VaultIndex) {
  const paths = index.paths().sort();
  const tags = [...new Set(paths.flatMap((p) => index.note(p)!.tags))].sort();
  return {
    notes: paths.map((path) => ({ path, out: links.graph.outlinks(path), back: links.graph.backlinks(path), unresolved: links.graph.unresolved(path) })),
    tagged: tags.map((tag) => [tag, [...links.notesTagged(tag)].sort()]),
  };
}

describe("VaultLinks after a folder is renamed", () => {
  it("moves the folder's notes unread and holds what a fresh build holds: relative links from the new folder, paths broken or fixed, names shared", async () => {
    const store = folderVault();
    const index = new VaultIndex({ clock: fakeClock() });
    await index.sync(store, null);
    const links = new VaultLinks();
    expect((await links.sync(index, store)).read).toBe(22);
    await index.renameFiles(store, renameFolder(store, "Projects", "Archive/2024"));

    store.reads.length = 0;
    const report = await links.sync(index, store);
    expect(store.reads).toEqual([]);
    expect(report).toMatchObject({ read: 0, moved: 19, removed: 0 });

    const fresh = new VaultLinks();
    await fresh.sync(index, store);
    expect(graphOf(links, index)).toEqual(graphOf(fresh, index));
    // What changed, as a fresh build sees it too: a relative link now points into the renamed folder, a path link broke,
    // one written ahead of the rename now resolves, and [[Budget]] from the root is now the shorter path's.
    expect(links.graph.unresolved("Archive/2024/Plan.md")).toEqual(["../Shared/Glossary.md", "Nowhere"]);
    expect(links.graph.outlinks("Home.md")).toEqual(["Archive/2024/Plan.md", "Elsewhere/Budget.md", "Archive/2024/Notes/Meeting.md"]);
    expect(links.graph.unresolved("Home.md")).toEqual(["Projects/Budget.md"]);
    expect(links.graph.backlinks("Shared/Glossary.md")).toEqual(["Archive/2024/Notes/Meeting.md", "Archive/2024/Plan.md"]);
    expect([...links.notesTagged("planning")]).toEqual(["Archive/2024/Plan.md"]);
  });

  it("reads a moved note edited since, and notes it cannot tell apart (same file name, date and size)", async () => {
    const store = folderVault();
    store.write("Projects/Twin/Note.md", "Twin one, [[Plan]].\n", WRITTEN);
    store.write("Projects/Other/Note.md", "Twin two, [[Log 1]]\n", WRITTEN);
    const index = new VaultIndex({ clock: fakeClock() });
    await index.sync(store, null);
    const links = new VaultLinks();
    await links.sync(index, store);
    await index.renameFiles(store, renameFolder(store, "Projects", "Archive"));
    store.write("Archive/Budget.md", "# Budget\n\nNow for [[Glossary]] only.\n", WRITTEN + 1_000);
    await index.sync(store, null);

    store.reads.length = 0;
    const report = await links.sync(index, store);
    expect(store.reads.sort()).toEqual(["Archive/Budget.md", "Archive/Other/Note.md", "Archive/Twin/Note.md"]);
    expect(report).toMatchObject({ read: 3, moved: 18, removed: 3 });
    const fresh = new VaultLinks();
    await fresh.sync(index, store);
    expect(graphOf(links, index)).toEqual(graphOf(fresh, index));
  });
});

/** 300 short notes, each linking to the next. */
function longVault(): ControlledStore {
  const store = new ControlledStore();
  for (let i = 0; i < 300; i++) store.write(`Note ${i}.md`, `Number ${i}, then [[Note ${i + 1}]].\n`, WRITTEN);
  return store;
}

/** One turn of the event loop: what was let through has run. */
const turn = () => new Promise((resolve) => setTimeout(resolve, 0));

/** Lets every read the store holds through, and any started after them, until none is left waiting. */
async function releaseReads(store: ControlledStore): Promise<void> {
  store.holdReads = false;
  while (store.held.length > 0) {
    for (const read of store.held.splice(0)) read.release();
    await turn();
  }
  await turn();
}

describe("VaultLinks stopped by the caller's signal", () => {
  it("stops waiting at once while the first reads hang, reads no batch after the one under way, and the next call goes on from there", async () => {
    const store = longVault();
    const index = new VaultIndex({ clock: fakeClock() });
    await index.sync(store, null);
    const links = new VaultLinks();
    store.reads.length = 0;
    store.holdReads = true;
    const controller = new AbortController();
    const waiting = links.sync(index, store, controller.signal);
    await turn();
    expect(store.held.length).toBeGreaterThan(0);
    controller.abort();
    // Rejected with no read released: the caller does not wait for the store.
    await expect(waiting).rejects.toBeInstanceOf(DeadlineMissed);
    await releaseReads(store);
    expect(store.reads).toHaveLength(250);
    expect(await links.sync(index, store)).toMatchObject({ read: 50, moved: 0, removed: 0 });
    expect(links.graph.size).toBe(300);
  });

  it("reads on to the end for a caller still waiting when another stops, and refuses a signal already stopped", async () => {
    const store = longVault();
    const index = new VaultIndex({ clock: fakeClock() });
    await index.sync(store, null);
    const links = new VaultLinks();
    store.reads.length = 0;
    const stopped = new AbortController();
    stopped.abort();
    await expect(links.sync(index, store, stopped.signal)).rejects.toBeInstanceOf(DeadlineMissed);
    expect(store.reads).toEqual([]);
    store.holdReads = true;
    const controller = new AbortController();
    const leaving = links.sync(index, store, controller.signal);
    const staying = links.sync(index, store);
    controller.abort();
    await expect(leaving).rejects.toBeInstanceOf(DeadlineMissed);
    await releaseReads(store);
    expect(await staying).toMatchObject({ read: 300 });
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

  it("stops waiting for the notes' reads when the run's signal aborts", async () => {
    const store = new ControlledStore();
    store.write("Tar.md", "# Tar\n\nArchive files with tar.\n", WRITTEN);
    const { index } = await built(store);
    store.holdReads = true;
    const controller = new AbortController();
    const found = resultsAmong(index, store, "archive", new Set(["Tar.md"]), { analyzer: createAnalyzer({ stemming: true }), signal: controller.signal });
    await turn();
    expect(store.held.map((h) => h.path)).toEqual(["Tar.md"]);
    controller.abort();
    await expect(found).rejects.toBeInstanceOf(DeadlineMissed);
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

