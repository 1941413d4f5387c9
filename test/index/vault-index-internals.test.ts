// The one place the index reads MiniSearch's internals (how many notes hold a term). If an upgrade
// changes that shape, this fails, instead of searches quietly ranking worse.
import { describe, expect, it } from "vitest";
import { VaultIndex } from "../../src/index/vault-index";

describe("notesWithTerm", () => {
  it("counts the notes holding a term in any field, and forgets removed notes' share", () => {
    const index = new VaultIndex({ stemming: false });
    index.applyText("a.md", "# Garden\n\ncompost and seeds\n", 1, 10);
    index.applyText("b.md", "---\ntitle: Seeds\n---\nseeds again\n", 1, 10);
    index.applyText("c.md", "# Kitchen\n\nknives\n", 1, 10);
    expect(index.notesWithTerm("seeds")).toBe(2);
    expect(index.notesWithTerm("garden")).toBe(1);
    expect(index.notesWithTerm("absent")).toBe(0);
  });

  it("lets rare words lead: a common word alone does not outrank a note with the rare one", async () => {
    const index = new VaultIndex({ stemming: false, ranking: { commonShare: 0.3, commonMinNotes: 2 } });
    for (let i = 0; i < 10; i++) index.applyText(`n${i}.md`, `# Note ${i}\n\nthe project plan ${"project ".repeat(i)}\n`, 1, 10);
    index.applyText("rare.md", "# Zebra\n\nzebra crossing project\n", 1, 10);
    const store = { list: async () => [], read: async () => "", exists: async () => true, create: async () => undefined };
    const [first] = await index.search("zebra project", store);
    expect(first.path).toBe("rare.md");
    expect(first.explanation.matchedTerms.sort()).toEqual(["project", "zebra"]);
  });
});

describe("shown-note parses", () => {
  it("are reused only while the note's text is unchanged", async () => {
    const files = new Map([["a.md", "# Garden\n\ncompost heaps need air\n"]]);
    const store = {
      list: async () => [...files.keys()].map((path) => ({ path, mtime: 1, size: 1 })),
      read: async (p: string) => files.get(p)!,
      exists: async (p: string) => files.has(p),
      create: async () => undefined,
    };
    const index = new VaultIndex({ stemming: false });
    await index.sync(store, null);
    expect((await index.search("compost", store))[0].sections[0].snippet).toContain("need air");
    files.set("a.md", "# Garden\n\ncompost heaps need turning weekly\n");
    expect((await index.search("compost", store))[0].sections[0].snippet).toContain("turning weekly");
  });
});
