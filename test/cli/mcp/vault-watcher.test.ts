// The MCP server's watcher keeps the warm index current: events come from a stand-in for fs.watch
// (the FolderWatch seam) that the test fires by hand, the notes from a real folder on disk, so
// nothing waits on the operating system's timing. The last tests watch a real folder with the
// system's watch, and wait for the events they expect to arrive, however long that takes.
import fs, { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FsNoteStore } from "../../../src/cli/fs-note-store";
import { folderByFolderWatch, systemFolderWatch, watchVault, type FolderWatch, type VaultWatcher } from "../../../src/cli/mcp/vault-watcher";
import { VaultIndex } from "../../../src/index/vault-index";
import type { NoteFileInfo } from "../../../src/ports";
import { fakeClock } from "../../support/fake-clock";

let root: string;
let watcher: VaultWatcher | undefined;

beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), "vr-watch-"));
});

afterEach(() => {
  vi.restoreAllMocks();
  watcher?.close();
  watcher = undefined;
  rmSync(root, { recursive: true, force: true });
});

function write(rel: string, text: string): void {
  mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  writeFileSync(path.join(root, rel), text);
}

/** A FolderWatch whose events the test fires. */
function handWatch(): { watch: FolderWatch; fire: (event: string, name: string | null) => void } {
  let listener: ((event: string, name: string | null) => void) | undefined;
  return {
    watch: (_root, onChange) => {
      listener = onChange;
      return { close: () => undefined };
    },
    fire: (event, name) => listener?.(event, name),
  };
}

async function indexed(store: FsNoteStore): Promise<VaultIndex> {
  const index = new VaultIndex({ clock: fakeClock() });
  await index.sync(store, null);
  return index;
}

