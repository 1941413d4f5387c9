// One job's life in a worker (workerJob), with a stand-in worker: settled once by the first of its
// reply, its failure, the abort or its silence, the worker ended exactly once whichever it was;
// never started for work already unwanted; a start that throws is a rejection.
import { describe, expect, it } from "vitest";
import { IN_FLIGHT, QUIET_STEPS, TAKEN, workerJob, type WorkerEvents } from "../../src/index/worker-jobs";
import { fakeClock, type FakeClock } from "../support/fake-clock";

function standIn(onStart?: (events: WorkerEvents) => void) {
  const seen = { started: 0, posted: [] as unknown[], ended: 0, events: null as WorkerEvents | null };
  const start = (events: WorkerEvents) => {
    seen.started++;
    seen.events = events;
    onStart?.(events);
    return { post: (m: unknown) => void seen.posted.push(m), end: () => void seen.ended++ };
  };
  return { seen, start };
}

describe("workerJob", () => {
  it("posts the message, resolves with the reply's answer and ends the worker once; a later failure changes nothing", async () => {
    const { seen, start } = standIn();
    const job = workerJob(start, { job: "x" }, new AbortController().signal);
    expect(seen.posted).toEqual([{ job: "x" }]);
    seen.events!.message({ ok: true, answer: 42 });
    seen.events!.failed(new Error("exited"));
    await expect(job).resolves.toBe(42);
    expect(seen.ended).toBe(1);
  });

  it("rejects with the worker's reason for a refused job, and for a reply it cannot read", async () => {
    const refused = standIn();
    const job = workerJob(refused.start, {}, new AbortController().signal);
    refused.seen.events!.message({ ok: false, error: "no such job" });
    await expect(job).rejects.toThrow("the worker failed: no such job");
    const odd = standIn();
    const other = workerJob(odd.start, {}, new AbortController().signal);
    odd.seen.events!.message("hello");
    await expect(other).rejects.toThrow("not one this side can read");
    expect([refused.seen.ended, odd.seen.ended]).toEqual([1, 1]);
  });

  it("ends the worker when the work is no longer wanted, and a reply after that is not taken", async () => {
    const { seen, start } = standIn();
    const controller = new AbortController();
    const job = workerJob(start, {}, controller.signal);
    controller.abort();
    seen.events!.message({ ok: true, answer: 1 });
    await expect(job).rejects.toThrow("the work was no longer wanted");
    expect(seen.ended).toBe(1);
  });

  it("posts each of `more` after the message as it comes, stops reading it once settled, and fails when it cannot give the next", async () => {
    const { seen, start } = standIn();
    let read = 0;
    async function* more() {
      for (let i = 1; i <= 5; i++) {
        read = i;
        if (i === 3) seen.events!.message({ ok: true, answer: "done" });
        yield `batch ${i}`;
      }
    }
    await expect(workerJob(start, "first", new AbortController().signal, more())).resolves.toBe("done");
    expect(seen.posted).toEqual(["first", "batch 1", "batch 2"]);
    expect(read).toBe(3);
    const failing = standIn();
    async function* broken() {
      yield "batch 1";
      throw new Error("the note could not be read");
    }
    await expect(workerJob(failing.start, "first", new AbortController().signal, broken())).rejects.toThrow("the note could not be read");
    expect(failing.seen.posted).toEqual(["first", "batch 1"]);
    expect(failing.seen.ended).toBe(1);
  });

  it("hands the worker at most IN_FLIGHT messages it has not taken, the next as each is taken; a TAKEN is not a reply", async () => {
    const { seen, start } = standIn();
    let read = 0;
    async function* more() {
      for (let i = 1; i <= 10; i++) {
        read = i;
        yield i;
      }
    }
    const job = workerJob(start, "first", new AbortController().signal, more());
    const settle = () => new Promise((resolve) => setTimeout(resolve, 5));
    await settle();
    expect(IN_FLIGHT).toBeGreaterThan(1);
    expect(seen.posted).toEqual(["first", ...Array.from({ length: IN_FLIGHT - 1 }, (_, i) => i + 1)]);
    // One more is read and waits: the feeding stops there, not at the end of the notes.
    expect(read).toBe(IN_FLIGHT);
    seen.events!.message(TAKEN);
    await settle();
    expect(seen.posted).toHaveLength(IN_FLIGHT + 1);
    // Taken all at once, as many come as were taken.
    for (let i = 0; i < 3; i++) seen.events!.message(TAKEN);
    await settle();
    expect(seen.posted).toHaveLength(IN_FLIGHT + 4);
    for (let i = 0; i < 3; i++) seen.events!.message(TAKEN);
    await settle();
    expect(seen.posted).toEqual(["first", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    let done = false;
    void job.then(() => (done = true));
    await settle();
    expect(done).toBe(false);
    seen.events!.message({ ok: true, answer: "learned" });
    seen.events!.message(TAKEN);
    await expect(job).resolves.toBe("learned");
    expect(seen.ended).toBe(1);
  });

  it("stops feeding a worker that waits for room once the job settles", async () => {
    const { seen, start } = standIn();
    let read = 0;
    let closed = false;
    async function* more() {
      try {
        for (let i = 1; i <= 10; i++) {
          read = i;
          yield i;
        }
      } finally {
        closed = true;
      }
    }
    const controller = new AbortController();
    const job = workerJob(start, "first", controller.signal, more());
    await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    await expect(job).rejects.toThrow("the work was no longer wanted");
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(seen.posted).toHaveLength(IN_FLIGHT);
    expect([read, closed]).toEqual([IN_FLIGHT, true]);
  });

  it("starts no worker for work already unwanted", async () => {
    const { seen, start } = standIn();
    const controller = new AbortController();
    controller.abort();
    await expect(workerJob(start, {}, controller.signal)).rejects.toThrow("the work was no longer wanted");
    expect(seen.started).toBe(0);
  });

  it("rejects when the worker cannot start, and ends one that failed while it started without posting to it", async () => {
    await expect(
      workerJob(
        () => {
          throw new Error("Worker is not defined");
        },
        {},
        new AbortController().signal,
      ),
    ).rejects.toThrow("Worker is not defined");
    const { seen, start } = standIn((events) => events.failed(new Error("bad script")));
    await expect(workerJob(start, {}, new AbortController().signal)).rejects.toThrow("bad script");
    expect(seen.posted).toEqual([]);
    expect(seen.ended).toBe(1);
  });

  describe("a worker that holds work and says nothing", () => {
    const quietMs = 60_000;
    const step = quietMs / QUIET_STEPS;
    const flush = () => new Promise((resolve) => setTimeout(resolve, 1));
    /** `ms` of time passing as it does while the app runs: a timer step at a time. */
    const pass = async (clock: FakeClock, ms: number) => {
      for (let passed = 0; passed < ms; passed += step) {
        clock.advance(Math.min(step, ms - passed));
        await flush();
      }
    };

    it("is given up on after quietMs of silence since its last word, and ended once; each word starts the wait again", async () => {
      const clock = fakeClock();
      const { seen, start } = standIn();
      async function* more() {
        yield "batch 1";
      }
      let outcome: unknown = "pending";
      const job = workerJob(start, "first", new AbortController().signal, more(), { clock, quietMs });
      job.catch((error: unknown) => (outcome = error));
      await flush();
      await pass(clock, quietMs - step);
      seen.events!.message(TAKEN);
      await pass(clock, quietMs - step);
      expect(outcome).toBe("pending");
      // The one message it still holds (batch 1) is owed: silence from here on counts.
      await pass(clock, step);
      expect(String(outcome)).toContain("the worker said nothing for 60 s while it held work");
      expect(seen.ended).toBe(1);
      expect(clock.pendingTimers()).toBe(0);
    });

    it("is waited on while it works out its reply (no word owed but the reply), and its timer goes when it answers", async () => {
      const clock = fakeClock();
      const { seen, start } = standIn();
      const job = workerJob(start, "first", new AbortController().signal, undefined, { clock, quietMs });
      expect(clock.pendingTimers()).toBe(1);
      await pass(clock, quietMs - step);
      seen.events!.message({ ok: true, answer: "learned" });
      await expect(job).resolves.toBe("learned");
      expect(clock.pendingTimers()).toBe(0);
    });

    it("is not blamed for this side's silence: with every message taken, the wait for the notes does not count", async () => {
      const clock = fakeClock();
      const { seen, start } = standIn();
      let release: () => void = () => undefined;
      const notesRead = new Promise<void>((resolve) => (release = resolve));
      async function* more() {
        await notesRead;
        yield "batch 1";
      }
      let outcome: unknown = "pending";
      const job = workerJob(start, "first", new AbortController().signal, more(), { clock, quietMs });
      job.catch((error: unknown) => (outcome = error));
      seen.events!.message(TAKEN);
      await flush();
      expect(clock.pendingTimers()).toBe(0);
      await pass(clock, 3 * quietMs);
      expect(outcome).toBe("pending");
      release();
      await flush();
      expect(seen.posted).toEqual(["first", "batch 1"]);
      expect(clock.pendingTimers()).toBe(1);
      await pass(clock, quietMs);
      expect(String(outcome)).toContain("said nothing");
    });

    it("counts a stretch in which the timers stood still (an app in a phone's background) as one step, not as silence", async () => {
      const clock = fakeClock();
      const { start } = standIn();
      let outcome: unknown = "pending";
      const job = workerJob(start, "first", new AbortController().signal, undefined, { clock, quietMs });
      job.catch((error: unknown) => (outcome = error));
      // An hour at once: the first timer step fires late, once.
      clock.advance(60 * quietMs);
      await flush();
      await pass(clock, quietMs - 2 * step);
      expect(outcome).toBe("pending");
      await pass(clock, step);
      expect(String(outcome)).toContain("said nothing");
    });
  });
});
