import { describe, expect, it } from "vitest";
import { testConnection } from "../../src/llm/test-connection";
import { openAiCompatibleModel } from "../../src/llm/openai-compatible";
import { ModelError, type ChatModel } from "../../src/llm/chat-model";
import { systemClock, type Clock } from "../../src/ports";
import { fakeHttp, json } from "./fake-http";

/** Each reading is `stepMs` later; the deadline's timer is a real one. */
function steppingClock(stepMs: number): Clock {
  let now = 1_000;
  return { now: () => (now += stepMs), sleep: (ms, signal) => systemClock.sleep(ms, signal) };
}

describe("testConnection", () => {
  it("reports the model that answered and how long it took", async () => {
    const http = fakeHttp(() => json(200, { model: "llama3.1:8b-instruct", choices: [{ message: { content: " ok " } }] }));
    const result = await testConnection(openAiCompatibleModel({ http, model: "llama3.1:8b" }), { clock: steppingClock(40) });
    expect(result).toMatchObject({ ok: true, model: "llama3.1:8b-instruct", ms: 40, reply: "ok" });
    expect(result.message).toBe("Connected to llama3.1:8b-instruct in 40 ms.");
    expect((JSON.parse(http.requests[0].body ?? "{}") as { max_tokens?: unknown }).max_tokens).toBeGreaterThanOrEqual(16);
  });

  it("says how long the call took on the monotonic reading, whatever the wall clock did meanwhile", async () => {
    let monotonic = 7_000;
    const wall = { at: 1_000_000 };
    const clock: Clock = { now: () => wall.at, monotonicNow: () => monotonic, sleep: (ms, signal) => systemClock.sleep(ms, signal) };
    const model: ChatModel = {
      name: "m",
      complete: async () => {
        wall.at -= 3_600_000; // set back an hour while the model answers
        monotonic += 800;
        return { text: "ok", model: "m" };
      },
    };
    const result = await testConnection(model, { clock });
    expect(result.message).toBe("Connected to m in 800 ms.");
  });

  it("reports the model's error in words, without the key", async () => {
    const http = fakeHttp(() => json(401, { error: { message: "bad key sk-secret-0000000000" } }));
    const result = await testConnection(openAiCompatibleModel({ http, model: "m", apiKey: "sk-secret-0000000000" }));
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.kind).toBe("auth");
      expect(result.message).toMatch(/^Could not use openai:m: /);
      expect(result.message).not.toContain("sk-secret-0000000000");
    }
  });

  it("times out a model that never answers", async () => {
    const stuck: ChatModel = { name: "stuck", complete: () => new Promise(() => undefined) };
    const result = await testConnection(stuck, { timeoutMs: 30 });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toEqual(expect.any(ModelError));
    if (!result.ok) expect(result.error.kind).toBe("timeout");
  });
});
