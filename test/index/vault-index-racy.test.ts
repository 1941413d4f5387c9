// A file system with coarse dates (FAT: 2 s; some network shares: 1 s) gives an edit made in the same
// tick as the index's read the very date the index holds, and a same-size edit then looks unchanged
// by (date, size). A note read within a tick of its date is read again at the next sync (and across a
// save and a restart) until a read clearly after its date proves it; older notes are never re-read.
import { beforeEach, describe, expect, it } from "vitest";
import { VaultIndex } from "../../src/index/vault-index";
import { ControlledStore } from "../support/controlled-note-store";
import { fakeClock, FAKE_NOW, type FakeClock } from "../support/fake-clock";
import { MemoryIndexCache } from "../support/memory-index-cache";

/** FAT's two seconds: a file's date is the start of the tick it was written in. */
const TICK = 2_000;
const coarse = (ms: number) => Math.floor(ms / TICK) * TICK;

let store: ControlledStore;
let clock: FakeClock;

/** Writes `text` at the clock's moment, dated as a FAT disk dates it. */
function edit(path: string, text: string): void {
  store.write(path, text, coarse(clock.now()));
}

async function found(index: VaultIndex, query: string): Promise<string[]> {
  return (await index.search(query, store)).map((r) => r.path);
}

beforeEach(() => {
  // Half a second into a tick, so an edit 0.8 s later falls in the same one.
  clock = fakeClock(coarse(FAKE_NOW) + 500);
  store = new ControlledStore();
  store.write("Old.md", "# Old\n\nWritten long ago about walruses.\n", coarse(FAKE_NOW) - 3_600_000);
  edit("Fresh.md", "# Fresh\n\nThe draft mentions alpha.\n");
});

describe("a same-size edit in the tick the index read the note in", () => {
  it("is found by the next sync from the saved index, which reads no other note", async () => {
    const cache = new MemoryIndexCache();
    const first = new VaultIndex({ clock });
    clock.advance(100);
    await first.sync(store, cache);
    await first.save(cache);
    clock.advance(300);
    edit("Fresh.md", "# Fresh\n\nThe draft mentions omega.\n");
    expect(store.files.get("Fresh.md")!.mtime).toBe(first.note("Fresh.md")!.mtime);
    clock.advance(60_000);
    const next = new VaultIndex({ clock });
    store.reads.length = 0;
    // Read again as a precaution; its words changed, so it is reported as changed, though its date and size are not.
    expect(await next.sync(store, cache)).toMatchObject({ mode: "cache", added: 0, updated: 1, unchanged: 1 });
    expect(store.reads).toEqual(["Fresh.md"]);
    expect(await found(next, "omega")).toEqual(["Fresh.md"]);
    expect(await found(next, "alpha")).toEqual([]);
    expect(next.note("Fresh.md")!.mtime).toBe(store.files.get("Fresh.md")!.mtime);
  });

  it("is not taken for current by a warm index comparing a listing (the MCP server's reconcile)", async () => {
    const index = new VaultIndex({ clock });
    await index.sync(store, null);
    const listed = await store.list();
    expect(listed.map((f) => [f.path, index.isCurrent(f)])).toEqual([
      ["Old.md", true],
      ["Fresh.md", false],
    ]);
  });
});

describe("what a sync reports of a note read again to prove it", () => {
  /** Indexes the vault (Fresh.md read too soon), saves, and lets `change` edit it within its tick; the report of a sync from the cache a minute later. */
  async function nextSyncAfter(change: () => void) {
    const cache = new MemoryIndexCache();
    const first = new VaultIndex({ clock });
    await first.sync(store, cache);
    await first.save(cache);
    clock.advance(300);
    change();
    expect(store.files.get("Fresh.md")!.mtime).toBe(first.note("Fresh.md")!.mtime);
    clock.advance(60_000);
    return new VaultIndex({ clock }).sync(store, cache);
  }

  it("counts it changed when a same-size edit swapped a word (the CLI's `changed 0` after an edit it took in)", async () => {
    expect(await nextSyncAfter(() => edit("Fresh.md", "# Fresh\n\nThe draft mentions omega.\n"))).toMatchObject({ updated: 1, unchanged: 1 });
  });

  it("counts it changed when only the title's spelling changed, which its words alone do not show", async () => {
    expect(await nextSyncAfter(() => edit("Fresh.md", "# FRESH\n\nThe draft mentions alpha.\n"))).toMatchObject({ updated: 1, unchanged: 1 });
  });

  it("counts it changed when its words stayed but one is said more often and another less, keeping the size", async () => {
    store.write("Fresh.md", "# Fresh\n\nlion bear bear wolf.\n", coarse(clock.now()));
    expect(await nextSyncAfter(() => edit("Fresh.md", "# Fresh\n\nlion lion bear wolf.\n"))).toMatchObject({ updated: 1, unchanged: 1 });
  });

  it("counts a long note (indexed in slices) changed by a same-size edit, and unchanged when written back as it was", async () => {
    const long = (word: string) => `# Long\n\n${"filler words for a long note. ".repeat(400)}${word}\n`;
    store.write("Fresh.md", long("alpha"), coarse(clock.now()));
    expect(await nextSyncAfter(() => edit("Fresh.md", long("omega")))).toMatchObject({ updated: 1, unchanged: 1 });
    store.write("Fresh.md", long("alpha"), coarse(clock.now()));
    expect(await nextSyncAfter(() => edit("Fresh.md", long("alpha")))).toMatchObject({ updated: 0, unchanged: 2 });
  });
});

