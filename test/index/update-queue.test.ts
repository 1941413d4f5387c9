import { afterEach, describe, expect, it, vi } from "vitest";
import { systemClock, type Clock } from "../../src/ports";
import { UpdateQueue, type IndexUpdate, type VaultChange } from "../../src/index/update-queue";

/** A clock whose time moves only when the test says so. */
class FakeClock implements Clock {
  private time = 1_000_000;
  /** How far the wall clock was set from the time that passed (a time sync, by hand). */
  private wallSetBy = 0;
  private sleepers: { at: number; wake: () => void }[] = [];

  now(): number {
    return this.time + this.wallSetBy;
  }

  monotonicNow(): number {
    return this.time;
  }

  /** Sets the wall clock only: durations and sleeps go on as before. */
  setWall(by: number): void {
    this.wallSetBy += by;
  }

  sleep(ms: number): Promise<void> {
    return new Promise((wake) => this.sleepers.push({ at: this.time + Math.max(0, ms), wake }));
  }

  /** Moves time forward, waking sleepers in order and letting their continuations run. */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      await settle();
      const next = this.sleepers.filter((s) => s.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!next) break;
      this.time = next.at;
      this.sleepers.splice(this.sleepers.indexOf(next), 1);
      next.wake();
    }
    this.time = end;
    await settle();
  }
}

/** A small seeded random source (a linear congruential generator): the same seed, the same run. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}

/**
 * One random change to the vault of the seeded tests: a create or edit, a delete, or a rename (one
 * over a file is reported as that file's delete first, as a watcher sees it). `disk` follows it.
 */
function randomChange(random: () => number, pick: () => string, disk: Map<string, string>, version: { n: number }): VaultChange[] {
  const [p, q, roll] = [pick(), pick(), random()];
  const events: VaultChange[] = [];
  if (roll < 0.25) {
    events.push({ kind: disk.has(p) ? "modify" : "create", path: p });
    disk.set(p, `v${++version.n}`);
  } else if (roll < 0.45 && disk.has(p)) {
    disk.delete(p);
    events.push({ kind: "delete", path: p });
  } else if (roll >= 0.45 && disk.has(p) && p !== q && (random() < 0.3 || !disk.has(q))) {
    if (disk.has(q)) events.push({ kind: "delete", path: q });
    disk.set(q, disk.get(p)!);
    disk.delete(p);
    events.push({ kind: "rename", oldPath: p, path: q });
  }
  return events;
}

/** A planned step applied as the index applies it: a rename takes the old path out and reads the new; a read takes what the disk holds now. */
function applyStep(step: IndexUpdate, disk: ReadonlyMap<string, string>, indexed: Map<string, string>): void {
  if (step.kind === "rename") indexed.delete(step.oldPath);
  if (step.kind === "remove") indexed.delete(step.path);
  else if (disk.has(step.path)) indexed.set(step.path, disk.get(step.path)!);
  else indexed.delete(step.path);
}

async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

function setup(options: { delayMs?: number; maxDelayMs?: number; apply?: (u: IndexUpdate[]) => Promise<void> } = {}) {
  const clock = new FakeClock();
  const batches: IndexUpdate[][] = [];
  const queue = new UpdateQueue({
    clock,
    delayMs: options.delayMs ?? 1000,
    maxDelayMs: options.maxDelayMs ?? 5000,
    apply:
      options.apply ??
      (async (updates) => {
        batches.push(updates);
      }),
  });
  const push = (...changes: VaultChange[]) => changes.forEach((c) => queue.push(c));
  return { clock, queue, batches, push };
}

