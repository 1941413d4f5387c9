import { describe, expect, it } from "vitest";
import type { Clock } from "../../src/ports";
import { makeRunId, TRACE_LIMITS, TraceRecorder } from "../../src/research/trace-recorder";
import { isRunId } from "../../src/cli/kept-trace";
import { OUTSIDE_ROW_LIMITS } from "../../src/evidence/trace-bounds";
import { REDACTED } from "../../src/text/secret-scrub";
import { outsideRow, pack, vaultRow } from "../support/pack-fixtures";
import { fakeClock as steadyFakeClock } from "../support/fake-clock";

// A clock with a wall time only, as a caller's own clock may be: the recorder then counts on the
// wall time, and a set-back it sees gives no time back.
function fakeClock(start = Date.UTC(2026, 10, 30, 14, 12, 3)): Clock & { advance(ms: number): void } {
  let now = start;
  return {
    now: () => now,
    sleep: async (ms) => void (now += ms),
    // A negative step sets the clock back, as a time sync or a user may.
    advance: (ms) => void (now += ms),
  };
}

function recorder(clock = fakeClock()) {
  return new TraceRecorder({ question: "What changed in Automerge?", mode: "on-weak", providers: ["brave"], freshness: "any", clock });
}

const emptyPack = pack("What changed in Automerge?", []);

