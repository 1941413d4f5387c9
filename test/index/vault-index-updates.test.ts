// Keeping the index current file by file, against an in-memory vault whose reads a test can fail
// or hold and release by hand: modify, create, delete, rename, overlapping updates of one path,
// source URLs, status and change notifications.
import { beforeEach, describe, expect, it } from "vitest";
import { parseQuery } from "../../src/index/query";
import { VaultIndex } from "../../src/index/vault-index";
import { ControlledStore } from "../support/controlled-note-store";
import { MemoryIndexCache } from "../support/memory-index-cache";
import { fakeClock, FAKE_NOW, type FakeClock } from "../support/fake-clock";

/** Lets pending promise continuations run (the store's calls are all already-resolved promises). */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

let store: ControlledStore;
let clock: FakeClock;
let index: VaultIndex;

async function found(query: string): Promise<string[]> {
  store.holdReads = false;
  return (await index.search(query, store)).map((r) => r.path);
}

beforeEach(async () => {
  store = new ControlledStore();
  store.write("Plan.md", "# Plan\n\nThe first draft mentions marmalade.\n");
  store.write("Ideas.md", "# Ideas\n\nA note about lighthouses.\n");
  clock = fakeClock();
  index = new VaultIndex({ clock });
  await index.sync(store, null);
});

describe("updateFile", () => {
  it("re-indexes a modified note: the new word is found, the old one is not", async () => {
    store.write("Plan.md", "# Plan\n\nThe second draft mentions quince.\n", FAKE_NOW + 10);
    await index.updateFile(store, "Plan.md");
    expect(await found("quince")).toEqual(["Plan.md"]);
    expect(await found("marmalade")).toEqual([]);
    expect(index.note("Plan.md")?.mtime).toBe(FAKE_NOW + 10);
  });

  it("adds a created note", async () => {
    store.write("New/Harbour.md", "# Harbour\n\nBoats and cranes.\n");
    await index.updateFile(store, "New/Harbour.md");
    expect(await found("cranes")).toEqual(["New/Harbour.md"]);
    expect(index.status().notes).toBe(3);
  });

  it("drops a note whose file no longer exists", async () => {
    store.files.delete("Ideas.md");
    await index.updateFile(store, "Ideas.md");
    expect(index.paths()).not.toContain("Ideas.md");
    expect(await found("lighthouses")).toEqual([]);
  });

  it("moves a renamed note to its new path", async () => {
    const text = store.files.get("Ideas.md")!.text;
    store.files.delete("Ideas.md");
    store.write("Archive/Ideas.md", text);
    await index.renameFile(store, "Ideas.md", "Archive/Ideas.md");
    expect(index.paths().sort()).toEqual(["Archive/Ideas.md", "Plan.md"]);
    expect(await found("lighthouses")).toEqual(["Archive/Ideas.md"]);
  });

  it("drops the old name of a note renamed in case only, with a store that has no `stat` and a disk that ignores case", async () => {
    // As APFS and NTFS answer: the old name still "exists" and reads the note; only the listing holds the name as it is now.
    const folded = (p: string) => [...store.files.keys()].find((k) => k.toLowerCase() === p.toLowerCase()) ?? p;
    const noStat = { list: () => store.list(), read: (p: string) => store.read(folded(p)), exists: async (p: string) => store.files.has(folded(p)), create: (p: string, t: string) => store.create(p, t) };
    const text = store.files.get("Ideas.md")!.text;
    store.files.delete("Ideas.md");
    store.write("ideas.md", text);
    await index.updateFile(noStat, "Ideas.md");
    await index.updateFile(noStat, "ideas.md");
    expect(index.paths().sort()).toEqual(["Plan.md", "ideas.md"]);
  });

  it("drops a note moved into an excluded folder and never reads notes created there", async () => {
    const local = new VaultIndex({ clock, excludedFolders: ["Research/Traces"] });
    await local.sync(store, null);
    const text = store.files.get("Ideas.md")!.text;
    store.files.delete("Ideas.md");
    store.write("Research/Traces/Ideas.md", text);
    await local.renameFile(store, "Ideas.md", "Research/Traces/Ideas.md");
    store.write("Research/Traces/Run.md", "# Run\n");
    const readsBefore = store.reads.length;
    await local.updateFile(store, "Research/Traces/Run.md");
    expect(store.reads.length).toBe(readsBefore);
    expect(local.paths()).toEqual(["Plan.md"]);
  });

  it("ignores files that are not markdown", async () => {
    store.write("picture.png", "binary");
    await index.updateFile(store, "picture.png");
    expect(index.paths()).not.toContain("picture.png");
    expect(store.reads).not.toContain("picture.png");
  });

  it("keeps the newer text when an older, slower read of the same note resolves last", async () => {
    store.holdReads = true;
    const older = index.updateFile(store, "Plan.md");
    await settle();
    store.write("Plan.md", "# Plan\n\nThe newest draft mentions quince.\n", FAKE_NOW + 20);
    const newer = index.updateFile(store, "Plan.md");
    await settle();
    expect(store.held.map((h) => h.path)).toEqual(["Plan.md", "Plan.md"]);
    store.held[1].release();
    await newer;
    store.held[0].release();
    await older;
    expect(await found("quince")).toEqual(["Plan.md"]);
    expect(await found("marmalade")).toEqual([]);
  });

  it("does not take the date of a change made during the read for the text read before it", async () => {
    // The text read is the older one; were the newer date stored with it, the next start's
    // comparison (path, date, size) would find the note unchanged and keep the old text for good.
    store.holdReads = true;
    const update = index.updateFile(store, "Plan.md");
    await settle();
    store.write("Plan.md", "# Plan\n\nThe next draft mentions quince.\n", FAKE_NOW + 30);
    store.held[0].release();
    await update;
    const cache = new MemoryIndexCache();
    await index.save(cache);
    store.holdReads = false;
    const next = new VaultIndex({ clock });
    expect(await next.sync(store, cache)).toMatchObject({ mode: "cache", updated: 1 });
    expect((await next.search("quince", store)).map((r) => r.path)).toEqual(["Plan.md"]);
  });

  it("does not bring back a note deleted while its read was still running", async () => {
    store.holdReads = true;
    const update = index.updateFile(store, "Ideas.md");
    await settle();
    store.files.delete("Ideas.md");
    index.removeFile("Ideas.md");
    store.held[0].release();
    await update;
    expect(index.paths()).not.toContain("Ideas.md");
  });

  it("records a note it cannot read as a problem and drops its old version", async () => {
    store.failing.add("Ideas.md");
    await index.updateFile(store, "Ideas.md");
    expect(index.paths()).not.toContain("Ideas.md");
    expect(index.status().problems).toEqual([{ path: "Ideas.md", problem: { kind: "read", message: "EACCES: permission denied, open 'Ideas.md'" } }]);
    store.failing.delete("Ideas.md");
    await index.updateFile(store, "Ideas.md");
    expect(index.status().problems).toEqual([]);
    expect(await found("lighthouses")).toEqual(["Ideas.md"]);
  });
});

