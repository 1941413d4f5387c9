// The external policy of a research run, at the ports: whether anything reaches Http, whether a
// key is even read, and what the queries that leave are made of. The index, planner, judge,
// providers and parsers are the real ones; the vault is the sample vault in memory; the web is
// the recorded brave-demo replay.
import { describe, expect, it } from "vitest";
import { decideExternal } from "../../../src/research/stages/external-policy";
import type { ResearchResult } from "../../../src/research/types";
import { words, foldCase } from "../../../src/index/tokenize";
import type { Settings } from "../../../src/settings";
import type { ReplayLogEntry } from "../../../src/websearch/replay";
import { recordingSecrets } from "../../support/fake-secrets";
import { replayFile, replayFolder } from "../../support/recording-http";
import {
  ANSWERED_QUESTION,
  FRESHNESS_QUESTION,
  sampleVaultHarness,
  UNKNOWN_QUESTION,
  type Harness,
} from "../../support/research-harness";

/** The sample vault holds something on this, but does not answer it (a hard negative of evals/judge). */
const WEAK_QUESTION = "How do I configure y-websocket authentication with JWT tokens?";

const bothProviders = (s: Settings) => {
  s.external.enabled = true;
  s.external.providers = ["brave", "exa"];
};
const braveAndExaReplay = () => [...replayFolder(), ...replayFile("exa/search-2026-crdt.json")];

describe("external search is off by default", () => {
  for (const [label, mode] of [
    ["mode omitted", undefined],
    ["mode never", "never"],
  ] as const) {
    it(`${label}: no request reaches Http, even with providers enabled and keys present`, async () => {
      const h = await sampleVaultHarness({ exchanges: braveAndExaReplay(), settings: bothProviders });
      // A question the vault cannot answer at all: the strongest temptation to look outside.
      const result = await h.run({ question: UNKNOWN_QUESTION, ...(mode ? { mode } : {}) });

      expect(result.pack.judge.verdict).toBe("no_evidence");
      expect(h.http.requests).toEqual([]);
      expect(result.pack.external_evidence).toEqual([]);
      expect(result.trace.mode).toBe("never");
      expect(result.trace.queries_sent).toEqual([]);
      expect(result.trace.events.map((e) => e.type)).toContain("external_search_skipped");
      expect(result.pack.coverage.recall_note).toMatch(/Nothing left the device: web search is off for this run\.$/);
    });
  }
});

describe("on-weak", () => {
  it("does not call providers when the vault has enough evidence", async () => {
    const h = await sampleVaultHarness({ exchanges: braveAndExaReplay(), settings: bothProviders });
    const result = await h.run({ question: ANSWERED_QUESTION, mode: "on-weak" });

    // The premise: the vault answers it, and it is not about the current state.
    expect(result.pack.judge.verdict).toBe("enough_evidence");
    expect(result.pack.query_plan.freshness.flagged).toBe(false);

    expect(h.http.requests).toEqual([]);
    expect(result.pack.external_evidence).toEqual([]);
    expect(result.pack.evidence.length).toBeGreaterThan(0);
    const skipped = result.trace.events.find((e) => e.type === "external_search_skipped");
    expect(skipped?.data?.reason).toMatch(/enough evidence/);
    expect(result.stop_reason).toBe("enough_evidence");
  });

  it("calls the providers after a weak_evidence verdict", async () => {
    const h = await sampleVaultHarness();
    const result = await h.run({ question: WEAK_QUESTION, mode: "on-weak" });

    expect(result.pack.judge.verdict).toBe("weak_evidence");
    expect(result.pack.query_plan.freshness.flagged).toBe(false);
    expect(h.http.requests.length).toBeGreaterThan(0);
    expect(new Set(h.http.requests.map((r) => new URL(r.url).host))).toEqual(new Set(["api.search.brave.com"]));
    expect(result.pack.external_evidence.length).toBeGreaterThan(0);
    // The vault's partial evidence stays, beside the outside rows.
    expect(result.pack.evidence.length).toBeGreaterThan(0);
  });

  it("calls the providers after a no_evidence verdict", async () => {
    const h = await sampleVaultHarness();
    const result = await h.run({ question: UNKNOWN_QUESTION, mode: "on-weak" });

    expect(result.pack.judge.verdict).toBe("no_evidence");
    expect(h.http.requests.length).toBeGreaterThan(0);
    expect(result.pack.external_evidence.length).toBeGreaterThan(0);
  });

  // DESIGN.md, "External search policy": questions about the current state are flagged, and
  // "once the user enabled external search they may use web evidence even when the vault has
  // some". So on-weak searches for them even after an enough_evidence verdict: a vault that
  // covers an old release is not evidence about the latest one.
  it("calls the providers for a freshness question even when the vault covers its words", async () => {
    const h = await sampleVaultHarness();
    const result = await h.run({ question: FRESHNESS_QUESTION, mode: "on-weak" });

    expect(result.pack.query_plan.freshness.flagged).toBe(true);
    // The notes cover every content word, yet notes record the past: at most weak evidence.
    expect(result.pack.judge.verdict).toBe("weak_evidence");
    expect(result.pack.judge.reason).toMatch(/current state/);
    expect(h.http.requests.length).toBeGreaterThan(0);
    expect(result.pack.external_evidence.length).toBeGreaterThan(0);
    const policy = result.trace.events.find((e) => e.type === "external_policy");
    expect(String(policy?.data?.detail)).toMatch(/current state/);
  });

  it("the same freshness question in never mode still sends nothing", async () => {
    const h = await sampleVaultHarness();
    await h.run({ question: FRESHNESS_QUESTION, mode: "never" });
    expect(h.http.requests).toEqual([]);
  });
});

