// What a warm start does, counted rather than timed: without a UI thread to keep answering (the
// CLI, the MCP server) the radix tree that prefix and fuzzy lookups walk is made only when one is
// asked for; a UI thread gets it kept from the start, as before, so no keystroke waits for it. And
// when every indexed note is still listed, the plan does not go over the notes again to find none gone.
// A long-lived process (the MCP server) may have the tree made ahead, in slices, when it is idle.
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { SearchEngine } from "../../src/index/search-engine";
import { VaultIndex, type VaultIndexOptions } from "../../src/index/vault-index";
import { SLICE_MS } from "../../src/index/work-slice";
import type { Clock } from "../../src/ports";
import { ControlledStore } from "../support/controlled-note-store";
import { fakeClock, FAKE_NOW } from "../support/fake-clock";
import { MemoryIndexCache } from "../support/memory-index-cache";

let store: ControlledStore;
let cache: MemoryIndexCache;

beforeEach(async () => {
  store = new ControlledStore();
  store.write("Alpha.md", "# Alpha\n\nAbout aardvarks and their burrows.\n");
  store.write("Beta.md", "# Beta\n\nAbout badgers and their setts.\n");
  store.write("Gamma.md", "# Gamma\n\nAbout gazelles on the plains.\n");
  cache = new MemoryIndexCache();
  // Indexed a minute after the notes were written: read clearly after their dates (read-too-soon.ts).
  const first = new VaultIndex({ clock: fakeClock(FAKE_NOW + 60_000) });
  await first.sync(store, cache);
  await first.save(cache);
});

/** A VaultIndex loaded from the cache, and its engine (the one place a test looks inside). */
async function warmIndex(options: VaultIndexOptions = {}): Promise<{ index: VaultIndex; engine: () => SearchEngine }> {
  const index = new VaultIndex({ clock: fakeClock(), ...options });
  expect((await index.sync(store, cache)).mode).toBe("cache");
  return { index, engine: () => (index as unknown as { engine: SearchEngine }).engine };
}

const paths = async (index: VaultIndex, query: string) => (await index.search(query, store)).map((r) => r.path);

describe("a warm start without a UI thread", () => {
  it("answers a search of words the vault holds without making the radix tree", async () => {
    const { index, engine } = await warmIndex();
    // Words of four letters: no typo of one is looked for (a longer word held by few notes would be).
    expect(await paths(index, "beta sett")).toEqual(["Beta.md"]);
    expect(engine().radixTreeMade).toBe(false);
  });

  it("finds a typo's note without making it (the term map read instead: fuzzy-terms.ts)", async () => {
    const { index, engine } = await warmIndex();
    expect(await paths(index, "gazzelles")).toEqual(["Gamma.md"]);
    expect(engine().radixTreeMade).toBe(false);
  });

  it("finds a word being typed by its beginning", async () => {
    const { index, engine } = await warmIndex();
    expect((await index.search("aardv", store, { asYouType: true })).map((r) => r.path)).toEqual(["Alpha.md"]);
    expect(engine().radixTreeMade).toBe(true);
  });
});

describe("a warm start with a UI thread", () => {
  it("keeps the radix tree from the start, so a keystroke never waits for it to be made", async () => {
    const { engine } = await warmIndex({ yieldToUi: () => Promise.resolve() });
    expect(engine().radixTreeMade).toBe(true);
  });

  it("does so without one too when asked", async () => {
    const { engine } = await warmIndex({ radixTree: "kept" });
    expect(engine().radixTreeMade).toBe(true);
  });
});

