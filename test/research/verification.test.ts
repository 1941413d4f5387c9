// Citation verification inside a run: a scripted model (the only fake besides the ports) cites
// keys, and the real prompt builder, verifier and repair loop decide. Only keys admitted to the
// synthesis prompt pass; a made-up key gets one repair; an answer that still fails is returned
// as unverified, never as a normal answer.
import { describe, expect, it } from "vitest";
import { outsideSourceKey } from "../../src/evidence/keys";
import { ModelError, type ChatModel, type ChatRequest, type ChatResponse } from "../../src/llm/chat-model";
import { problemsOf } from "../../src/ui/run-problems";
import { canonicalizeUrl } from "../../src/websearch/canonical-url";
import { keysInPrompt, scriptedModel } from "../support/scripted-model";
import { openAiCompatibleModel } from "../../src/llm/openai-compatible";
import { fakeHttp, json } from "../llm/fake-http";
import { HttpFailure } from "../../src/ports";
import { ANSWERED_QUESTION, FRESHNESS_QUESTION, sampleVaultHarness, UNKNOWN_QUESTION } from "../support/research-harness";

/** A key of the right shape that names nothing in the sample vault. */
const MADE_UP_VAULT_KEY = "src:0123456789";
/** The brave-demo replay returns this page; a vault note has it as `source`, so its `ext:` key never reaches the pack. */
const COLLAPSED_URL = "https://automerge.org/docs/hello/";
const collapsedKey = () => outsideSourceKey("brave", canonicalizeUrl(COLLAPSED_URL)!);

const firstPrompt = (req: ChatRequest) => req.messages[0].content;

describe("outside keys pass verification only when admitted to the prompt", () => {
  it("an answer citing an admitted ext: key (and a vault key) passes on the first call", async () => {
    const model = scriptedModel([
      (req) => {
        const [ext] = keysInPrompt(req, "ext");
        const [src] = keysInPrompt(req, "src");
        return `Automerge 3 keeps documents compressed in memory, according to outside-vault sources [${ext}]. The vault covers the 2.0 rewrite [${src}].`;
      },
    ]);
    const h = await sampleVaultHarness({ model });
    const result = await h.run({ question: FRESHNESS_QUESTION, mode: "on-weak" });

    expect(model.calls).toHaveLength(1);
    expect(result.verification?.passed).toBe(true);
    expect(result.answer).toMatchObject({ kind: "model", verified: true });
    const outside = result.citations?.find((c) => c.origin === "outside_vault");
    const row = result.pack.external_evidence.find((r) => r.source_key === outside?.source_key);
    expect(row).toBeDefined();
    expect(outside).toEqual({ source_key: row!.source_key, origin: "outside_vault", provider: "brave", url: row!.url });
    expect(result.citations?.some((c) => c.origin === "vault")).toBe(true);
    expect(result.stop_reason).not.toBe("verification_failed");
  });

  it("an ext: key of a web result that was folded into a vault note (not in the pack) fails", async () => {
    const notAdmitted = collapsedKey();
    const model = scriptedModel([`Automerge is a library for local-first apps [${notAdmitted}].`, `Still the same claim [${notAdmitted}].`]);
    const h = await sampleVaultHarness({ model });
    const result = await h.run({ question: FRESHNESS_QUESTION, mode: "on-weak" });

    // The premise: the run did see that page, and kept it as the vault row, not as an outside row.
    expect(h.http.requests.length).toBeGreaterThan(0);
    expect(result.pack.external_evidence.map((r) => r.source_key)).not.toContain(notAdmitted);
    expect(firstPrompt(model.calls[0])).not.toContain(notAdmitted);

    expect(result.verification?.passed).toBe(false);
    expect(result.verification?.errors).toContainEqual(expect.objectContaining({ kind: "unknown_key", key: notAdmitted }));
    expect(result.answer?.verified).toBe(false);
    expect(result.stop_reason).toBe("verification_failed");
  });

  it("an ext: key from a run that never searched the web fails", async () => {
    // Same question, never mode: the outside rows of the on-weak run are not in this pack.
    const probe = await sampleVaultHarness();
    const withWeb = await probe.run({ question: FRESHNESS_QUESTION, mode: "on-weak", writeTrace: false });
    const elsewhere = withWeb.pack.external_evidence[0].source_key;

    const model = scriptedModel([`Automerge 3 cut memory use [${elsewhere}].`, `Automerge 3 cut memory use [${elsewhere}].`]);
    const h = await sampleVaultHarness({ model });
    const result = await h.run({ question: FRESHNESS_QUESTION, mode: "never" });

    expect(result.pack.external_evidence).toEqual([]);
    expect(result.verification?.errors).toContainEqual(expect.objectContaining({ kind: "unknown_key", key: elsewhere }));
    expect(result.answer?.verified).toBe(false);
    expect(result.stop_reason).toBe("verification_failed");
  });
});