describe("TraceRecorder", () => {
  it("a clock set back mid-stage: the stage's time and the run's are what really passed, never negative (it was -500 ms)", () => {
    const clock = fakeClock();
    const trace = recorder(clock);
    clock.advance(500);
    trace.stageStart("synthesize");
    clock.advance(-3_600_000);
    trace.event("synthesize", { attempt: 1 });
    clock.advance(200);
    trace.stageEnd("synthesize");
    const done = trace.finish("enough_evidence", emptyPack);

    expect(done.timings_ms.synthesize).toBe(200);
    expect(done.timings_ms.total).toBe(700);
    expect(trace.elapsed()).toBe(700);
  });

  it("stamps events with ms since the run started and times each stage", () => {
    const clock = fakeClock();
    const trace = recorder(clock);
    trace.stageStart("plan");
    clock.advance(3);
    trace.stageEnd("plan", { terms: 2 });
    clock.advance(10);
    trace.event("external_query_built", { query: "automerge release" });
    trace.stageStart("local_retrieval");
    clock.advance(7);
    trace.stageEnd("local_retrieval");
    const done = trace.finish("enough_evidence", emptyPack);

    expect(done.events).toEqual([
      { type: "plan", at: 3, data: { terms: 2, ms: 3 } },
      { type: "external_query_built", at: 13, data: { query: "automerge release" } },
      { type: "local_retrieval", at: 20, data: { ms: 7 } },
    ]);
    expect(done.timings_ms).toEqual({ plan: 3, local_retrieval: 7, total: 20 });
    expect(done.started_at).toBe("2026-11-30T14:12:03.000Z");
    expect(done.schema).toBe("research_trace.v1");
  });

  it("adds up the time of a stage that runs twice, like a synthesis repair", () => {
    const clock = fakeClock();
    const trace = recorder(clock);
    for (const ms of [40, 25]) {
      trace.stageStart("synthesize");
      clock.advance(ms);
      trace.stageEnd("synthesize");
    }
    expect(trace.finish("enough_evidence", emptyPack).timings_ms.synthesize).toBe(65);
  });

  it("keeps the queries that left the device and the errors of each stage", () => {
    const trace = recorder();
    trace.querySent("automerge latest release");
    trace.error("external_retrieval", "rate_limited", "Brave answered 429", "brave");
    const done = trace.finish("external_failed_local_used", emptyPack);
    expect(done.queries_sent).toEqual(["automerge latest release"]);
    expect(done.errors).toEqual([{ stage: "external_retrieval", kind: "rate_limited", message: "Brave answered 429", provider: "brave" }]);
    expect(done.mode).toBe("on-weak");
    expect(done.providers).toEqual(["brave"]);
  });

  it("cuts every string in event data, at any depth, to 300 characters", () => {
    const trace = recorder();
    const long = "x".repeat(1000);
    trace.event("external_provider_response", { title: long, results: [{ url: long }], nested: { deep: long }, count: 3 });
    trace.error("external_retrieval", "bad_response", long);
    trace.querySent(long);
    const done = trace.finish("enough_evidence", emptyPack);
    const data = done.events[0].data as { title: string; results: { url: string }[]; nested: { deep: string }; count: number };
    for (const s of [data.title, data.results[0].url, data.nested.deep, done.errors[0].message, done.queries_sent[0]]) {
      expect(s.length).toBe(TRACE_LIMITS.eventString);
      expect(s.endsWith("…")).toBe(true);
    }
    expect(data.count).toBe(3);
  });

  it("keeps at most 200 events and says how many more there were", () => {
    const trace = recorder();
    for (let i = 0; i < 250; i++) trace.event("external_result_deduped", { i });
    const done = trace.finish("enough_evidence", emptyPack);
    expect(done.events).toHaveLength(TRACE_LIMITS.events);
    expect(done.events.at(-1)).toMatchObject({ type: "events_dropped", data: { count: 51 } });
    expect(done.events[198].data).toEqual({ i: 198 });
    expect(done.truncated?.join(" ")).toMatch(/51 events dropped/);
  });

  it("cuts section texts and outside text in its copy of the pack, marks them, and leaves the pack alone", () => {
    const longText = "Automerge ".repeat(200);
    const note = vaultRow("Notes/Automerge.md", "Automerge", [{ heading: "Sync", text: longText }]);
    const web = outsideRow("brave", "https://automerge.org/blog/", "Automerge blog", longText);
    const original = pack("automerge", [note], [web]);
    const before = JSON.stringify(original);
    const done = recorder().finish("enough_evidence", original);

    expect(done.pack.evidence[0].sections[0].text.length).toBe(TRACE_LIMITS.sectionText);
    expect(done.pack.external_evidence[0].content_sections[0]).toMatchObject({ truncated: true });
    expect(done.pack.external_evidence[0].content_sections[0].text.length).toBe(TRACE_LIMITS.sectionText);
    expect(done.truncated).toEqual(["1 vault section texts cut to 600 characters", "1 outside-vault texts cut to 600 characters"]);
    expect(JSON.stringify(original)).toBe(before);
  });

  it("cuts an outside row's title, URL and domain to their limits, keeping its key, and says so", () => {
    const long = outsideRow("exa", `https://${"sub.".repeat(80)}example.com/${"p".repeat(3000)}`, "Title ".repeat(10_000), "snippet");
    const short = outsideRow("brave", "https://automerge.org/", "Automerge", "snippet");
    const done = recorder().finish("enough_evidence", pack("automerge", [], [long, short]));
    const [cut, whole] = done.pack.external_evidence;
    expect(cut.source_key).toBe(long.source_key);
    expect(cut.title.length).toBeLessThanOrEqual(OUTSIDE_ROW_LIMITS.title);
    expect(cut.url).toHaveLength(OUTSIDE_ROW_LIMITS.url);
    expect(cut.domain).toHaveLength(OUTSIDE_ROW_LIMITS.domain);
    expect(whole).toEqual(JSON.parse(JSON.stringify(short)));
    expect(done.truncated).toEqual(["1 outside-vault titles, addresses or domains cut to 300, 2048 and 253 characters"]);
  });

  it("leaves short texts whole and adds no truncation note", () => {
    const note = vaultRow("Notes/A.md", "A", [{ heading: "", text: "short" }]);
    const done = recorder().finish("enough_evidence", pack("a", [note]));
    expect(done.pack.evidence[0].sections[0].text).toBe("short");
    expect(done.truncated).toBeUndefined();
  });

  it("never keeps a known secret, not even the start of one cut off at the 300-character limit", () => {
    const secret = "BSAkey-0123456789abcdefghij";
    const trace = recorder();
    trace.addSecrets(secret, null, "");
    trace.event("external_provider_request", { url: `https://api.example/?q=x&key=${secret}`, headers: { "x-subscription-token": secret } });
    trace.event("external_provider_response", { body: `${"y".repeat(290)}${secret}` });
    trace.error("external_retrieval", "unauthorized", `key ${secret} was refused`);
    const web = outsideRow("brave", "https://evil.example/", "t", `leaked ${secret}`);
    const done = trace.finish("enough_evidence", pack("a", [], [web]), { text: `answer ${secret}`, kind: "model", verified: true });
    const json = JSON.stringify(done);
    expect(json).not.toContain(secret);
    expect(json).not.toContain(secret.slice(0, 8));
    expect(json).toContain(REDACTED);
  });
});

