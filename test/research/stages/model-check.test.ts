// The judge's model levers at the run, against a stand-in chat server on 127.0.0.1: the verdict
// check (valid, malformed, outside the closed set, too slow, an upgrade from weak with a reason)
// and the local-only rewrites (searched in the vault, never sent to a provider). No real model
// ran here: these pin the plumbing and the fallbacks, not the quality of any model's judgement.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ResearchResult } from "../../../src/research/types";
import { FRESHNESS_QUESTION, sampleVaultHarness, UNKNOWN_QUESTION, type Harness } from "../../support/research-harness";
import { startStandInChatServer, type StandInChatServer } from "./stand-in-chat-server";

/** Judged weak by the lexical judge on the sample vault (three notes, each with part of it). */
const WEAK_QUESTION = "Is Yjs faster than Automerge for large text documents?";

let server: StandInChatServer;
let h: Harness;

beforeEach(async () => {
  server = await startStandInChatServer();
  h = await sampleVaultHarness({ model: server.model });
});
afterEach(() => server.close());

const judgeEvents = (r: ResearchResult) => r.trace.events.filter((e) => e.type === "judge" && e.data?.decided_by !== undefined).map((e) => e.data!);
const lastDecider = (r: ResearchResult) => judgeEvents(r).at(-1)?.decided_by;

async function lexicalOf(question: string) {
  return (await h.run({ question, retrievalOnly: true })).pack.judge;
}

