// A rate wait's end, as the dispatcher's callers hear it: logged when the turn comes (with the time
// it really lasted) and when a cancel cuts it short, and counted in a source's time-out message, so
// a source held back by its limit is not taken for one slow to answer; and a wait that outlasts its
// source's deadline sends nothing when it ends, and is no cancel.
import { describe, expect, it } from "vitest";
import { maySkip, type Clock } from "../../src/ports";
import { dispatchSearch } from "../../src/websearch/dispatcher";
import { createSearchSession } from "../../src/websearch/search-providers";
import { fakeClock, jsonResponse, scriptedHttp, testContext } from "./helpers";

/** A clock whose rate waits (pacing sleeps) are held until the test moves it on; deadline sleeps as the fake clock's. */
function heldClock(): Clock & { pass: (ms: number) => void; held: () => number; advance: (ms: number) => void } {
  const base = fakeClock();
  const waiting: (() => void)[] = [];
  return {
    now: () => base.now(),
    monotonicNow: () => base.monotonicNow(),
    sleep: (ms, signal, kind) => (maySkip(signal, kind) ? new Promise<void>((resolve) => waiting.push(resolve)) : base.sleep(ms, signal, kind)),
    pass: (ms) => {
      base.advance(ms);
      waiting.splice(0).forEach((wake) => wake());
    },
    advance: (ms) => base.advance(ms),
    held: () => waiting.length,
  };
}

async function settled(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

const hnAnswer = () => jsonResponse({ hits: [] });

describe("a rate wait's end", () => {
  it("is logged when the turn comes, with the time waited, before the call is sent", async () => {
    const clock = heldClock();
    const http = scriptedHttp(hnAnswer);
    const session = createSearchSession({ clock });
    session.governor.reserve("hackernews", 10_000); // the run's first query just went out
    const context = testContext(http, { clock });
    const search = dispatchSearch(["hackernews"], { query: "opinions on crdt", count: 3 }, context, session, { route: false });
    await settled();
    expect(context.events.map((e) => e.type)).toEqual(["rate_wait"]);
    clock.pass(400);
    await search;
    expect(context.events.map((e) => e.type)).toEqual(["rate_wait", "rate_wait_over", "request", "response"]);
    expect(context.events[1]).toEqual({ type: "rate_wait_over", provider: "hackernews", ms: 400, why: "pacing", ended: "turn_came" });
  });

  it("is logged when a cancel cuts it short, with the part waited and nothing sent", async () => {
    const clock = heldClock();
    const http = scriptedHttp(hnAnswer);
    const session = createSearchSession({ clock });
    session.governor.backOff("hackernews", 30_000); // a 429 asked for 30 s
    const controller = new AbortController();
    const context = testContext(http, { clock, signal: controller.signal });
    const search = dispatchSearch(["hackernews"], { query: "opinions on crdt", count: 3, timeoutMs: 60_000 }, { ...context, settings: { ...context.settings, external: { ...context.settings.external, sourceTimeoutMs: 60_000 } } }, session, { route: false });
    await settled();
    clock.advance(12_000);
    controller.abort();
    await search;
    expect(context.events.filter((e) => e.type.startsWith("rate_wait"))).toEqual([
      { type: "rate_wait", provider: "hackernews", ms: 30_000, why: "provider_asked" },
      { type: "rate_wait_over", provider: "hackernews", ms: 12_000, why: "provider_asked", ended: "cancelled" },
    ]);
    expect(http.requests).toEqual([]);
  });

  it("a source whose time went on a rate wait says so when it times out, not only that it did not answer", async () => {
    const clock = heldClock();
    // The call goes out after the wait and takes 2 s: past the source's 8 s, 7 of which were the wait.
    const http = scriptedHttp(async () => {
      clock.advance(2000);
      return new Promise(() => undefined);
    });
    const session = createSearchSession({ clock });
    session.governor.backOff("hackernews", 7000);
    const search = dispatchSearch(["hackernews"], { query: "opinions on crdt", count: 3 }, testContext(http, { clock }), session, { route: false });
    await settled();
    clock.pass(7000);
    const outcome = await search;
    expect(outcome.errors.map((f) => [f.error.kind, f.error.message])).toEqual([["timeout", "Hacker News did not answer within 8 s, 7 s of which went on waiting its rate turn."]]);
  });
});

describe("a source given up on by its deadline while its call waits its rate turn", () => {
  it("sends nothing when the turn comes: its answer would be thrown away", async () => {
    const clock = heldClock();
    const http = scriptedHttp(hnAnswer);
    const session = createSearchSession({ clock });
    session.governor.backOff("hackernews", 7500); // within the source's 8 s, so the call waits
    const context = testContext(http, { clock });
    const search = dispatchSearch(["hackernews"], { query: "opinions on crdt", count: 3 }, context, session, { route: false });
    await settled();
    expect(clock.held()).toBe(1);
    // The source's 8 s pass before the wait is over (a wait is a plain sleep, which a busy thread may stretch).
    clock.advance(8000);
    const outcome = await search;
    expect(outcome.errors.map((f) => f.error.kind)).toEqual(["timeout"]);
    clock.pass(0);
    await settled();
    expect(http.requests).toEqual([]);
  });

  it("logs the wait's end as given up, not cancelled: no one stopped the run", async () => {
    const clock = heldClock();
    const http = scriptedHttp(hnAnswer);
    const session = createSearchSession({ clock });
    session.governor.backOff("hackernews", 7500);
    // The run's signal, never aborted: a wait said "cancelled" read in the trace note as "stopped after 8000 ms".
    const context = testContext(http, { clock, signal: new AbortController().signal });
    const search = dispatchSearch(["hackernews"], { query: "opinions on crdt", count: 3 }, context, session, { route: false });
    await settled();
    clock.advance(8000);
    await search;
    await settled();
    expect(context.events.filter((e) => e.type === "rate_wait_over")).toEqual([{ type: "rate_wait_over", provider: "hackernews", ms: 8000, why: "provider_asked", ended: "given_up" }]);
  });
});