describe("the radix tree made ahead (a long-lived process without a UI thread, when idle)", () => {
  /** A clock whose monotonic reading moves a slice's length at every look once `ticking`: every look ends a slice. */
  function slicingClock(): { clock: Clock; tick: () => void } {
    const clock = fakeClock();
    let ticking = false;
    const monotonicNow = (): number => {
      if (ticking) clock.advance(SLICE_MS);
      return clock.monotonicNow();
    };
    return { clock: { ...clock, monotonicNow }, tick: () => (ticking = true) };
  }

  it("is made a slice at a time, searches meanwhile finding what they found before, and then serves the prefix lookup without a build", async () => {
    const { clock, tick } = slicingClock();
    const { index, engine } = await warmIndex({ clock });
    tick();
    const terms = engine().terms.size;
    let pauses = 0;
    const made = await index.makeRadixTreeAhead(async () => {
      pauses++;
      expect(engine().radixTreeMade).toBe(false);
      expect(await paths(index, "gazzelles")).toEqual(["Gamma.md"]);
    });
    expect(made).toBe(true);
    expect(pauses).toBe(terms);
    expect(engine().radixTreeMade).toBe(true);
    expect((await index.search("aardv", store, { asYouType: true })).map((r) => r.path)).toEqual(["Alpha.md"]);
  });

  it("stops at a pause once it is no longer wanted, and leaves the tree unmade", async () => {
    const { clock, tick } = slicingClock();
    const { index, engine } = await warmIndex({ clock });
    tick();
    let pauses = 0;
    expect(await index.makeRadixTreeAhead(async () => void pauses++, () => pauses < 2)).toBe(false);
    expect(pauses).toBe(2);
    expect(engine().radixTreeMade).toBe(false);
  });

  it("stops once the index was rebuilt meanwhile: the new one is not the one it was making", async () => {
    const { clock, tick } = slicingClock();
    const { index, engine } = await warmIndex({ clock });
    tick();
    let rebuilt: Promise<unknown> | undefined;
    expect(await index.makeRadixTreeAhead(async () => void (rebuilt ??= index.rebuild(store)))).toBe(false);
    await rebuilt;
    expect(engine().radixTreeMade).toBe(false);
  });

  it("has nothing to do with a UI thread: the tree was kept from the start", async () => {
    const { clock, tick } = slicingClock();
    const { index } = await warmIndex({ clock, yieldToUi: () => Promise.resolve() });
    tick();
    let pauses = 0;
    expect(await index.makeRadixTreeAhead(async () => void pauses++)).toBe(true);
    expect(pauses).toBe(0);
  });
});

describe("a warm start's plan", () => {
  /** The plan's second pass: the indexed notes compared with the listing, one by one. */
  const secondPass = () => vi.spyOn(VaultIndex.prototype as unknown as { dropUnlisted: () => Promise<number> }, "dropUnlisted");

  it("finds no note gone without a second pass over the notes when every one is still listed", async () => {
    const pass = secondPass();
    const { index } = await warmIndex();
    expect(pass).not.toHaveBeenCalled();
    expect(index.paths().sort()).toEqual(["Alpha.md", "Beta.md", "Gamma.md"]);
    pass.mockRestore();
  });

  it("drops a note deleted while the vault was closed", async () => {
    store.files.delete("Beta.md");
    const { index } = await warmIndex();
    expect(index.paths().sort()).toEqual(["Alpha.md", "Gamma.md"]);
  });

  it("drops a note deleted while the vault was closed even when another left the index at one of the plan's pauses", async () => {
    const many = new ControlledStore();
    for (let n = 0; n < 600; n++) many.write(`n${String(n).padStart(4, "0")}.md`, `note ${n}\n`);
    const saved = new MemoryIndexCache();
    const first = new VaultIndex({ clock: fakeClock(FAKE_NOW + 60_000) });
    await first.sync(many, saved);
    await first.save(saved);
    many.files.delete("n0599.md");
    const clock = fakeClock();
    let looked = 0;
    let removedAtPause = false;
    const index = new VaultIndex({
      clock,
      // At the plan's pause after 512 notes (n0001.md among them), n0001.md leaves the index.
      yieldToUi: async () => {
        if (looked < 512 || removedAtPause) return;
        index.removeFile("n0001.md");
        removedAtPause = true;
      },
    });
    const isIndexable = index.isIndexable.bind(index);
    index.isIndexable = (path) => {
      // Each listed note takes a while: the plan pauses at its next chance.
      clock.advance(1);
      looked++;
      return isIndexable(path);
    };
    expect((await index.sync(many, saved)).mode).toBe("cache");
    expect(removedAtPause).toBe(true);
    expect(index.note("n0599.md")).toBeUndefined();
    expect(index.paths()).toHaveLength(598);
  });
});