describe("decideExternal", () => {
  const plan = (flagged: boolean) => ({ freshness: { flagged, cues: flagged ? ["latest"] : [] } }) as Parameters<typeof decideExternal>[2];
  const verdict = (v: "no_evidence" | "weak_evidence" | "enough_evidence") => ({ verdict: v, reason: "", missing_terms: [] });

  it("searches only in the cases the policy names", () => {
    const table = [] as string[];
    for (const mode of [undefined, "never", "on-weak", "always"] as const) {
      for (const v of ["no_evidence", "weak_evidence", "enough_evidence"] as const) {
        for (const flagged of [false, true]) {
          if (decideExternal(mode, verdict(v), plan(flagged)).search) table.push(`${mode ?? "default"} ${v}${flagged ? " fresh" : ""}`);
        }
      }
    }
    expect(table).toEqual([
      "on-weak no_evidence",
      "on-weak no_evidence fresh",
      "on-weak weak_evidence",
      "on-weak weak_evidence fresh",
      "on-weak enough_evidence fresh",
      "always no_evidence",
      "always no_evidence fresh",
      "always weak_evidence",
      "always weak_evidence fresh",
      "always enough_evidence",
      "always enough_evidence fresh",
    ]);
  });
});

describe("credentials are checked only when external search is selected", () => {
  it("never mode reads no key at all", async () => {
    const secrets = recordingSecrets();
    const h = await sampleVaultHarness({ secrets, exchanges: braveAndExaReplay(), settings: bothProviders });
    await h.run({ question: UNKNOWN_QUESTION, mode: "never" });
    await h.run({ question: WEAK_QUESTION });
    expect(secrets.asked).toEqual([]);
  });

  it("on-weak reads no key when local evidence is enough", async () => {
    const secrets = recordingSecrets();
    const h = await sampleVaultHarness({ secrets });
    await h.run({ question: ANSWERED_QUESTION, mode: "on-weak" });
    expect(secrets.asked).toEqual([]);
  });

  it("on-weak reads the key of each selected provider, and only those, when it does search", async () => {
    const secrets = recordingSecrets();
    const h = await sampleVaultHarness({ secrets, exchanges: braveAndExaReplay(), settings: bothProviders });
    await h.run({ question: WEAK_QUESTION, mode: "on-weak", providers: ["brave"] });
    expect(secrets.asked.length).toBeGreaterThan(0);
    expect(new Set(secrets.asked)).toEqual(new Set(["brave"]));
  });
});

describe("provider queries are built from the question only", () => {
  /** The query each logged request carried: Brave's `q` parameter, Exa's JSON `query`. */
  function queriesOf(log: ReplayLogEntry[]): string[] {
    return log.map((entry) => {
      const q = new URL(entry.url).searchParams.get("q");
      if (q !== null) return q;
      const body = entry.body as { query?: unknown } | undefined;
      if (typeof body?.query === "string") return body.query;
      throw new Error(`No query found in ${entry.method} ${entry.url}`);
    });
  }
  const wordsOf = (text: string) => words(text).map(foldCase);

  async function run(question: string): Promise<{ h: Harness; result: ResearchResult; queries: string[] }> {
    const h = await sampleVaultHarness({ exchanges: braveAndExaReplay(), settings: bothProviders });
    const result = await h.run({ question, mode: "always" });
    return { h, result, queries: queriesOf(h.http.log) };
  }

  for (const question of [WEAK_QUESTION, FRESHNESS_QUESTION, ANSWERED_QUESTION]) {
    it(`every query sent for "${question}" is made of the question's words (and, for freshness, this year)`, async () => {
      const { h, result, queries } = await run(question);
      expect(queries.length).toBeGreaterThan(0);
      expect(new Set(queries)).toEqual(new Set(result.trace.queries_sent));

      const allowed = new Set(wordsOf(question));
      // The planner pins a freshness question's keyword query to the clock's year: not note text.
      if (result.pack.query_plan.freshness.flagged) allowed.add(String(new Date(h.clock.now()).getUTCFullYear()));
      for (const query of queries) {
        const foreign = wordsOf(query).filter((w) => !allowed.has(w));
        expect(foreign, `query "${query}"`).toEqual([]);
      }

      // And concretely: words of the vault evidence this run found that the question lacks never leave.
      const vaultOnly = new Set(result.pack.evidence.flatMap((row) => row.sections.flatMap((s) => wordsOf(`${row.title} ${s.heading} ${s.text}`))).filter((w) => !allowed.has(w)));
      expect(vaultOnly.size).toBeGreaterThan(20);
      for (const query of queries) {
        expect(wordsOf(query).filter((w) => vaultOnly.has(w)), `query "${query}"`).toEqual([]);
      }
    });
  }
});
