// Citation verification inside a run: a scripted model (the only fake besides the ports) cites
// keys, and the real prompt builder, verifier and repair loop decide. Only keys admitted to the
// synthesis prompt pass; a made-up key gets one repair; an answer that still fails is returned
// as unverified, never as a normal answer.
import { describe, expect, it } from "vitest";
import { outsideSourceKey } from "../../src/evidence/keys";
import type { ChatRequest } from "../../src/llm/chat-model";
import { canonicalizeUrl } from "../../src/websearch/canonical-url";
import { keysInPrompt, scriptedModel } from "../support/scripted-model";
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
    expect(error?.suggestion).toMatch(/^src:[0-9a-f]{10}$/);
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