describe("sync racing single-file updates", () => {
  it("does not let a start-up sync's slow read undo a newer change to the same note", async () => {
    const fresh = new VaultIndex({ clock });
    store.holdReads = true;
    const syncing = fresh.sync(store, null);
    await settle();
    expect(store.held.map((h) => h.path).sort()).toEqual(["Ideas.md", "Plan.md"]);
    store.write("Plan.md", "# Plan\n\nEdited during start-up: quince.\n", FAKE_NOW + 40);
    fresh.applyText("Plan.md", "# Plan\n\nEdited during start-up: quince.\n", FAKE_NOW + 40, 38);
    for (const h of store.held) h.release();
    await syncing;
    store.holdReads = false;
    expect((await fresh.search("quince", store)).map((r) => r.path)).toEqual(["Plan.md"]);
    expect((await fresh.search("marmalade", store)).map((r) => r.path)).toEqual([]);
    expect(fresh.note("Plan.md")?.mtime).toBe(FAKE_NOW + 40);
  });

  it("does not read, nor name as unreadable, a note renamed after the sync planned to read it", async () => {
    const many = new ControlledStore();
    for (let n = 0; n < 300; n++) many.write(`n${String(n).padStart(4, "0")}.md`, `# Note ${n}\n\nAbout otters.\n`);
    let renamed = false;
    const fresh: VaultIndex = new VaultIndex({
      clock,
      // Between two batches of reads, the last note is renamed and the events are applied.
      yieldToUi: async () => {
        if (renamed || many.reads.length === 0) return;
        renamed = true;
        const { text } = many.files.get("n0299.md")!;
        many.files.delete("n0299.md");
        many.write("Moved.md", text);
        await fresh.renameFile(many, "n0299.md", "Moved.md");
      },
    });
    await fresh.sync(many, null);
    expect(renamed).toBe(true);
    expect(many.reads).not.toContain("n0299.md");
    expect(fresh.status().problems).toEqual([]);
    expect(fresh.paths()).toContain("Moved.md");
    expect(fresh.paths()).not.toContain("n0299.md");
  });

  it("does not name as unreadable a note deleted between the listing and its read (no event tells the CLI), and counts it gone", async () => {
    const fresh = new VaultIndex({ clock });
    // Built from nothing: Ideas.md is listed, then deleted before it is read.
    const listed = await store.list();
    store.files.delete("Ideas.md");
    expect(await fresh.sync(store, null, listed)).toMatchObject({ added: 1, removed: 0 });
    expect(fresh.status().problems).toEqual([]);
    // From the cache: a known note edited, listed, then deleted is counted removed, not changed.
    const cache = new MemoryIndexCache();
    store.write("Ideas.md", "# Ideas\n\nBack again.\n", FAKE_NOW + 9);
    const warm = new VaultIndex({ clock });
    await warm.sync(store, cache);
    await warm.save(cache);
    store.write("Ideas.md", "# Ideas\n\nEdited, then deleted.\n", FAKE_NOW + 20);
    const listedNow = await store.list();
    store.files.delete("Ideas.md");
    const next = new VaultIndex({ clock });
    expect(await next.sync(store, cache, listedNow)).toMatchObject({ added: 0, updated: 0, removed: 1 });
    expect(next.status().problems).toEqual([]);
    expect(next.paths()).toEqual(["Plan.md"]);
  });

  it("still names a note that is there but cannot be read", async () => {
    store.failing.add("Ideas.md");
    store.write("Ideas.md", "# Ideas\n\nLocked now.\n", FAKE_NOW + 5);
    await index.sync(store, null);
    expect(index.status().problems.map((p) => p.path)).toEqual(["Ideas.md"]);
  });

  it("says so when the vault cannot be listed, and is not left building", async () => {
    const fresh = new VaultIndex({ clock });
    store.list = async () => {
      throw new Error("vault went away");
    };
    await expect(fresh.sync(store, null)).rejects.toThrow("vault went away");
    expect(fresh.status().state).not.toBe("building");
  });
});