describe("the model-checked verdict", () => {
  it("is off unless the model levers are on: no call, and the trace says the lexical judge decided", async () => {
    const result = await h.run({ question: WEAK_QUESTION, retrievalOnly: true });
    expect(server.seen).toEqual([]);
    expect(result.pack.judge.verdict).toBe("weak_evidence");
    expect(judgeEvents(result)).toEqual([expect.objectContaining({ decided_by: "lexical", lever: "spread_out", verdict: "weak_evidence" })]);
  });

  it("a valid answer upgrades weak to enough, with the model's reason, and the trace says the model check decided", async () => {
    server.answers.check = { text: JSON.stringify({ verdict: "enough_evidence", reason: '"Automerge vs Yjs" compares their speed on large text documents.', missing: [] }) };
    const result = await h.run({ question: WEAK_QUESTION, retrievalOnly: true }, { modelLevers: true });
    expect(server.seen.map((s) => s.kind)).toEqual(["rewrites", "check"]);
    expect(result.pack.judge).toEqual({ verdict: "enough_evidence", reason: 'Checked by the model stand-in: "Automerge vs Yjs" compares their speed on large text documents.', missing_terms: [] });
    expect(judgeEvents(result).at(-1)).toMatchObject({ decided_by: "model_check", verdict: "enough_evidence", lexical_verdict: "weak_evidence", changed: true });
  });

  it("asks once, at temperature 0 with a token cap, with the question and the pack's excerpts fenced as data", async () => {
    server.answers.check = { text: JSON.stringify({ verdict: "weak_evidence", reason: "Only part of it.", missing: ["speed"] }) };
    const result = await h.run({ question: WEAK_QUESTION, retrievalOnly: true }, { modelLevers: true });
    const check = server.seen.filter((s) => s.kind === "check");
    expect(check).toHaveLength(1);
    expect(check[0].body).toMatchObject({ temperature: 0, max_tokens: 300 });
    expect(check[0].user).toContain(`Question: ${WEAK_QUESTION}`);
    expect(check[0].user).toMatch(/<<<VAULT_EXCERPTS\n\[src:[0-9a-f]{10}\] Automerge/);
    expect(result.pack.judge.missing_terms).toEqual(["speed"]);
  });

  it("a reasoning model's thinking before its JSON is not the answer: the verdict it gives after it is read", async () => {
    const verdict = JSON.stringify({ verdict: "enough_evidence", reason: '"Automerge vs Yjs" compares their speed.', missing: [] });
    server.answers.check = { text: `<think>\nThe excerpts mention "speed"; {"verdict": maybe weak?}\n</think>\n\n${verdict}` };
    const result = await h.run({ question: WEAK_QUESTION, retrievalOnly: true }, { modelLevers: true });
    expect(result.pack.judge.verdict).toBe("enough_evidence");
    expect(judgeEvents(result).at(-1)).toMatchObject({ decided_by: "model_check", changed: true });
  });

  it("malformed JSON: the lexical verdict stands, and the trace says the check failed and why", async () => {
    const lexical = await lexicalOf(WEAK_QUESTION);
    server.answers.check = { text: "Sure! The verdict is {enough" };
    const result = await h.run({ question: WEAK_QUESTION, retrievalOnly: true }, { modelLevers: true });
    expect(result.pack.judge).toEqual(lexical);
    expect(judgeEvents(result).at(-1)).toMatchObject({ decided_by: "lexical", model_check: "failed", why: "bad_json" });
    expect(result.trace.errors).toContainEqual(expect.objectContaining({ stage: "judge", kind: "bad_json" }));
    expect(result.stop_reason).toBe("retrieval_only");
  });

  it("a verdict outside the closed set, or a reason missing: the lexical verdict stands", async () => {
    const lexical = await lexicalOf(WEAK_QUESTION);
    server.answers.check = { text: JSON.stringify({ verdict: "partial", reason: "Some of it.", missing: [] }) };
    const invented = await h.run({ question: WEAK_QUESTION, retrievalOnly: true }, { modelLevers: true });
    expect(invented.pack.judge).toEqual(lexical);
    expect(judgeEvents(invented).at(-1)).toMatchObject({ model_check: "failed", why: "unknown_verdict" });
    expect(String(judgeEvents(invented).at(-1)?.message)).toMatch(/is not one of .*: partial$/);
    server.answers.check = { text: JSON.stringify({ verdict: "enough_evidence", missing: [] }) };
    const noReason = await h.run({ question: WEAK_QUESTION, retrievalOnly: true }, { modelLevers: true });
    expect(noReason.pack.judge).toEqual(lexical);
    expect(judgeEvents(noReason).at(-1)).toMatchObject({ why: "bad_shape" });
  });

  it("a model too slow for its limit: the lexical verdict stands and the run goes on", async () => {
    const lexical = await lexicalOf(WEAK_QUESTION);
    // Past the check's own 20 s, not past its stage's limit: the check gives up, the run does not.
    server.answers.check = { hang: true, onCall: () => h.clock.advance(20_001) };
    const result = await h.run({ question: WEAK_QUESTION, retrievalOnly: true }, { modelLevers: true });
    expect(result.pack.judge).toEqual(lexical);
    expect(judgeEvents(result).at(-1)).toMatchObject({ model_check: "failed", why: "timeout" });
    expect(result.stop_reason).toBe("retrieval_only");
  });

  it("Stop while the model checks: the run is cancelled during the judge stage, and no model failure is reported (it said the check failed)", async () => {
    const controller = new AbortController();
    server.answers.rewrites = { text: JSON.stringify({ rewrites: [] }) };
    server.answers.check = { hang: true, onCall: () => controller.abort() };
    const result = await h.run({ question: WEAK_QUESTION, writeTrace: false }, { modelLevers: true, signal: controller.signal });

    expect(result.stop_reason).toBe("cancelled");
    expect(result.trace.errors).toEqual([]);
    expect(judgeEvents(result).some((e) => e.model_check === "failed")).toBe(false);
    expect(result.pack.warnings.find((w) => w.kind === "cancelled")?.message).toBe("The run was cancelled during the judge stage.");
  });

  it("a question about the current state stays at most weak, whatever the model says", async () => {
    server.answers.check = { text: JSON.stringify({ verdict: "enough_evidence", reason: "The notes list the release.", missing: [] }) };
    const result = await h.run({ question: FRESHNESS_QUESTION, retrievalOnly: true }, { modelLevers: true });
    expect(result.pack.judge.verdict).toBe("weak_evidence");
    expect(result.pack.judge.reason).toContain("at most weak");
  });

  it("nothing in the pack: no check is asked for", async () => {
    const result = await h.run({ question: UNKNOWN_QUESTION, retrievalOnly: true }, { modelLevers: true });
    expect(server.seen.map((s) => s.kind)).toEqual(["rewrites"]);
    expect(result.pack.judge.verdict).toBe("no_evidence");
    expect(judgeEvents(result).at(-1)).toMatchObject({ model_check: "failed", why: "nothing_to_check" });
    expect(result.trace.errors.filter((e) => e.stage === "judge")).toEqual([]);
  });
});

