// The web search stage shares its time between the run's two queries: a source that answered the
// first query is kept when the second query runs out of time, and the run goes on to its answer.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { RUN_LIMITS } from "../../../src/research/run-limits";
import type { ProgressEvent, ResearchResult } from "../../../src/research/types";
import { replayFolder, REPO_ROOT } from "../../support/recording-http";
import { FRESHNESS_QUESTION, sampleVaultHarness } from "../../support/research-harness";

/** The free-sources demo's question: Wikipedia and arXiv both fit it (fixtures/replay/free-sources-demo). */
const CRDT_QUESTION = "What are sequence CRDTs, which papers and libraries implement them, and what do developers think of them?";

/** Lets pending promise callbacks and timers run, until `done` or a bound. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 0));
}

describe("external retrieval within its time", () => {
  it("the second query gets what is left of the stage's time; the first query's rows stay", async () => {
    let asked = 0;
    const h = await sampleVaultHarness({
      // Each source may take 15 s, as long as the whole search: two queries could take 30 s.
      settings: (s) => {
        s.external.timeoutMs = 15_000;
        s.external.sourceTimeoutMs = 15_000;
      },
      httpOptions: {
        beforeAnswer: async () => {
          asked++;
          // The first query's answer takes 10 s; the second never comes.
          if (asked === 1) h.clock.advance(10_000);
          else await new Promise(() => undefined);
        },
      },
    });
    const running = h.run({ question: FRESHNESS_QUESTION, mode: "always", providers: ["brave"], writeTrace: false });
    await until(() => asked === 2);
    expect(asked).toBe(2);
    // Past the 15 s the search may take, then past the stage's own limit.
    h.clock.advance(6_000);
    await until(() => h.progress.some((e) => e.stage === "external_retrieval" && !e.provider && e.status !== "started"));
    h.clock.advance(10_000);
    const result = await running;

    expect(result.trace.queries_sent).toHaveLength(2);
    expect(result.stop_reason).not.toBe("timeout");
    expect(result.pack.external_evidence.length).toBeGreaterThan(0);
    expect(result.pack.warnings.filter((w) => w.kind === "provider_timeout").map((w) => w.message)).toEqual(["Brave failed (timeout): Brave did not answer within 5 s. Vault results are kept."]);
    expect(result.answer?.text.length).toBeGreaterThan(0);
  });

  it("a query with less than a second of the search's time left is not sent, and the trace says why", async () => {
    let asked = 0;
    const h = await sampleVaultHarness({
      settings: (s) => (s.external.sourceTimeoutMs = 15_000),
      httpOptions: {
        beforeAnswer: () => {
          asked++;
          // The first query's answer takes all but half a second of the 15 s search.
          h.clock.advance(14_500);
        },
      },
    });
    const result = await h.run({ question: FRESHNESS_QUESTION, mode: "always", providers: ["brave"], writeTrace: false });

    expect(result.pack.query_plan.provider_queries).toHaveLength(2);
    expect(asked).toBe(1);
    expect(result.trace.queries_sent).toHaveLength(1);
    const built = result.trace.events.filter((e) => e.type === "external_query_built");
    expect(built[1]?.data).toMatchObject({ query: result.pack.query_plan.provider_queries[1], not_sent: "only 500 ms left of the search's 15 s" });
    expect(result.pack.external_evidence.length).toBeGreaterThan(0);
    expect(result.stop_reason).not.toBe("timeout");
  });

  it("a clock set back earlier in the run gives the search none of the run's spent budget back: it keeps its answers (it ran past the run's end and lost them all as a timeout)", async () => {
    let asked = 0;
    const h = await sampleVaultHarness({
      settings: (s) => (s.external.sourceTimeoutMs = 15_000),
      httpOptions: {
        beforeAnswer: () => {
          asked++;
          h.clock.advance(10_500);
        },
      },
    });
    const onProgress = (e: ProgressEvent) => {
      h.progress.push(e);
      if (e.stage !== "external_policy") return;
      // The run has 12 s of its budget left when it decides to search; then a time sync steps the clock back an hour.
      if (e.status === "started") h.clock.advance(RUN_LIMITS.totalMs - 12_000);
      else h.clock.set(h.clock.now() - 3_600_000);
    };
    const result = await h.run({ question: FRESHNESS_QUESTION, mode: "always", providers: ["brave"], writeTrace: false }, { onProgress });

    expect(asked).toBe(1);
    expect(result.stop_reason).not.toBe("timeout");
    expect(result.trace.queries_sent).toHaveLength(1);
    const built = result.trace.events.filter((e) => e.type === "external_query_built");
    // 11 s (the run's end less its margin), 10.5 s of them spent on the first query.
    expect(built[1]?.data).toMatchObject({ not_sent: "only 500 ms left of the search's 15 s" });
    expect(result.pack.external_evidence.length).toBeGreaterThan(0);
  });

  it("a source given up on by its own deadline is told to stop once the search is over: no request of the run outlives it", async () => {
    const hung: AbortSignal[] = [];
    const h = await sampleVaultHarness({
      exchanges: replayFolder(path.join(REPO_ROOT, "fixtures/replay/free-sources-demo")),
      settings: (s) => {
        s.external.providers = ["wikipedia", "arxiv"];
        s.external.readPages = 0;
      },
      httpOptions: {
        // arXiv never answers, and does not look at its signal (Obsidian's requestUrl cannot).
        beforeAnswer: (req) => {
          if (!req.url.includes("arxiv")) return;
          if (req.signal) hung.push(req.signal);
          return new Promise<void>(() => undefined);
        },
      },
    });
    let result: ResearchResult | undefined;
    void h.run({ question: CRDT_QUESTION, mode: "always", writeTrace: false }).then((r) => (result = r));
    // Each query's arXiv call is given up on at its own deadline; Wikipedia's answers are kept.
    for (let waited = 0; result === undefined && waited < 4; waited++) {
      await until(() => result !== undefined || hung.length > waited);
      h.clock.advance(h.settings.external.sourceTimeoutMs);
    }
    await until(() => result !== undefined);

    expect(result?.pack.warnings.map((w) => w.kind)).toContain("provider_timeout");
    expect(result?.pack.external_evidence.some((row) => row.provider === "wikipedia")).toBe(true);
    expect(hung.length).toBeGreaterThan(0);
    expect(hung.every((signal) => signal.aborted)).toBe(true);
  });
});