describe("TraceRecorder on a clock with a steady reading", () => {
  const WALL = Date.UTC(2026, 10, 30, 14, 12, 3);

  it("a wall clock set back an hour during one wait: the wait's 30 s count, to the ms (they were lost)", () => {
    const clock = steadyFakeClock(WALL);
    const trace = recorder(clock);
    clock.advance(1_000);
    trace.stageStart("external_retrieval");
    // A provider call: 10 s in, a time sync steps the wall clock back an hour; the answer comes 20 s later.
    clock.advance(10_000);
    clock.set(clock.now() - 3_600_000);
    clock.advance(20_000);
    trace.stageEnd("external_retrieval");
    const done = trace.finish("enough_evidence", emptyPack);

    expect(done.timings_ms.external_retrieval).toBe(30_000);
    expect(done.timings_ms.total).toBe(31_000);
    expect(done.events[0]?.at).toBe(31_000);
  });

  it("a wall clock stepped forward a day during one wait: only the time that passed counts (the run was a day old at once)", () => {
    const clock = steadyFakeClock(WALL);
    const trace = recorder(clock);
    trace.stageStart("synthesize");
    clock.advance(2_000);
    clock.set(clock.now() + 24 * 3_600_000);
    clock.advance(3_000);
    expect(trace.elapsed()).toBe(5_000);
    trace.stageEnd("synthesize");
    expect(trace.finish("enough_evidence", emptyPack).timings_ms).toEqual({ synthesize: 5_000, total: 5_000 });
  });

  it("the trace's date and run id are still the wall clock's when the run started", () => {
    const clock = steadyFakeClock(WALL);
    const trace = recorder(clock);
    clock.set(clock.now() - 3_600_000);
    clock.advance(500);
    const done = trace.finish("enough_evidence", emptyPack);

    expect(done.started_at).toBe("2026-11-30T14:12:03.000Z");
    expect(done.run_id.startsWith("20261130-141203-")).toBe(true);
    expect(done.timings_ms.total).toBe(500);
  });
});

describe("makeRunId", () => {
  it("is the UTC start time and a short hash, in the shape promote --trace takes", () => {
    const id = makeRunId(fakeClock(), "shape");
    expect(id).toMatch(/^20261130-141203-[0-9a-f]{6}$/);
    expect(isRunId(id)).toBe(true);
  });

  // Two MCP research_pack calls with the same question in the same millisecond had one id, and the
  // second's kept trace (named after it) replaced the first's.
  it("differs for two runs of the same question started in the same millisecond, keeping the shape", () => {
    const clock = fakeClock();
    const first = new TraceRecorder({ question: "same question", mode: "never", providers: [], freshness: "any", clock }).runId;
    const second = new TraceRecorder({ question: "same question", mode: "never", providers: [], freshness: "any", clock }).runId;
    const third = makeRunId(clock, "same question");
    expect(new Set([first, second, third]).size).toBe(3);
    for (const id of [first, second, third]) {
      expect(id).toMatch(/^20261130-141203-[0-9a-f]{6}$/);
      expect(isRunId(id)).toBe(true);
    }
  });

  it("differs for runs started in the same second or with other questions", () => {
    const clock = fakeClock();
    const first = makeRunId(clock, "q");
    clock.advance(1);
    expect(makeRunId(clock, "q")).not.toBe(first);
    expect(makeRunId(fakeClock(), "other")).not.toBe(first);
  });

  it("is the same for the same start and question on another clock (a golden note's id stays put)", () => {
    expect(makeRunId(fakeClock(), "golden")).toBe(makeRunId(fakeClock(), "golden"));
  });

  it("is what a recorder uses when it is given none, and a given one is kept as given", () => {
    const clock = fakeClock(Date.UTC(2026, 0, 2, 3, 4, 5));
    expect(recorder(clock).runId).toMatch(/^20260102-030405-[0-9a-f]{6}$/);
    expect(new TraceRecorder({ question: "q", mode: "never", providers: [], freshness: "any", clock, runId: "20260102-030405-abcdef" }).runId).toBe("20260102-030405-abcdef");
  });
});