describe("applyText", () => {
  it("indexes text it is handed without reading the store", async () => {
    const readsBefore = store.reads.length;
    index.applyText("Inbox/Quick.md", "# Quick\n\nZebra crossings.\n", FAKE_NOW + 5, 27);
    expect(store.reads.length).toBe(readsBefore);
    expect(index.note("Inbox/Quick.md")).toMatchObject({ mtime: FAKE_NOW + 5, size: 27, title: "Quick" });
    store.write("Inbox/Quick.md", "# Quick\n\nZebra crossings.\n");
    expect(await found("zebra")).toEqual(["Inbox/Quick.md"]);
  });

  it("makes an in-flight read of the same note stale", async () => {
    store.holdReads = true;
    const update = index.updateFile(store, "Plan.md");
    await settle();
    index.applyText("Plan.md", "# Plan\n\nHanded over: quince.\n", FAKE_NOW + 30, 30);
    store.held[0].release();
    await update;
    store.write("Plan.md", "# Plan\n\nHanded over: quince.\n", FAKE_NOW + 30);
    expect(await found("quince")).toEqual(["Plan.md"]);
    expect(await found("marmalade")).toEqual([]);
  });
});

describe("notes by source URL", () => {
  const canonicalizeUrl = (url: string) => {
    const u = new URL(url.trim());
    return `${u.hostname.toLowerCase()}${u.pathname.replace(/\/$/, "")}`;
  };

  it("finds notes by the canonical form of their source property and follows changes", async () => {
    const local = new VaultIndex({ clock, canonicalizeUrl });
    store.write("Clip.md", "---\nsource: https://Example.com/article/?utm_source=x\n---\n# Clip\n");
    await local.sync(store, null);
    expect(local.notesWithSourceUrl("example.com/article")).toEqual(["Clip.md"]);

    store.write("Clip.md", "---\nurl: https://example.org/other\n---\n# Clip\n");
    await local.updateFile(store, "Clip.md");
    expect(local.notesWithSourceUrl("example.com/article")).toEqual([]);
    expect(local.notesWithSourceUrl("example.org/other")).toEqual(["Clip.md"]);

    local.removeFile("Clip.md");
    expect(local.notesWithSourceUrl("example.org/other")).toEqual([]);
  });
});

