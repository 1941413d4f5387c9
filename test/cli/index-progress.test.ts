// The live indexing line: read of total, the rate, the time left — in words a person reads.
import { describe, expect, it } from "vitest";
import { indexReadProgress, readProgressLine } from "../../src/cli/index-progress";
import { VaultIndex } from "../../src/index/vault-index";
import { MemoryIndexCache } from "../support/memory-index-cache";
import type { Clock, NoteStore } from "../../src/ports";
import { fakeClock } from "../support/fake-clock";

describe("readProgressLine", () => {
  it("says how many of how many, how fast and how long is left", () => {
    expect(readProgressLine(3200, 9300, 2000)).toBe("Indexing: 3,200 of 9,300 notes · 1,600 notes/s · about 4 s left");
  });

  it("counts minutes for long waits, and says nothing of time left once all is read", () => {
    expect(readProgressLine(100, 50_000, 10_000)).toBe("Indexing: 100 of 50,000 notes · 10 notes/s · about 83 min 10 s left");
    expect(readProgressLine(9300, 9300, 3000)).toBe("Indexing: 9,300 of 9,300 notes · 3,100 notes/s");
  });

  it("without a total (the listing was not seen) it counts what was read", () => {
    expect(readProgressLine(250, null, 500)).toBe("Indexing: 250 notes read · 500 notes/s");
  });
});

describe("the live line while a vault is indexed", () => {
  /** A clock that moves 50 ms each time it is read: every read is "later" without waiting. */
  function tickingClock(): Clock {
    let now = 0;
    return { now: () => (now += 50), sleep: async () => undefined };
  }

  const files = Array.from({ length: 20 }, (_, i) => ({ path: `n${i}.md`, mtime: 1, size: 10 }));
  const store: NoteStore = {
    list: async () => files,
    read: async () => "# note",
    exists: async () => true,
    create: async () => undefined,
  };
  const emptyIndex = { isIndexable: () => true, isCurrent: () => false };

  it("stays cleared once indexing is over, though the vault's language reads every note again after", async () => {
    const drawn: (string | null)[] = [];
    const io = { out: () => undefined, err: () => undefined, env: {}, cwd: "/", stderrIsTerminal: true, statusLine: (t: string | null) => drawn.push(t), clock: tickingClock() };
    const progress = indexReadProgress(emptyIndex, io, { flags: new Map(), positionals: [] })!;
    const watched = progress.watch(store);
    for (const f of await watched.list()) await watched.read(f.path);
    expect(drawn.filter((t) => t !== null).at(-1)).toMatch(/^Indexing: \d+ of 20 notes/);
    progress.finish();
    const cleared = drawn.length;
    expect(drawn.at(-1)).toBeNull();
    // What reads the same store once the sync is done (learning the vault's language) is not indexing:
    // it drew "Indexing: 40 of 20 notes" over the command's own output, and nothing cleared it.
    for (const f of files) await watched.read(f.path);
    expect(drawn.slice(cleared)).toEqual([]);
  });

  it("counts the notes the index reads again because they were read too soon after their date (it said \"20 of 0 notes\")", async () => {
    // The last run read them within a tick of their date (1 ms): their text is read again at the next.
    const cache = new MemoryIndexCache();
    const before = new VaultIndex({ clock: { now: () => 1_000, sleep: async () => undefined }, ranking: { vaultLanguage: null } });
    await before.sync(store, cache);
    await before.save(cache);
    const clock = tickingClock();
    const index = new VaultIndex({ clock, ranking: { vaultLanguage: null } });
    const drawn: (string | null)[] = [];
    const io = { out: () => undefined, err: () => undefined, env: {}, cwd: "/", stderrIsTerminal: true, statusLine: (t: string | null) => drawn.push(t), clock };
    const progress = indexReadProgress(index, io, { flags: new Map(), positionals: [] })!;
    const sync = await index.sync(progress.watch(store), cache);
    expect(sync).toMatchObject({ mode: "cache", unchanged: 20 });
    progress.finish();
    const lines = drawn.filter((t) => t !== null);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatch(/^Indexing: \d+ of 20 notes/);
  });

  it("keeps its rate when the wall clock is set back an hour or forward a day while notes are read (the line froze, or said days left)", async () => {
    for (const step of [-3_600_000, 24 * 3_600_000]) {
      const clock = fakeClock();
      const drawn: (string | null)[] = [];
      const io = { out: () => undefined, err: () => undefined, env: {}, cwd: "/", stderrIsTerminal: true, statusLine: (t: string | null) => drawn.push(t), clock };
      const progress = indexReadProgress(emptyIndex, io, { flags: new Map(), positionals: [] })!;
      const watched = progress.watch(store);
      const listed = await watched.list();
      clock.set(clock.now() + step);
      // A note each 100 ms: 10 notes a second, 2 s for the 20.
      for (const f of listed) {
        clock.advance(100);
        await watched.read(f.path);
      }
      expect(drawn.at(-2)).toBe("Indexing: 19 of 20 notes · 10 notes/s · about 1 s left");
      progress.finish();
    }
  });
});