describe("hallucinated keys fail verification", () => {
  it("one repair attempt: the model gets exactly two calls, the second listing the real keys; a good repair passes", async () => {
    const model = scriptedModel([
      `The team chose Automerge for its history [${MADE_UP_VAULT_KEY}].`,
      (req) => `The team chose Automerge for its history [${keysInPrompt({ ...req, messages: req.messages.slice(0, 1) }, "src")[0]}].`,
    ]);
    const h = await sampleVaultHarness({ model });
    const result = await h.run({ question: ANSWERED_QUESTION });

    expect(model.calls).toHaveLength(2);
    const admitted = keysInPrompt({ ...model.calls[0], messages: model.calls[0].messages.slice(0, 1) });
    expect(admitted.length).toBeGreaterThan(0);
    expect(admitted).not.toContain(MADE_UP_VAULT_KEY);

    const second = model.calls[1].messages;
    expect(second.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(second[1].content).toContain(MADE_UP_VAULT_KEY);
    const repair = second[2].content;
    expect(repair).toContain(MADE_UP_VAULT_KEY); // says what was wrong
    const offered = repair.slice(repair.indexOf("these keys"));
    for (const key of admitted) expect(offered).toContain(key);
    expect(offered).not.toContain(MADE_UP_VAULT_KEY);

    expect(result.verification?.passed).toBe(true);
    expect(result.answer).toMatchObject({ kind: "model", verified: true });
    expect(result.stop_reason).toBe("enough_evidence");
  });

  it("an answer that still fails after the repair is returned unverified with stop_reason verification_failed", async () => {
    const model = scriptedModel([
      `The team chose Automerge [${MADE_UP_VAULT_KEY}].`,
      `The team chose Automerge, really [${MADE_UP_VAULT_KEY}].`,
    ]);
    const h = await sampleVaultHarness({ model });
    const result = await h.run({ question: ANSWERED_QUESTION });

    expect(model.calls).toHaveLength(2);
    expect(result.stop_reason).toBe("verification_failed");
    expect(result.answer).toMatchObject({ kind: "model", verified: false, text: `The team chose Automerge, really [${MADE_UP_VAULT_KEY}].` });
    expect(result.verification?.passed).toBe(false);
    const error = result.verification?.errors.find((e) => e.kind === "unknown_key");
    expect(error?.key).toBe(MADE_UP_VAULT_KEY);
    // Made up, not mangled: no real key is offered in its place (verify-citations.test.ts).
    expect(error?.suggestion).toBeUndefined();
    expect(result.citations).toEqual([]);
    // Never shown as a normal answer: the trace note marks it.
    const note = h.store.text(result.trace_path!)!;
    expect(note).toContain("Unverified answer");
    expect(note).toMatch(/stop_reason: verification_failed/);
  });

  it("an uncited answer when evidence existed fails the same way", async () => {
    const model = scriptedModel(["The team chose Automerge.", "The team chose Automerge because of its history."]);
    const h = await sampleVaultHarness({ model });
    const result = await h.run({ question: ANSWERED_QUESTION });

    expect(model.calls).toHaveLength(2);
    expect(result.verification?.errors.map((e) => e.kind)).toContain("no_citations");
    expect(result.answer?.verified).toBe(false);
    expect(result.stop_reason).toBe("verification_failed");
  });

  it("a confident answer when nothing was found fails; saying there is no evidence passes", async () => {
    const confident = scriptedModel(["Descale it with a 5% citric acid solution.", "Use citric acid, then rinse twice."]);
    const h1 = await sampleVaultHarness({ model: confident });
    const bad = await h1.run({ question: UNKNOWN_QUESTION });
    expect(bad.pack.evidence).toEqual([]);
    expect(bad.verification?.errors.map((e) => e.kind)).toContain("answer_without_evidence");
    expect(bad.stop_reason).toBe("verification_failed");

    const honest = scriptedModel(["The vault has no evidence on descaling espresso machines."]);
    const h2 = await sampleVaultHarness({ model: honest });
    const good = await h2.run({ question: UNKNOWN_QUESTION });
    expect(honest.calls).toHaveLength(1);
    expect(good.verification?.passed).toBe(true);
    expect(good.stop_reason).toBe("no_evidence");
  });
});

/** A model at the port whose answers may be cut at its length limit, or fail; each step sees the request. */
function modelOf(steps: ((req: ChatRequest) => ChatResponse | Promise<ChatResponse>)[], name = "scripted:cut"): ChatModel & { calls: ChatRequest[] } {
  const calls: ChatRequest[] = [];
  return {
    name,
    calls,
    async complete(req) {
      calls.push({ ...req, messages: req.messages.map((m) => ({ ...m })) });
      const step = steps[calls.length - 1];
      if (!step) throw new Error(`Called ${calls.length} times; the script has ${steps.length} steps.`);
      return step(req);
    },
  };
}

const firstVaultKey = (req: ChatRequest) => keysInPrompt({ ...req, messages: req.messages.slice(0, 1) }, "src")[0];

describe("what the model sent back, as the user meets it", () => {
  it("an answer cut off at the model's length limit says so, wherever the answer is shown", async () => {
    const model = modelOf([(req) => ({ text: `The team chose Automerge for its history [${firstVaultKey(req)}], and because Yjs`, model: "cut-model", truncated: true })]);
    const h = await sampleVaultHarness({ model });
    const result = await h.run({ question: ANSWERED_QUESTION });

    expect(result.verification?.passed).toBe(true);
    // The model's words as it sent them, and a warning every surface shows.
    expect(result.answer?.text).toMatch(/and because Yjs$/);
    expect(result.pack.warnings).toContainEqual({ kind: "answer_cut", message: "scripted:cut stopped at its length limit before finishing this answer." });
    expect(result.trace.events).toContainEqual(expect.objectContaining({ type: "synthesize", data: { answer_cut: true, why: "length_limit" } }));
    expect(h.store.text(result.trace_path!)).toContain("scripted:cut stopped at its length limit before finishing this answer.");
  });

  it("a repaired answer that was finished carries no cut notice, though the draft was cut", async () => {
    const model = modelOf([
      () => ({ text: "The team chose Automerge because", model: "m", truncated: true }),
      (req) => ({ text: `The team chose Automerge for its history [${firstVaultKey(req)}].`, model: "m" }),
    ]);
    const result = await (await sampleVaultHarness({ model })).run({ question: ANSWERED_QUESTION });
    expect(result.verification?.passed).toBe(true);
    expect(result.pack.warnings.map((w) => w.kind)).not.toContain("answer_cut");
  });

  it("the evidence brief's own framing is not reported as uncited paragraphs, with no model or in place of one", async () => {
    const noModel = await (await sampleVaultHarness()).run({ question: FRESHNESS_QUESTION });
    const silent = modelOf([() => ({ text: "", model: "m" })], "openai:m");
    const fallback = await (await sampleVaultHarness({ model: silent })).run({ question: FRESHNESS_QUESTION });
    for (const result of [noModel, fallback]) {
      expect(result.answer?.kind).toBe("extractive");
      // The brief has paragraphs of its own (what it is, the judge's reason, where the vault's evidence ends): none a claim.
      expect(result.answer?.text.split(/\n\s*\n/).filter((p) => p.length > 40 && !p.includes("[src:")).length).toBeGreaterThan(1);
      expect(result.verification).toMatchObject({ passed: true, warnings: [] });
    }
  });

  it("an empty answer (a reasoning model that thought until its limit) is no answer: the evidence brief, a warning that says why, no repair", async () => {
    const model = modelOf([() => ({ text: "  ", model: "deepseek-r1:8b", truncated: true })], "openai:deepseek-r1:8b");
    const h = await sampleVaultHarness({ model });
    const result = await h.run({ question: ANSWERED_QUESTION });

    expect(model.calls).toHaveLength(1);
    expect(result.stop_reason).toBe("synthesis_unavailable");
    expect(result.answer).toMatchObject({ kind: "extractive", verified: true });
    expect(result.answer?.text.trim()).not.toBe("");
    const warning = result.pack.warnings.find((w) => w.kind === "synthesis_unavailable");
    expect(warning?.message).toContain("openai:deepseek-r1:8b reached its length limit before writing any answer");
    expect(result.trace.errors).toContainEqual(expect.objectContaining({ stage: "synthesize", kind: "empty_answer", message: warning?.message }));
  });

  it("a refused answer is no answer, though it began one: the evidence brief, and a warning that says the model declined", async () => {
    const model = modelOf([(req) => ({ text: `The team chose Automerge [${firstVaultKey(req)}] and`, model: "claude-x", refused: true })], "anthropic:claude-x");
    const result = await (await sampleVaultHarness({ model })).run({ question: ANSWERED_QUESTION });

    expect(model.calls).toHaveLength(1);
    expect(result.stop_reason).toBe("synthesis_unavailable");
    expect(result.answer).toMatchObject({ kind: "extractive" });
    expect(result.pack.warnings.find((w) => w.kind === "synthesis_unavailable")?.message).toContain("anthropic:claude-x declined to answer");
    expect(result.trace.errors).toContainEqual(expect.objectContaining({ stage: "synthesize", kind: "refused" }));
  });

  it("a repair worse than the draft is discarded: the draft is shown, unverified, and the trace says why", async () => {
    const draft = (req: ChatRequest) => `The team chose Automerge for its history [${firstVaultKey(req)}]. It syncs peer to peer [${MADE_UP_VAULT_KEY}].`;
    let drafted = "";
    const model = modelOf([
      (req) => ({ text: (drafted = draft(req)), model: "m" }),
      () => ({ text: "I cannot help with that.", model: "m" }),
    ]);
    const result = await (await sampleVaultHarness({ model })).run({ question: ANSWERED_QUESTION });

    expect(model.calls).toHaveLength(2);
    expect(result.answer).toMatchObject({ kind: "model", verified: false, text: drafted });
    expect(result.stop_reason).toBe("verification_failed");
    expect(result.verification?.errors).toEqual([expect.objectContaining({ kind: "unknown_key", key: MADE_UP_VAULT_KEY })]);
    expect(result.citations?.map((c) => c.origin)).toEqual(["vault"]);
    const discarded = result.trace.events.find((e) => e.type === "synthesize" && e.data?.repair === "discarded");
    expect(discarded?.data).toMatchObject({ why: "worse_than_draft", draft_errors: 1, repair_errors: 1 });
  });

  it("a repair call that fails keeps the draft, and the panel does not say the evidence brief is shown", async () => {
    const model = modelOf([
      () => ({ text: `The team chose Automerge [${MADE_UP_VAULT_KEY}].`, model: "m" }),
      () => Promise.reject(new ModelError("timeout", "The model server at http://localhost:11434 did not answer within 120 s.")),
    ]);
    const result = await (await sampleVaultHarness({ model })).run({ question: ANSWERED_QUESTION });

    expect(result.answer).toMatchObject({ kind: "model", verified: false, text: `The team chose Automerge [${MADE_UP_VAULT_KEY}].` });
    expect(result.trace.errors).toContainEqual(expect.objectContaining({ stage: "synthesize", kind: "repair_failed" }));
    const said = problemsOf(result, { enabledProviders: 0, hasKey: () => false }).map((p) => p.message).join(" ");
    expect(said).toContain("its first answer is shown, unverified");
    expect(said).not.toContain("evidence brief");
  });
});

describe("a model that cannot answer, as the panel offers to fix it", () => {
  // The trace kept only the error's kind (`unavailable` for a 404 and a 503 alike), so the panel
  // offered Retry and Open settings for both; the reason now travels as the trace's kind.
  it.each([
    ["a model the server does not have", 404, { error: { message: "model \"llama9\" not found, try pulling it first" } }, "model_not_found", "open_settings"],
    ["a server still loading the model", 503, { error: "loading model" }, "busy", "retry"],
  ])("%s: the trace names why, and the panel offers the one fix", async (_case, status, body, kind, action) => {
    const model = openAiCompatibleModel({ http: fakeHttp(() => json(status, body)), model: "llama9" });
    const result = await (await sampleVaultHarness({ model })).run({ question: ANSWERED_QUESTION });

    expect(result.stop_reason).toBe("synthesis_unavailable");
    expect(result.trace.errors).toContainEqual(expect.objectContaining({ stage: "synthesize", kind }));
    const [problem] = problemsOf(result, { enabledProviders: 0, hasKey: () => false });
    expect(problem).toMatchObject({ kind, action });
    expect(problem.orAction).toBeUndefined();
  });
});

describe("a model that cannot answer, as the run's warning says it", () => {
  // The model's words stood in brackets with their own full stop: "The model could not answer (… the
  // request was given up on.); an extractive evidence brief is shown instead."
  it("quotes the failure as an aside, without its full stop before the bracket", async () => {
    const said = "localhost:11434 kept redirecting (more than 5 times); the request was given up on.";
    const model = openAiCompatibleModel({
      http: fakeHttp(() => {
        throw new HttpFailure("redirect", said);
      }),
      model: "m",
    });
    const result = await (await sampleVaultHarness({ model })).run({ question: ANSWERED_QUESTION });

    expect(result.stop_reason).toBe("synthesis_unavailable");
    expect(result.pack.warnings.find((w) => w.kind === "synthesis_unavailable")?.message).toBe(
      "The model could not answer (The model server at http://localhost:11434 answered, but localhost:11434 kept redirecting (more than 5 times); the request was given up on); an extractive evidence brief is shown instead.",
    );
    // The trace keeps the model's own sentence, whole.
    expect(result.trace.errors).toContainEqual(expect.objectContaining({ stage: "synthesize", message: `The model server at http://localhost:11434 answered, but ${said}` }));
  });

  it("keeps a long failure's last words, where it says what to change", async () => {
    const model = openAiCompatibleModel({ http: fakeHttp(() => ({ status: 404, headers: { "content-type": "text/plain" }, text: `404 page not found ${"x".repeat(150)}` })), model: "m", baseUrl: "http://localhost:11434" });
    const result = await (await sampleVaultHarness({ model })).run({ question: ANSWERED_QUESTION });

    const warning = result.pack.warnings.find((w) => w.kind === "synthesis_unavailable")?.message;
    expect(warning).toMatch(/^The model could not answer \(The model server at http:\/\/localhost:11434 answered HTTP 404: 404 page not found x+\. The base URL/);
    expect(warning).toContain("expect one ending in /v1 (http://localhost:11434/v1)); an extractive evidence brief is shown instead.");
  });
});