describe("status and notifications", () => {
  it("counts notes and says when it last changed", async () => {
    const fresh = new VaultIndex({ clock });
    expect(fresh.status()).toMatchObject({ notes: 0, state: "empty", lastUpdated: null });
    await fresh.sync(store, null);
    expect(fresh.status()).toMatchObject({ notes: 2, state: "ready", lastUpdated: FAKE_NOW });
    clock.advance(5000);
    store.write("Third.md", "# Third\n");
    await fresh.updateFile(store, "Third.md");
    expect(fresh.status()).toMatchObject({ notes: 3, lastUpdated: FAKE_NOW + 5000 });
  });

  it("lists a note with broken frontmatter as indexed with a problem, and an unreadable file", async () => {
    store.write("Broken.md", "---\ntitle: Broken\nthis frontmatter never closes\n\nStill searchable walrus.\n");
    store.write("Locked.md", "# Locked\n");
    store.failing.add("Locked.md");
    const fresh = new VaultIndex({ clock });
    const report = await fresh.sync(store, null);
    const problems = fresh.status().problems;
    expect(problems.map((p) => [p.path, p.problem.kind]).sort()).toEqual([
      ["Broken.md", "frontmatter"],
      ["Locked.md", "read"],
    ]);
    expect(fresh.status().notes).toBe(3);
    // The report counts what the index holds: the unreadable file was not added.
    expect(report.added).toBe(3);
    // A known note that cannot be read any more leaves the index, and the report says so.
    const cache = new MemoryIndexCache();
    await fresh.save(cache);
    store.write("Broken.md", "# Broken, now locked\n", FAKE_NOW + 10);
    store.failing.add("Broken.md");
    const again = new VaultIndex({ clock });
    expect(await again.sync(store, cache)).toMatchObject({ mode: "cache", added: 0, updated: 0, removed: 1 });
    expect(again.status().notes).toBe(2);
    expect((await fresh.search("walrus", store)).map((r) => r.path)).toEqual(["Broken.md"]);
  });

  it("indexes only the opening of a note over the size limit and says so", async () => {
    store.write("Huge.md", `# Huge\n\nearly words ${"filler ".repeat(200)} lateword\n`);
    const fresh = new VaultIndex({ clock, maxNoteChars: 500 });
    await fresh.sync(store, null);
    expect(fresh.status().problems).toEqual([{ path: "Huge.md", problem: { kind: "too_large", message: "Only the first 500 characters were indexed." } }]);
    expect((await fresh.search("early", store)).map((r) => r.path)).toEqual(["Huge.md"]);
    expect((await fresh.search("lateword", store)).map((r) => r.path)).toEqual([]);
  });

  it("indexes no word of a binary file named .md, and names it as a problem, however it arrives", async () => {
    // A picture or PDF saved as .md: millions of random "words" that every spelling-tolerant search went through.
    const binary = "\u0089PNG\r\n\u001a\n\0\0\0\rIHDR zebrawood quagga\n";
    store.write("Photo.md", binary);
    const fresh = new VaultIndex({ clock });
    expect(await fresh.sync(store, null)).toMatchObject({ added: 2 });
    expect(fresh.status().problems.map((p) => [p.path, p.problem.kind])).toEqual([["Photo.md", "encoding"]]);
    expect(fresh.status().problems[0].problem.message).toContain("NUL bytes");
    expect(await fresh.search("zebrawood", store)).toEqual([]);
    store.write("Later.md", `quagga ${binary}`);
    await fresh.updateFile(store, "Later.md");
    fresh.applyText("Pasted.md", binary, FAKE_NOW, binary.length);
    expect(fresh.paths().sort()).toEqual(["Ideas.md", "Plan.md"]);
    expect(fresh.status().problems.map((p) => p.path).sort()).toEqual(["Later.md", "Pasted.md", "Photo.md"]);
    expect(await fresh.search("quagga", store)).toEqual([]);
  });

  it("shows sections of a note over the size limit from its indexed part only, not the whole text parsed again", async () => {
    // A 50 MB note found by a word near its top was parsed whole at every search that showed it:
    // seconds on the thread the user types on, for sections the index never held.
    store.write("Huge.md", `# Huge\n\nearly words\n\n${"filler ".repeat(200)}\n\n## Far below\n\nearly again\n`);
    const fresh = new VaultIndex({ clock, maxNoteChars: 500 });
    await fresh.sync(store, null);
    const [hit] = await fresh.search("early", store);
    expect(hit.sections.length).toBeGreaterThan(0);
    expect(hit.sections.map((s) => s.heading)).not.toContain("Far below");
    expect(Math.max(...hit.sections.map((s) => s.end))).toBeLessThanOrEqual(500);
  });

  it("lets the UI breathe between batches of a large build", async () => {
    for (let i = 0; i < 600; i++) store.write(`Bulk/${i}.md`, `# Note ${i}\n`);
    let yields = 0;
    const fresh = new VaultIndex({ clock, yieldToUi: async () => void yields++ });
    await fresh.sync(store, null);
    expect(fresh.status().notes).toBe(602);
    expect(yields).toBe(2);
  });

  it("tells listeners about every change until they unsubscribe", async () => {
    const seen: number[] = [];
    const unsubscribe = index.onChange((status) => seen.push(status.notes));
    store.write("Third.md", "# Third\n");
    await index.updateFile(store, "Third.md");
    index.removeFile("Ideas.md");
    expect(seen).toEqual([3, 2]);
    unsubscribe();
    index.removeFile("Plan.md");
    expect(seen).toEqual([3, 2]);
  });

  it("says nothing when removing a note it never had", () => {
    const seen: number[] = [];
    index.onChange((status) => seen.push(status.notes));
    index.removeFile("Nowhere.md");
    expect(seen).toEqual([]);
  });
});

