import { describe, expect, it } from "vitest";
import type { Clock } from "../../src/ports";
import { UpdateQueue, type IndexUpdate, type VaultChange } from "../../src/index/update-queue";

/** A clock whose time moves only when the test says so. */
class FakeClock implements Clock {
  private time = 1_000_000;
  private sleepers: { at: number; wake: () => void }[] = [];

  now(): number {
    return this.time;
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

  it("drops a rename that ends where it started", async () => {
    const { queue, batches, push } = setup();
    push({ kind: "rename", oldPath: "a.md", path: "b.md" }, { kind: "rename", oldPath: "b.md", path: "a.md" });
    await queue.flush();
    expect(batches).toEqual([[]]);
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

  it("applies nothing after it is disposed", async () => {
    const { clock, queue, batches, push } = setup();
    push({ kind: "modify", path: "a.md" });
    queue.dispose();
    push({ kind: "modify", path: "b.md" });
    await clock.advance(10_000);
    expect(batches).toEqual([]);
  });
});