describe("the model's rewrites of the question", () => {
  it("are searched in the vault only: a note they find joins the pack, and no web query contains them", async () => {
    server.answers.rewrites = { text: JSON.stringify({ rewrites: ["CouchDB replication sync idea", "Automerge release notes"] }) };
    server.answers.check = { text: JSON.stringify({ verdict: "weak_evidence", reason: "Old notes only.", missing: [] }) };
    const result = await h.run({ question: FRESHNESS_QUESTION, mode: "always", retrievalOnly: true }, { modelLevers: true });
    const rewritten = result.pack.evidence.filter((r) => r.retrieval.lanes.some((l) => l.name === "question_rewrite"));
    expect(rewritten.map((r) => r.note_path)).toContain("Archive/Old sync idea - CouchDB replication.md");
    expect(rewritten[0].retrieval.signals[0].name).toBe("question_rewrite");
    expect(rewritten[0].retrieval.signals[0].detail).toContain("searched in the vault only");
    // What left the device: the provider's requests, built from the question alone.
    expect(h.http.requests.length).toBeGreaterThan(0);
    for (const req of h.http.requests) expect(`${req.url} ${String(req.body ?? "")}`.toLowerCase()).not.toMatch(/couchdb|release notes/);
    expect(result.trace.queries_sent.join(" ").toLowerCase()).not.toMatch(/couchdb|release notes/);
    expect(result.pack.query_plan.provider_queries.join(" ").toLowerCase()).not.toContain("couchdb");
    const event = result.trace.events.find((e) => e.type === "local_retrieval" && e.data?.lever === "question_rewrite");
    expect(event?.data).toMatchObject({ status: "used", rewrites: ["CouchDB replication sync idea", "Automerge release notes"] });
  });

  it("at most three are used; a failed rewrite call leaves the first search's pack as it was", async () => {
    const plain = await h.run({ question: WEAK_QUESTION, retrievalOnly: true });
    server.answers.rewrites = { text: "not json" };
    server.answers.check = { text: JSON.stringify({ verdict: "weak_evidence", reason: "Part of it.", missing: [] }) };
    const failed = await h.run({ question: WEAK_QUESTION, retrievalOnly: true }, { modelLevers: true });
    expect(failed.pack.evidence.map((r) => r.note_path)).toEqual(plain.pack.evidence.map((r) => r.note_path));
    expect(failed.trace.events.find((e) => e.data?.lever === "question_rewrite")?.data).toMatchObject({ status: "failed", why: "bad_json" });
    server.answers.rewrites = { text: JSON.stringify({ rewrites: ["CouchDB replication", "Signal protocol", "DDIA replication chapter", "Encrypted backup", "Sync relay"] }) };
    const many = await h.run({ question: WEAK_QUESTION, retrievalOnly: true }, { modelLevers: true });
    const used = many.trace.events.find((e) => e.data?.lever === "question_rewrite")?.data;
    expect(used?.rewrites).toHaveLength(3);
    expect(many.pack.evidence.filter((r) => r.retrieval.lanes.some((l) => l.name === "question_rewrite")).length).toBeLessThanOrEqual(3);
  });

  it("a rewrite call that hangs past its limit: the run goes on with the first search", async () => {
    server.answers.rewrites = { hang: true, onCall: () => h.clock.advance(15_001) };
    server.answers.check = { text: JSON.stringify({ verdict: "weak_evidence", reason: "Part of it.", missing: [] }) };
    const result = await h.run({ question: WEAK_QUESTION, retrievalOnly: true }, { modelLevers: true });
    expect(result.trace.events.find((e) => e.data?.lever === "question_rewrite")?.data).toMatchObject({ status: "failed", why: "timeout" });
    expect(lastDecider(result)).toBe("model_check");
  });
});