describe("the MCP server's vault watcher", () => {
  it("a folder whose name has a dot ('Release v1.2') moved away: its notes are found under the new name only", async () => {
    write("Release v1.2/Notes.md", "# Notes\nThe quokkarine change shipped.\n");
    write("Other.md", "# Other\n");
    const store = new FsNoteStore(root);
    const index = await indexed(store);
    const events = handWatch();
    watcher = watchVault(root, store, index, { clock: fakeClock(), watch: events.watch, onError: () => undefined });
    expect(index.paths()).toContain("Release v1.2/Notes.md");

    renameSync(path.join(root, "Release v1.2"), path.join(root, "Archive 2.0"));
    // What fs.watch reports on Linux for this move: the new folder, the note under it, the old folder.
    events.fire("rename", "Archive 2.0");
    events.fire("rename", "Archive 2.0/Notes.md");
    events.fire("rename", "Release v1.2");
    await watcher.settle();
    expect([...index.paths()].sort()).toEqual(["Archive 2.0/Notes.md", "Other.md"]);
  });

  // Enough of the vault changed for its language to be learned again behind: that ended after the
  // save of the change that set it off, and nothing saved it; every start learned it once more.
  it("counts the end of a learning of the vault's language as a change to save", async () => {
    write("A.md", "# A\n");
    const store = new FsNoteStore(root);
    const index = await indexed(store);
    const status = vi.spyOn(index, "status");
    status.mockReturnValue({ notes: 1, lastUpdated: null, state: "ready", problems: [], vaultLanguage: "learning" });
    watcher = watchVault(root, store, index, { clock: fakeClock(), watch: handWatch().watch, onError: () => undefined });
    index.applyText("B.md", "# B\n", 1, 4);
    expect(watcher.takeChanged()).toBe(false);
    status.mockReturnValue({ notes: 2, lastUpdated: null, state: "ready", problems: [], vaultLanguage: "ready" });
    index.applyText("C.md", "# C\n", 1, 4);
    expect(watcher.takeChanged()).toBe(true);
    expect(watcher.takeChanged()).toBe(false);
  });

  it("a folder named like a file ('Old.notes') deleted: its notes leave the index", async () => {
    write("Old.notes/A.md", "# A\n");
    write("Keep.md", "# Keep\n");
    const store = new FsNoteStore(root);
    const index = await indexed(store);
    const events = handWatch();
    watcher = watchVault(root, store, index, { clock: fakeClock(), watch: events.watch, onError: () => undefined });
    rmSync(path.join(root, "Old.notes"), { recursive: true });
    events.fire("rename", "Old.notes");
    await watcher.settle();
    expect([...index.paths()]).toEqual(["Keep.md"]);
  });

  it("a note replaced by a folder of the same name ('Ideas.md/'), moved in whole: its notes are found, and no problem is named", async () => {
    write("Ideas.md", "# Ideas\nA note about lighthouses.\n");
    write("Keep.md", "# Keep\n");
    const store = new FsNoteStore(root);
    const index = await indexed(store);
    const events = handWatch();
    watcher = watchVault(root, store, index, { clock: fakeClock(), watch: events.watch, onError: () => undefined });
    const elsewhere = mkdtempSync(path.join(os.tmpdir(), "vr-elsewhere-"));
    mkdirSync(path.join(elsewhere, "Ideas.md"));
    writeFileSync(path.join(elsewhere, "Ideas.md", "Part one.md"), "# Part one\nThe quokkarine plan.\n");
    rmSync(path.join(root, "Ideas.md"));
    renameSync(path.join(elsewhere, "Ideas.md"), path.join(root, "Ideas.md"));
    rmSync(elsewhere, { recursive: true, force: true });
    // What fs.watch reports: the name went, and came back (as a folder, its notes unreported).
    events.fire("rename", "Ideas.md");
    events.fire("rename", "Ideas.md");
    await watcher.settle();
    expect([...index.paths()].sort()).toEqual(["Ideas.md/Part one.md", "Keep.md"]);
    expect(index.status().problems).toEqual([]);
  });

  it("a call that settles while another call's reconcile is still listing waits for it", async () => {
    write("A.md", "# A\n");
    const real = new FsNoteStore(root);
    const index = await indexed(real);
    let release!: () => void;
    const listed = new Promise<void>((resolve) => (release = resolve));
    // The same store, whose listing (the reconcile's) waits until the test lets it go.
    const store = Object.assign(Object.create(real) as FsNoteStore, {
      list: async (): Promise<NoteFileInfo[]> => {
        await listed;
        return real.list();
      },
    });
    const events = handWatch();
    watcher = watchVault(root, store, index, { clock: fakeClock(), watch: events.watch, onError: () => undefined });
    write("New folder/B.md", "# B\n");
    events.fire("rename", "New folder");

    const first = watcher.settle();
    const second = watcher.settle().then(() => [...index.paths()].sort());
    setImmediate(release);
    expect(await second).toEqual(["A.md", "New folder/B.md"]);
    await first;
  });

  it("a call is not held by changes that keep coming after it was made: one listing after it, not one per new change", async () => {
    write("A.md", "# A\n");
    const real = new FsNoteStore(root);
    const index = await indexed(real);
    const events = handWatch();
    let listings = 0;
    // Something keeps renaming files in the vault (a sync client's downloads): a new event comes
    // while every listing runs — for the first fifty, so the old endless wait ends for the test.
    const store = Object.assign(Object.create(real) as FsNoteStore, {
      list: async (): Promise<NoteFileInfo[]> => {
        listings++;
        if (listings <= 50) events.fire("rename", `Downloads/part-${listings}.bin`);
        return real.list();
      },
    });
    watcher = watchVault(root, store, index, { clock: fakeClock(), watch: events.watch, onError: () => undefined });
    write("Downloads/B.md", "# B\n");
    events.fire("rename", "Downloads");
    await watcher.settle();
    expect(listings).toBe(1);
    expect([...index.paths()].sort()).toEqual(["A.md", "Downloads/B.md"]);
    // A change that came while that listing ran is the next call's: it lists once more.
    await watcher.settle();
    expect(listings).toBe(2);
  });

  it("a folder past the system's watch limit: said once, and its notes' changes are still found by the next call", async () => {
    write("A.md", "# A\n");
    for (const folder of ["B", "C", "D"]) write(`${folder}/Old.md`, "# Old\n");
    const store = new FsNoteStore(root);
    const index = await indexed(store);
    const realWatch = fs.watch;
    // What Linux says when the user's inotify watches are used up (an editor holds most of them).
    vi.spyOn(fs, "watch").mockImplementation(((folder: string, ...rest: unknown[]) => {
      if (path.basename(folder) !== path.basename(root) && path.basename(folder) !== "B") {
        throw Object.assign(new Error(`ENOSPC: System limit for number of file watchers reached, watch '${folder}'`), { code: "ENOSPC" });
      }
      return (realWatch as (...args: unknown[]) => fs.FSWatcher)(folder, ...rest);
    }) as typeof fs.watch);
    const warnings: string[] = [];
    watcher = watchVault(root, store, index, { clock: fakeClock(), watch: folderByFolderWatch, onError: (message) => warnings.push(message) });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/ENOSPC.*each call lists the vault/);
    // No event comes for an unwatched folder: the call must look for itself.
    write("C/New.md", "# New\nThe quokkarine moss.\n");
    await watcher.settle();
    expect([...index.paths()].sort()).toEqual(["A.md", "B/Old.md", "C/New.md", "C/Old.md", "D/Old.md"]);
  });

  it("an image edited is no reason to list the vault again", async () => {
    write("A.md", "# A\n");
    const real = new FsNoteStore(root);
    const index = await indexed(real);
    let listings = 0;
    const store = Object.assign(Object.create(real) as FsNoteStore, {
      list: async (): Promise<NoteFileInfo[]> => {
        listings++;
        return real.list();
      },
    });
    const events = handWatch();
    watcher = watchVault(root, store, index, { clock: fakeClock(), watch: events.watch, onError: () => undefined });
    await watcher.settle(); // the first call's listing, of what changed before the watch began
    listings = 0;
    events.fire("change", "Pictures/cat.png");
    events.fire("rename", ".obsidian/workspace.json");
    await watcher.settle();
    expect(listings).toBe(0);
  });

  it("a note changed after the start-up sync listed the vault, before the watch began (no event came): the first call finds it", async () => {
    write("A.md", "# A\n\nThe first draft.\n");
    const store = new FsNoteStore(root);
    const index = await indexed(store);
    // While the server started (its sync over, its watch not yet begun): an edit and a new note.
    write("A.md", "# A\n\nThe quokkarine draft, longer now.\n");
    write("B.md", "# B\n\nAlso quokkarine.\n");
    const events = handWatch();
    watcher = watchVault(root, store, index, { clock: fakeClock(), watch: events.watch, onError: () => undefined });
    await watcher.settle();
    expect((await index.search("quokkarine", store)).map((r) => r.path).sort()).toEqual(["A.md", "B.md"]);
  });
});