describe("long notes", () => {
  /** A clock that moves 5 ms each time it is read, so slices end by time. */
  function tickingClock() {
    let now = FAKE_NOW;
    return { now: () => (now += 5), sleep: async () => undefined };
  }
  const longNote = (word: string) => `# Changelog\n\n${Array.from({ length: 3000 }, (_, i) => `Release ${i} fixed ${word} number ${i}.`).join("\n")}\n`;

  it("are indexed a slice at a time, and are found whole once done", async () => {
    store.write("Changelog.md", longNote("otters"));
    let yields = 0;
    const sliced = new VaultIndex({ clock: tickingClock(), yieldToUi: async () => void yields++ });
    await sliced.sync(store, null);
    expect(yields).toBeGreaterThan(1);
    const all = new VaultIndex();
    await all.sync(store, null);
    const ranked = (vault: VaultIndex) => vault.rank(parseQuery("otters release"), 10).map((h) => [h.path, h.score]);
    expect(ranked(sliced)).toEqual(ranked(all));
  });

  // At the first yield it is not parsed yet, at the second not yet added, later half added.
  it.each([1, 2, 3, 5])("give way to a newer version of themselves that arrives at their yield %i", async (at) => {
    store.write("Changelog.md", longNote("otters"));
    let replaced = false;
    let yields = 0;
    const sliced: VaultIndex = new VaultIndex({
      clock: tickingClock(),
      yieldToUi: async () => {
        // Only while the long note is on its way: the others are in, it is not yet.
        if (replaced || sliced.paths().length < 2 || sliced.note("Changelog.md") || ++yields < at) return;
        replaced = true;
        sliced.applyText("Changelog.md", "# Changelog\n\nNow only beavers.\n", FAKE_NOW + 5, 30);
      },
    });
    await sliced.sync(store, null);
    expect(replaced).toBe(true);
    expect(sliced.rank(parseQuery("beavers"), 10).map((h) => h.path)).toEqual(["Changelog.md"]);
    expect(sliced.rank(parseQuery("otters"), 10)).toEqual([]);
    expect(sliced.status().notes).toBe(3);
  });
});

describe("sync's report", () => {
  it("says how long a sync took on the monotonic reading, though the wall clock was set back an hour during it", async () => {
    const local = new VaultIndex({ clock });
    const reads = store.read.bind(store);
    store.read = async (path: string) => {
      clock.set(clock.now() - 3_600_000);
      clock.advance(20);
      return reads(path);
    };
    store.holdReads = false;
    const report = await local.sync(store, null);
    expect(report.ms).toBe(40);
  });
});
