// A model that echoes the key it was sent: whatever the run's caller listed as known secrets, the
// model's own key (read from the Secrets port) is kept out of everything the run returns, progresses
// and traces — from the first model call on, the judge's levers included. The model here is a client
// that passes on what its server said as it is (the run's promise may not rest on the adapters' own
// scrubbing: `llm/send.ts`'s `readScrubbed`).
import { describe, expect, it } from "vitest";
import type { ChatModel, ChatRequest } from "../../src/llm/chat-model";
import { recordingSecrets } from "../support/fake-secrets";
import { ANSWERED_QUESTION, sampleVaultHarness } from "../support/research-harness";

const MODEL_KEY = "sk-proj-echoTest4Kq9Zr2Wm7Xn5Lp";

/** How the model answers the judge's levers: JSON quoting the key, or prose quoting it (no JSON: the failure quotes it). */
type LeverReply = "json" | "prose";

/** A model that puts its key in every part of every reply. */
function echoingModel(levers: LeverReply): ChatModel {
  return {
    name: "openai:stand-in",
    async complete(req: ChatRequest) {
      const lever = req.system.includes("You check whether excerpts") || req.system.includes("Rewrite the question");
      const text =
        lever && levers === "prose"
          ? `Your key is ${MODEL_KEY}, and I will not answer in JSON.`
          : req.system.includes("You check whether excerpts")
            ? JSON.stringify({ verdict: "enough_evidence", reason: `Your key is ${MODEL_KEY}.`, missing: [`key ${MODEL_KEY}`] })
            : req.system.includes("Rewrite the question")
              ? JSON.stringify({ rewrites: [`automerge ${MODEL_KEY}`] })
              : `Automerge was picked. Your key is ${MODEL_KEY}.`;
      return { text, model: "stand-in" };
    },
  };
}

async function echoedRun(request: { retrievalOnly?: boolean }, levers: LeverReply) {
  const secrets = recordingSecrets({ openai: MODEL_KEY });
  const h = await sampleVaultHarness({ secrets, model: echoingModel(levers), settings: (s) => (s.notes.writeTraceNotes = true) });
  const result = await h.run({ question: ANSWERED_QUESTION, ...request }, { modelLevers: true, knownSecrets: [] });
  const notes = h.store.created.map((p) => h.store.files.get(p)?.text ?? "");
  return { result, progress: h.progress, notes };
}

describe("a model that echoes its key, when the caller did not list it", () => {
  it.each([
    ["a run with an answer, the levers answering prose", {}, "prose"],
    ["a run with an answer, the levers answering JSON", {}, "json"],
    ["a retrieval-only run, the levers answering prose", { retrievalOnly: true }, "prose"],
    ["a retrieval-only run, the levers answering JSON", { retrievalOnly: true }, "json"],
  ] as const)("%s keeps it out of the result, the progress and the trace note", async (_what, request, levers) => {
    const { result, progress, notes } = await echoedRun(request, levers);
    // The key was there to hide: the stand-in did echo it.
    expect(JSON.stringify(result)).toContain("[redacted]");
    for (const output of [JSON.stringify(result), JSON.stringify(progress), ...notes]) expect(output).not.toContain(MODEL_KEY);
  });
});