/** The system's watch over `root`, every name it reports kept (slashes forward), and a wait for one. */
function systemWatch(): { seen: Set<string>; until: (name: string) => Promise<void>; close: () => void } {
  const seen = new Set<string>();
  const watching = systemFolderWatch(root, (_event, name) => name !== null && seen.add(name.split("\\").join("/")), () => undefined);
  const until = async (name: string) => {
    // Bounded so a name that never comes fails as itself, not as the test's timeout.
    for (let i = 0; i < 500 && !seen.has(name); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect([...seen], `waiting for ${name}`).toContain(name);
  };
  return { seen, until, close: () => watching.close() };
}

describe("the system's folder watch", () => {
  it("a folder renamed to a name that begins with its old one ('Drafts' to 'Drafts old'): a note written there is still seen", async () => {
    write("Drafts/Plan.md", "# Plan\n");
    const events = systemWatch();
    try {
      renameSync(path.join(root, "Drafts"), path.join(root, "Drafts old"));
      await events.until("Drafts old");
      await events.until("Drafts");
      write("Drafts old/Next.md", "# Next\n");
      await events.until("Drafts old/Next.md");
    } finally {
      events.close();
    }
  });

  it("a folder removed and made again before its events are read (a checkout does that): a note written in it later is still seen", async () => {
    write("Drafts/Plan.md", "# Plan\n");
    const events = systemWatch();
    try {
      rmSync(path.join(root, "Drafts"), { recursive: true });
      mkdirSync(path.join(root, "Drafts"));
      await events.until("Drafts");
      // Its watch had stayed with the folder removed (the new one often gets the same inode): this never came.
      write("Drafts/Next.md", "# Next\n");
      await events.until("Drafts/Next.md");
    } finally {
      events.close();
    }
  });

  it("three thousand notes written into one folder: each is reported, and the folder is not listed again for each", async () => {
    const events = systemWatch();
    try {
      mkdirSync(path.join(root, "Checkout"));
      await events.until("Checkout");
      const listings = vi.spyOn(fs, "readdirSync");
      for (let i = 0; i < 3_000; i++) writeFileSync(path.join(root, "Checkout", `Note ${i}.md`), `# Note ${i}\n`);
      await events.until("Checkout/Note 2999.md");
      expect([...events.seen].filter((name) => name.startsWith("Checkout/")).length).toBe(3_000);
      expect(listings.mock.calls.length).toBeLessThan(10);
    } finally {
      events.close();
    }
  }, 60_000);

  it("ten thousand notes checked out at once, more events than the system queues: every one is in the index after a call", async () => {
    write("Checkout/Home.md", "# Home\n");
    const store = new FsNoteStore(root);
    const index = await indexed(store);
    watcher = watchVault(root, store, index, { clock: fakeClock(), onError: () => undefined });
    // Into a folder already watched: no folder event asks for a listing; the notes' own events must do.
    for (let i = 0; i < 10_000; i++) writeFileSync(path.join(root, "Checkout", `Note ${i}.md`), `# Note ${i}\n`);
    // The events arrive when they arrive: a call settles what has come so far, and is made again until all has.
    for (let i = 0; i < 200 && index.status().notes < 10_001; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      await watcher.settle();
    }
    expect(index.status().notes).toBe(10_001);
  }, 120_000);
});
