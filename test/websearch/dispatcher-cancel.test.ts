// A run cancelled while a source waits its turn at the rate governor: nothing is sent once the user
// has cancelled, whatever the Http adapter does with the signal (requestUrl cannot abort at all).
import { getEventListeners } from "node:events";
import { afterEach, describe, expect, it, vi } from "vitest";
import { maySkip, systemClock, type Clock } from "../../src/ports";
import { dispatchSearch } from "../../src/websearch/dispatcher";
import { createSearchSession } from "../../src/websearch/search-providers";
import { fakeClock, jsonResponse, scriptedHttp, testContext } from "./helpers";

/** A clock whose rate waits (pacing sleeps) end only when the test says; deadline sleeps as the fake clock's. */
function heldClock(): Clock & { release: () => void; releaseNewest: () => void; held: () => number } {
  const base = fakeClock();
  const waiting: (() => void)[] = [];
  return {
    now: () => base.now(),
    sleep: (ms, signal, kind) =>
      !maySkip(signal, kind)
        ? base.sleep(ms, signal, kind)
        : new Promise<void>((resolve) =>
            waiting.push(() => {
              base.advance(ms);
              resolve();
            }),
          ),
    release: () => waiting.splice(0).forEach((wake) => wake()),
    releaseNewest: () => waiting.pop()?.(),
    held: () => waiting.length,
  };
}

async function settled(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

describe("cancelling a run while a source waits its turn", () => {
  it("sends nothing after the cancel, and reports the source cancelled", async () => {
    const clock = heldClock();
    const http = scriptedHttp(() => jsonResponse({ hits: [] }));
    const controller = new AbortController();
    const session = createSearchSession({ clock });
    session.governor.reserve("hackernews", 10_000); // another run's call just went out
    const run = dispatchSearch(["hackernews"], { query: "opinions on crdt", count: 3 }, testContext(http, { clock, signal: controller.signal }), session, { route: false });
    await settled();
    expect(clock.held()).toBe(1);

    controller.abort();
    const outcome = await run;
    clock.release();
    await settled();

    expect(outcome.sources[0]).toMatchObject({ status: "failed", error: { kind: "network" } });
    expect(http.requests).toEqual([]);
  });

  it("gives the turn a cancelled call claimed back: the next question's call waits only for calls that went out", async () => {
    const clock = heldClock();
    const http = scriptedHttp(() => jsonResponse({ total_count: 0, incomplete_results: false, items: [] }));
    const noToken = { get: async () => null };
    const session = createSearchSession({ clock });
    session.governor.reserve("github", 10_000); // another run's call just went out; GitHub's next turn is in 6 s
    const controller = new AbortController();
    const stopped = dispatchSearch(["github"], { query: "automerge error", count: 3 }, testContext(http, { clock, secrets: noToken, signal: controller.signal }), session, { route: false });
    await settled();
    expect(clock.held()).toBe(1);
    controller.abort();
    await stopped;

    const next = dispatchSearch(["github"], { query: "yjs error", count: 3 }, testContext(http, { clock, secrets: noToken }), session, { route: false });
    await settled();
    clock.releaseNewest();
    const outcome = await next;

    expect(outcome.sources[0]).toMatchObject({ status: "answered" });
    expect(http.requests.map((r) => new URL(r.url).searchParams.get("q"))).toEqual([expect.stringContaining("yjs")]);
  });

  it("a run cancelled before its source is asked claims no turn at all", async () => {
    const clock = heldClock();
    const http = scriptedHttp(() => jsonResponse({ hits: [] }));
    const session = createSearchSession({ clock });
    const controller = new AbortController();
    controller.abort();
    await dispatchSearch(["hackernews"], { query: "opinions on crdt", count: 3 }, testContext(http, { clock, signal: controller.signal }), session, { route: false });
    expect(session.governor.reserve("hackernews", 0)).toMatchObject({ ok: true, waitMs: 0 });
    expect(http.requests).toEqual([]);
  });

  it("five sources waiting their turns on the run's one signal hold one abort listener on it, and none after", async () => {
    const clock = heldClock();
    const http = scriptedHttp(() => jsonResponse({}));
    const session = createSearchSession({ clock });
    const sources = ["wikipedia", "hackernews", "arxiv", "github", "stackexchange"] as const;
    for (const quota of ["wikipedia", "hackernews", "arxiv", "github", "stackexchange"]) session.governor.reserve(quota, 10_000); // the run's first query just went out
    const controller = new AbortController();
    const run = dispatchSearch([...sources], { query: "sequence crdt", count: 3 }, testContext(http, { clock, signal: controller.signal, secrets: { get: async () => null } }), session, { route: false });
    await settled();
    expect(clock.held()).toBe(5);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(1);
    clock.release();
    await run;
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });
});

describe("a stop during a rate wait on a real clock", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("clears the wait's timer at once: nothing is left that would keep a stopped CLI run alive until the turn came", async () => {
    vi.useFakeTimers({ toFake: ["Date", "setTimeout", "clearTimeout", "performance"] });
    const http = scriptedHttp(() => jsonResponse({ hits: [] }));
    const session = createSearchSession({ clock: systemClock });
    session.governor.backOff("hackernews", 6000); // a 429 with Retry-After: 6
    const controller = new AbortController();
    const context = testContext(http, { clock: systemClock, signal: controller.signal });
    const run = dispatchSearch(["hackernews"], { query: "opinions on crdt", count: 3 }, context, session, { route: false });
    await vi.advanceTimersByTimeAsync(1800);
    expect(context.events.map((e) => e.type)).toEqual(["rate_wait"]);

    controller.abort();
    const outcome = await run;

    expect(outcome.sources[0]).toMatchObject({ status: "failed", error: { kind: "network", cancelled: true } });
    expect(context.events.filter((e) => e.type === "rate_wait_over")).toMatchObject([{ ended: "cancelled" }]);
    expect(vi.getTimerCount()).toBe(0);
    expect(http.requests).toEqual([]);
  });
});
