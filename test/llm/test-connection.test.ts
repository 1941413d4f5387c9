import { describe, expect, it } from "vitest";
import { testConnection } from "../../src/llm/test-connection";
import { openAiCompatibleModel } from "../../src/llm/openai-compatible";
import { anthropicModel } from "../../src/llm/anthropic";
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

  it("does not show the key a server reports as its model's name or says in its reply", async () => {
    const key = "sk-proj-echoedBack7Hq2Wz9Lm4";
    const openAi = fakeHttp((req) => {
      const sent = (req.headers?.authorization ?? "").replace(/^Bearer /, "");
      return json(200, { model: sent, choices: [{ message: { content: `ok ${sent}` } }] });
    });
    const anthropic = fakeHttp((req) => json(200, { type: "message", model: req.headers?.["x-api-key"], content: [{ type: "text", text: `ok ${req.headers?.["x-api-key"]}` }] }));
    for (const model of [openAiCompatibleModel({ http: openAi, model: "m", apiKey: key }), anthropicModel({ http: anthropic, model: "m", apiKey: key })]) {
      const result = await testConnection(model);
      expect(result.ok).toBe(true);
      // The server did echo it: the test would pass for a server that said nothing.
      expect(JSON.stringify(result)).toContain("[redacted]");
      expect(JSON.stringify(result)).not.toContain(key);
    }
  });

  it("leaves a local server's placeholder key (`ollama`) in the reply: it is no credential, and the reply's own words", async () => {
    const http = fakeHttp(() => json(200, { model: "ollama/llama3", choices: [{ message: { content: "ok, ollama here" } }] }));
    const result = await testConnection(openAiCompatibleModel({ http, model: "llama3", apiKey: "ollama" }));
    expect(result).toMatchObject({ ok: true, model: "ollama/llama3", reply: "ok, ollama here" });
  });

  it("gives up on the call it timed out, so a server that never finishes is not left answering a test no one waits for", async () => {
    let seen: AbortSignal | undefined;
    const model: ChatModel = {
      name: "openai:slow",
      complete: (req) => {
        seen = req.signal;
        return new Promise(() => {});
      },
    };
    // The deadline's timer ends at once: the call never answered.
    const clock: Clock = { now: () => 0, sleep: () => Promise.resolve() };
    const result = await testConnection(model, { clock, timeoutMs: 30_000 });
    expect(result).toMatchObject({ ok: false, error: { kind: "timeout" } });
    expect(seen?.aborted).toBe(true);
  });
});