describe("update queue", () => {
  it("waits for a quiet period before applying anything", async () => {
    const { clock, batches, push } = setup();
    push({ kind: "modify", path: "a.md" });
    await clock.advance(999);
    expect(batches).toEqual([]);
    await clock.advance(1);
    expect(batches).toEqual([[{ kind: "update", path: "a.md" }]]);
  });

  it("applies a change after the quiet period though the wall clock was set back an hour meanwhile", async () => {
    const { clock, batches, push } = setup();
    push({ kind: "modify", path: "a.md" });
    clock.setWall(-3_600_000);
    await clock.advance(1000);
    expect(batches).toEqual([[{ kind: "update", path: "a.md" }]]);
  });

  it("restarts the wait on every new event, but never waits past the maximum delay", async () => {
    const { clock, batches, push } = setup({ delayMs: 1000, maxDelayMs: 3000 });
    for (let i = 0; i < 2; i++) {
      push({ kind: "modify", path: "a.md" });
      await clock.advance(800);
    }
    expect(batches).toEqual([]); // 1600 ms in, events 800 ms apart keep it waiting
    for (let i = 0; i < 2; i++) {
      push({ kind: "modify", path: "a.md" });
      await clock.advance(800);
    }
    expect(batches).toHaveLength(1); // the 3000 ms cap fired although events kept coming
  });

  it("coalesces many events on one path into one re-read", async () => {
    const { clock, batches, push } = setup();
    push({ kind: "create", path: "a.md" }, { kind: "modify", path: "a.md" }, { kind: "modify", path: "a.md" });
    push({ kind: "modify", path: "b.md" });
    await clock.advance(1000);
    expect(batches).toEqual([
      [
        { kind: "update", path: "a.md" },
        { kind: "update", path: "b.md" },
      ],
    ]);
  });

  it("turns a modify followed by a delete into a removal", async () => {
    const { queue, batches, push } = setup();
    push({ kind: "modify", path: "a.md" }, { kind: "delete", path: "a.md" });
    await queue.flush();
    expect(batches).toEqual([[{ kind: "remove", path: "a.md" }]]);
  });

  it("folds a rename chain a→b→c into one move from a to c", async () => {
    const { queue, batches, push } = setup();
    push({ kind: "rename", oldPath: "a.md", path: "b.md" }, { kind: "rename", oldPath: "b.md", path: "c.md" });
    await queue.flush();
    expect(batches).toEqual([[{ kind: "rename", oldPath: "a.md", path: "c.md" }]]);
  });

  it("reads a note again that was renamed and came back to its name, rather than nothing", async () => {
    const { queue, batches, push } = setup();
    push({ kind: "rename", oldPath: "a.md", path: "b.md" }, { kind: "rename", oldPath: "b.md", path: "a.md" });
    await queue.flush();
    expect(batches).toEqual([[{ kind: "update", path: "a.md" }]]);
  });

  it("keeps a note renamed away and back while a batch read its name", async () => {
    // A long batch (a sync, a folder renamed) reads a.md just after the user renamed it to b.md, and
    // drops it; before the batch ends the user undoes the rename. Planned as nothing (the note is
    // back where it was), it was missing from the index until the next start.
    const disk = new Map([["b.md", "text"]]);
    const indexed = new Map<string, string>();
    const move = (from: string, to: string) => {
      disk.set(to, disk.get(from)!).delete(from);
      push({ kind: "rename", oldPath: from, path: to });
    };
    let batch = 0;
    const { queue, push } = setup({
      apply: async (steps) => {
        batch++;
        for (const step of steps) {
          if (batch === 1) move("a.md", "b.md");
          if (step.kind !== "update") indexed.delete(step.kind === "rename" ? step.oldPath : step.path);
          if (step.kind !== "remove") {
            if (disk.has(step.path)) indexed.set(step.path, disk.get(step.path)!);
            else indexed.delete(step.path);
          }
          if (batch === 1) move("b.md", "a.md");
        }
      },
    });
    move("b.md", "a.md");
    await queue.flush();
    await queue.flush();
    expect(batch).toBe(2);
    expect([...indexed]).toEqual([["a.md", "text"]]);
  });

  it("moves and then re-reads a note edited before or after its rename", async () => {
    const { queue, batches, push } = setup();
    push({ kind: "modify", path: "a.md" }, { kind: "rename", oldPath: "a.md", path: "b.md" });
    push({ kind: "rename", oldPath: "x.md", path: "y.md" }, { kind: "modify", path: "y.md" });
    await queue.flush();
    expect(batches[0]).toEqual([
      { kind: "rename", oldPath: "a.md", path: "b.md" },
      { kind: "rename", oldPath: "x.md", path: "y.md" },
      { kind: "update", path: "b.md" },
      { kind: "update", path: "y.md" },
    ]);
  });

  it("removes the indexed copy when a renamed note is then deleted", async () => {
    const { queue, batches, push } = setup();
    push({ kind: "rename", oldPath: "a.md", path: "b.md" }, { kind: "delete", path: "b.md" });
    await queue.flush();
    expect(batches[0]).toEqual(
      expect.arrayContaining([
        { kind: "remove", path: "a.md" },
        { kind: "remove", path: "b.md" },
      ]),
    );
    expect(batches[0]).toHaveLength(2);
  });

  it("moves a note out of a path before another note moves into it", async () => {
    const { queue, batches, push } = setup();
    // a→b, c→a, b→d: applying c→a before a→d would overwrite the copy of a before it moved.
    push(
      { kind: "rename", oldPath: "a.md", path: "b.md" },
      { kind: "rename", oldPath: "c.md", path: "a.md" },
      { kind: "rename", oldPath: "b.md", path: "d.md" },
    );
    await queue.flush();
    expect(batches[0]).toEqual([
      { kind: "rename", oldPath: "a.md", path: "d.md" },
      { kind: "rename", oldPath: "c.md", path: "a.md" },
    ]);
  });

  it("re-reads both notes when two notes swap names through a temporary one", async () => {
    const { queue, batches, push } = setup();
    push(
      { kind: "rename", oldPath: "a.md", path: "tmp.md" },
      { kind: "rename", oldPath: "b.md", path: "a.md" },
      { kind: "rename", oldPath: "tmp.md", path: "b.md" },
    );
    await queue.flush();
    expect(batches[0]).toHaveLength(2);
    expect(batches[0]).toEqual(
      expect.arrayContaining([
        { kind: "update", path: "a.md" },
        { kind: "update", path: "b.md" },
      ]),
    );
  });

  it("keeps the new note when a file is created where a renamed note used to be", async () => {
    const { queue, batches, push } = setup();
    push({ kind: "rename", oldPath: "a.md", path: "b.md" }, { kind: "create", path: "a.md" });
    await queue.flush();
    expect(batches[0]).toEqual([
      { kind: "rename", oldPath: "a.md", path: "b.md" },
      { kind: "update", path: "a.md" },
    ]);
  });

  it("removes the note an atomic save replaced when the saved note is then renamed", async () => {
    const { queue, batches, push } = setup();
    // An editor saves over b through a temporary file, then the note is renamed: b's old note is gone.
    push({ kind: "delete", path: "b.md" }, { kind: "rename", oldPath: "tmp.md", path: "b.md" }, { kind: "rename", oldPath: "b.md", path: "c.md" });
    await queue.flush();
    expect(batches[0]).toEqual([
      { kind: "rename", oldPath: "tmp.md", path: "c.md" },
      { kind: "remove", path: "b.md" },
      { kind: "update", path: "c.md" },
    ]);
  });

  it("removes a moved note's old name when another note is renamed over it", async () => {
    const { queue, batches, push } = setup();
    push({ kind: "rename", oldPath: "a.md", path: "e.md" }, { kind: "delete", path: "e.md" }, { kind: "rename", oldPath: "b.md", path: "e.md" });
    await queue.flush();
    expect(batches[0]).toEqual(expect.arrayContaining([{ kind: "remove", path: "a.md" }]));
    const { queue: second, batches: secondBatches, push: pushSecond } = setup();
    // The same without the delete, as a watcher that misses it reports it.
    pushSecond({ kind: "rename", oldPath: "a.md", path: "e.md" }, { kind: "rename", oldPath: "b.md", path: "e.md" });
    await second.flush();
    expect(secondBatches[0]).toEqual(expect.arrayContaining([{ kind: "remove", path: "a.md" }]));
  });

  it("reads a note again that came back to a name another file was moved away from", async () => {
    const { queue, batches, push } = setup();
    // d is renamed aside, a new d is made and renamed on, and the first d comes back.
    push(
      { kind: "rename", oldPath: "d.md", path: "e.md" },
      { kind: "create", path: "d.md" },
      { kind: "rename", oldPath: "d.md", path: "a.md" },
      { kind: "rename", oldPath: "e.md", path: "d.md" },
    );
    await queue.flush();
    expect(batches[0]).toEqual([
      { kind: "rename", oldPath: "d.md", path: "a.md" },
      { kind: "update", path: "a.md" },
      { kind: "update", path: "d.md" },
    ]);
  });

  it("moves an old name once when two paths claim it, and reads the other", async () => {
    const { queue, batches, push } = setup();
    // b is renamed to e, a new b is made and renamed to c, d takes the name b, and e moves to a.
    push(
      { kind: "rename", oldPath: "b.md", path: "e.md" },
      { kind: "create", path: "b.md" },
      { kind: "rename", oldPath: "b.md", path: "c.md" },
      { kind: "rename", oldPath: "d.md", path: "b.md" },
      { kind: "rename", oldPath: "e.md", path: "a.md" },
    );
    await queue.flush();
    const renames = batches[0].filter((u) => u.kind === "rename");
    expect(renames.filter((u) => u.kind === "rename" && u.oldPath === "b.md")).toHaveLength(1);
    // d's note, now at b, is moved or read after b's old note has left.
    const last = batches[0].map((u) => u.path).lastIndexOf("b.md");
    const bLeaves = batches[0].findIndex((u) => u.kind === "rename" && u.oldPath === "b.md");
    expect(last).toBeGreaterThan(bLeaves);
  });

  it("leaves the index holding exactly the vault's notes after any mix of events (seeded)", async () => {
    // Files a–e with versions; random creates, edits, deletes and renames (a rename over a file is
    // reported as its delete first, as a watcher sees it); the plan is applied as the index does
    // (a rename: old path out, new path read) and must end where the disk ends.
    const names = ["a", "b", "c", "d", "e"];
    let failed: string | null = null;
    for (let seed = 1; seed <= 100_000 && failed === null; seed++) {
      const random = seeded(seed);
      const pick = () => names[Math.floor(random() * names.length)];
      const disk = new Map<string, string>();
      for (const name of names) if (random() < 0.6) disk.set(name, `${name}0`);
      const indexed = new Map(disk);
      const events: VaultChange[] = [];
      const version = { n: 0 };
      for (let n = 1 + Math.floor(random() * 9); n > 0; n--) events.push(...randomChange(random, pick, disk, version));
      const { queue, batches, push } = setup();
      push(...events);
      await queue.flush();
      for (const step of batches[0] ?? []) applyStep(step, disk, indexed);
      const sorted = (m: Map<string, string>) => JSON.stringify([...m].sort());
      if (sorted(indexed) !== sorted(disk)) failed = `seed ${seed}: ${JSON.stringify(events)} → ${JSON.stringify(batches[0])}`;
    }
    expect(failed).toBeNull();
  });

  it("keeps the index exactly the vault's notes when changes keep arriving while batches are applied, and each flush has the changes made before it (seeded)", async () => {
    // As above, but the vault keeps changing while a batch is applied (between any two of its steps),
    // and flushes are asked at random moments: when one resolves, every path no change has touched
    // since it was asked holds what the disk holds; once the changes stop, the whole index does.
    const names = ["a", "b", "c", "d", "e"];
    let failed: string | null = null;
    for (let seed = 1; seed <= 20_000 && failed === null; seed++) {
      const random = seeded(seed);
      const pick = () => names[Math.floor(random() * names.length)];
      const disk = new Map<string, string>();
      for (const name of names) if (random() < 0.6) disk.set(name, `${name}0`);
      const indexed = new Map(disk);
      const log: VaultChange[] = [];
      const lastTouched = new Map<string, number>();
      const version = { n: 0 };
      let budget = 30;
      let queue: UpdateQueue | null = null;
      const change = (): void => {
        if (budget-- <= 0) return;
        for (const event of randomChange(random, pick, disk, version)) {
          log.push(event);
          lastTouched.set(event.path, log.length);
          if (event.kind === "rename") lastTouched.set(event.oldPath, log.length);
          queue!.push(event);
        }
      };
      queue = new UpdateQueue({
        clock: new FakeClock(),
        apply: async (steps) => {
          for (const step of steps) {
            if (random() < 0.3) change();
            await Promise.resolve();
            applyStep(step, disk, indexed);
          }
        },
      });
      const flushes: Promise<void>[] = [];
      for (let round = 0; round < 8 && failed === null; round++) {
        for (let n = Math.floor(random() * 4); n > 0; n--) change();
        if (random() < 0.5) continue;
        const askedAt = log.length;
        flushes.push(
          queue.flush().then(() => {
            for (const name of names) {
              if ((lastTouched.get(name) ?? 0) > askedAt || indexed.get(name) === disk.get(name)) continue;
              failed ??= `seed ${seed}: after a flush asked at change ${askedAt}, ${name} is ${indexed.get(name)} but ${disk.get(name)} on disk: ${JSON.stringify(log)}`;
            }
          }),
        );
        if (random() < 0.5) await flushes.at(-1);
      }
      await Promise.all(flushes);
      budget = 0;
      while (queue.size > 0 || queue.busy) await queue.flush();
      const sorted = (m: Map<string, string>) => JSON.stringify([...m].sort());
      if (failed === null && sorted(indexed) !== sorted(disk)) failed = `seed ${seed}: ${JSON.stringify(log)} → ${sorted(indexed)}, disk ${sorted(disk)}`;
    }
    expect(failed).toBeNull();
  });

  it("applies events that arrive while a batch is running in a following batch", async () => {
    let release: () => void = () => {};
    const seen: IndexUpdate[][] = [];
    const { clock, queue, push } = setup({
      apply: async (updates) => {
        seen.push(updates);
        if (seen.length === 1) await new Promise<void>((r) => (release = r));
      },
    });
    push({ kind: "modify", path: "a.md" });
    await clock.advance(1000);
    expect(queue.busy).toBe(true);
    push({ kind: "modify", path: "b.md" }, { kind: "modify", path: "a.md" });
    release();
    await settle();
    expect(seen).toEqual([[{ kind: "update", path: "a.md" }], [{ kind: "update", path: "b.md" }, { kind: "update", path: "a.md" }]]);
    await clock.advance(5000);
    expect(seen).toHaveLength(2);
    expect(queue.size).toBe(0);
  });

  it("flush waits for a running batch and for what queued up behind it", async () => {
    let release: () => void = () => {};
    const seen: string[] = [];
    const { clock, queue, push } = setup({
      apply: async (updates) => {
        seen.push(...updates.map((u) => u.path));
        if (seen.length === 1) await new Promise<void>((r) => (release = r));
      },
    });
    push({ kind: "modify", path: "a.md" });
    await clock.advance(1000);
    push({ kind: "modify", path: "b.md" });
    const flushed = queue.flush();
    release();
    await flushed;
    expect(seen).toEqual(["a.md", "b.md"]);
  });

  it("flush waits for the changes made before it, not for a stream of writes that never ends", async () => {
    // A sync client downloading a vault, or a script writing a note a millisecond: a new change
    // arrives while every batch is applied. The stream is cut off after 1,000 batches so the old
    // behaviour (waiting for an empty queue) ends too; a flush owes only the batch that held its changes.
    let flushedAfter: number | null = null;
    let applied = 0;
    const seen: IndexUpdate[][] = [];
    const { queue, push } = setup({
      apply: async (updates) => {
        seen.push(updates);
        if (seen.length < 1000) push({ kind: "create", path: `stream/${seen.length}.md` });
        await settle();
        applied++;
      },
    });
    push({ kind: "modify", path: "asked.md" });
    await queue.flush().then(() => (flushedAfter = applied));
    expect(flushedAfter).toBe(1);
    expect(seen[0]).toEqual([{ kind: "update", path: "asked.md" }]);
  });

  it("flush while a batch runs waits for that batch and the one holding the changes made meanwhile", async () => {
    const seen: IndexUpdate[][] = [];
    let release: () => void = () => {};
    let applied = 0;
    let flushedAfter: number | null = null;
    const { clock, queue, push } = setup({
      apply: async (updates) => {
        seen.push(updates);
        if (seen.length === 1) await new Promise<void>((r) => (release = r));
        else if (seen.length < 100) push({ kind: "create", path: `stream/${seen.length}.md` });
        await settle();
        applied++;
      },
    });
    push({ kind: "modify", path: "a.md" });
    await clock.advance(1000);
    expect(queue.busy).toBe(true);
    // Asked while a.md is being applied, with nothing else pending: a.md's batch is all it waits for.
    const first = queue.flush().then(() => (flushedAfter = applied));
    push({ kind: "modify", path: "b.md" });
    // Asked once b.md is pending: b.md's batch too, and no more.
    let secondAfter: number | null = null;
    const second = queue.flush().then(() => (secondAfter = applied));
    release();
    await Promise.all([first, second]);
    expect(flushedAfter).toBe(1);
    expect(secondAfter).toBe(2);
    expect(seen[1]).toEqual([{ kind: "update", path: "b.md" }]);
    // The stream behind them is still applied, in order, to its end.
    for (let i = 0; i < 1000 && (queue.busy || queue.size > 0); i++) await clock.advance(10);
    expect(seen).toHaveLength(100);
    expect(seen.slice(2).map((b) => b[0].path)).toEqual(Array.from({ length: 98 }, (_, i) => `stream/${i + 2}.md`));
  });

  it("flush with nothing pending and nothing running resolves at once", async () => {
    const { queue, batches } = setup();
    await queue.flush();
    expect(batches).toEqual([]);
  });

  it("flush resolves when the queue is disposed under it", async () => {
    let release: () => void = () => {};
    const { clock, queue, push } = setup({ apply: () => new Promise<void>((r) => (release = r)) });
    push({ kind: "modify", path: "a.md" });
    await clock.advance(1000);
    push({ kind: "modify", path: "b.md" });
    let done = false;
    const flushed = queue.flush().then(() => (done = true));
    queue.dispose();
    release();
    await flushed;
    expect(done).toBe(true);
  });

  it("reports a failed batch and carries on with the next one", async () => {
    const errors: unknown[] = [];
    const seen: IndexUpdate[][] = [];
    const clock = new FakeClock();
    const queue = new UpdateQueue({
      clock,
      delayMs: 10,
      apply: async (updates) => {
        seen.push(updates);
        if (seen.length === 1) throw new Error("disk on fire");
      },
      onError: (error) => errors.push(error),
    });
    queue.push({ kind: "modify", path: "a.md" });
    await clock.advance(10);
    queue.push({ kind: "modify", path: "b.md" });
    await clock.advance(10);
    expect(errors).toHaveLength(1);
    expect(seen.map((b) => b[0].path)).toEqual(["a.md", "b.md"]);
  });

  describe("on the system clock", () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it("dispose ends the quiet wait at once, its timer cleared: a closing plugin or MCP server is not held by it", async () => {
      vi.useFakeTimers();
      const batches: IndexUpdate[][] = [];
      const queue = new UpdateQueue({ clock: systemClock, delayMs: 1500, apply: async (updates) => void batches.push(updates) });
      queue.push({ kind: "modify", path: "a.md" });
      expect(vi.getTimerCount()).toBe(1);
      queue.dispose();
      await settle();
      expect(vi.getTimerCount()).toBe(0);
      await vi.advanceTimersByTimeAsync(10_000);
      expect(batches).toEqual([]);
    });
  });

  it("applies nothing after it is disposed", async () => {
    const { clock, queue, batches, push } = setup();
    push({ kind: "modify", path: "a.md" });
    queue.dispose();
    push({ kind: "modify", path: "b.md" });
    await clock.advance(10_000);
    expect(batches).toEqual([]);
  });
});