describe("a read that a slow disk stretched past the tick", () => {
  /** Lets the reads begin, then edits Fresh.md within its tick (same size) while they are held, and ends them 3 s later. */
  async function editDuringSlowRead(reading: Promise<unknown>): Promise<void> {
    while (store.held.length === 0) await new Promise((resolve) => setTimeout(resolve, 0));
    clock.advance(300);
    edit("Fresh.md", "# Fresh\n\nThe draft mentions omega.\n");
    clock.advance(3_000);
    store.holdReads = false;
    for (const read of store.held.splice(0)) read.release();
    await reading;
  }

  it("is judged by when it began: a sync's note edited meanwhile is found at the next start", async () => {
    const cache = new MemoryIndexCache();
    const index = new VaultIndex({ clock });
    store.holdReads = true;
    await editDuringSlowRead(index.sync(store, cache));
    await index.save(cache);
    clock.advance(60_000);
    const next = new VaultIndex({ clock });
    await next.sync(store, cache);
    expect(await found(next, "omega")).toEqual(["Fresh.md"]);
  });

  it("is judged by when it began: an update's note edited meanwhile is not current", async () => {
    const index = new VaultIndex({ clock });
    clock.advance(TICK * 2);
    await index.sync(store, null);
    clock.set(coarse(clock.now()) + 500);
    edit("Fresh.md", "# Fresh\n\nThe draft mentions gamma.\n");
    store.holdReads = true;
    await editDuringSlowRead(index.updateFile(store, "Fresh.md"));
    expect(index.isCurrent((await store.stat("Fresh.md"))!)).toBe(false);
  });
});

describe("re-reading stops once a read proves the note", () => {
  it("reads the note once more after its tick, then never again", async () => {
    const cache = new MemoryIndexCache();
    const index = new VaultIndex({ clock });
    await index.sync(store, cache);
    await index.save(cache);
    clock.advance(TICK * 2);
    store.reads.length = 0;
    // Read again, and found as it was: unchanged.
    expect(await index.sync(store, cache)).toMatchObject({ updated: 0, unchanged: 2 });
    expect(store.reads).toEqual(["Fresh.md"]);
    await index.save(cache);
    store.reads.length = 0;
    const next = new VaultIndex({ clock });
    expect(await next.sync(store, cache)).toMatchObject({ mode: "cache", updated: 0, unchanged: 2 });
    expect(store.reads).toEqual([]);
  });

  it("says a re-read proved a note since the save (no count of the sync's does), and nothing once saved", async () => {
    const cache = new MemoryIndexCache();
    const first = new VaultIndex({ clock });
    await first.sync(store, cache);
    await first.save(cache);
    expect(first.hasUnsavedChanges()).toBe(false);
    // Read again within its tick: nothing proven, so nothing the cache does not hold already.
    clock.advance(100);
    const tooSoon = new VaultIndex({ clock });
    expect(await tooSoon.sync(store, cache)).toMatchObject({ added: 0, updated: 0, removed: 0 });
    expect(tooSoon.hasUnsavedChanges()).toBe(false);
    clock.advance(TICK * 2);
    const later = new VaultIndex({ clock });
    expect(await later.sync(store, cache)).toMatchObject({ added: 0, updated: 0, removed: 0, unchanged: 2 });
    expect(later.hasUnsavedChanges()).toBe(true);
    await later.save(cache);
    expect(later.hasUnsavedChanges()).toBe(false);
  });

  it("trusts a note updated one by one only once it was read clearly after its date", async () => {
    const index = new VaultIndex({ clock });
    clock.advance(TICK * 2);
    await index.sync(store, null);
    edit("Fresh.md", "# Fresh\n\nThe draft mentions gamma.\n");
    await index.updateFile(store, "Fresh.md");
    expect(index.isCurrent((await store.stat("Fresh.md"))!)).toBe(false);
    clock.advance(TICK * 2);
    await index.updateFile(store, "Fresh.md");
    expect(index.isCurrent((await store.stat("Fresh.md"))!)).toBe(true);
  });

  it("reads a note dated in the future again at each sync, as it cannot be proven yet", async () => {
    const cache = new MemoryIndexCache();
    store.write("Future.md", "# Future\n\nDated ahead by a skewed share.\n", coarse(FAKE_NOW) + 3_600_000);
    const index = new VaultIndex({ clock });
    await index.sync(store, cache);
    await index.save(cache);
    store.reads.length = 0;
    await new VaultIndex({ clock }).sync(store, cache);
    expect(store.reads.sort()).toEqual(["Fresh.md", "Future.md"]);
  });
});
