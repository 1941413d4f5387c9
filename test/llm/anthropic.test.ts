import { describe, expect, it } from "vitest";
import { anthropicModel, parseAnthropicMessage } from "../../src/llm/anthropic";
import { ModelError } from "../../src/llm/chat-model";
import { fakeHttp, json } from "./fake-http";

const message = (text: string) => ({
  id: "msg_1",
  type: "message",
  role: "assistant",
  model: "claude-sonnet-4-5",
  content: [{ type: "text", text }],
  stop_reason: "end_turn",
  usage: { input_tokens: 20, output_tokens: 5 },
});

const ask = { system: "Cite keys.", messages: [{ role: "user" as const, content: "Question" }] };

describe("Anthropic model", () => {
  it("posts to /v1/messages with the key, API version and a top-level system prompt", async () => {
    const http = fakeHttp(() => json(200, message("Answer [src:0123456789]")));
    const model = anthropicModel({ http, model: "claude-sonnet-4-5", apiKey: "test-key-abc" });
    const response = await model.complete({ ...ask, maxTokens: 300 });

    const req = http.requests[0];
    expect(req.url).toBe("https://api.anthropic.com/v1/messages");
    expect(req.headers).toMatchObject({ "x-api-key": "test-key-abc", "anthropic-version": "2023-06-01" });
    expect(req.headers?.authorization).toBeUndefined();
    expect(http.lastBody()).toEqual({
      model: "claude-sonnet-4-5",
      system: "Cite keys.",
      messages: [{ role: "user", content: "Question" }],
      max_tokens: 300,
      temperature: 0.2,
    });
    expect(response).toEqual({
      text: "Answer [src:0123456789]",
      model: "claude-sonnet-4-5",
      usage: { inputTokens: 20, outputTokens: 5 },
    });
  });

  it("says a reply that is a call to a tool, with no text, is one: no tool is offered", () => {
    const body = { ...message(""), content: [{ type: "tool_use", id: "t1", name: "search_web", input: {} }], stop_reason: "tool_use" };
    expect(() => parseAnthropicMessage(body, "m")).toThrow(new ModelError("parse", "Anthropic answered with a call to a tool (search_web) instead of text; no tool was offered."));
  });

  it("joins text blocks and skips thinking blocks", () => {
    const body = { ...message(""), content: [{ type: "thinking", thinking: "hmm" }, { type: "text", text: "A" }, { type: "text", text: "B" }] };
    expect(parseAnthropicMessage(body, "m").text).toBe("AB");
  });

  it("takes the model's name from the answer only when it is one short line", () => {
    expect(parseAnthropicMessage({ ...message("A"), model: "claude-sonnet-4-5-20250929" }, "m").model).toBe("claude-sonnet-4-5-20250929");
    expect(parseAnthropicMessage({ ...message("A"), model: "c".repeat(5_000) }, "m").model).toBe("m");
  });

  it("marks an answer cut at max_tokens, and one stopped as a refusal", () => {
    expect(parseAnthropicMessage({ ...message("part"), stop_reason: "max_tokens" }, "m").truncated).toBe(true);
    expect(parseAnthropicMessage({ ...message("I can start on th"), stop_reason: "refusal" }, "m")).toMatchObject({ text: "I can start on th", refused: true });
    expect(parseAnthropicMessage(message("whole"), "m").refused).toBeUndefined();
  });

  it.each([
    [401, "authentication_error", "auth"],
    [429, "rate_limit_error", "rate_limited"],
    [529, "overloaded_error", "unavailable"],
    [400, "invalid_request_error", "http"],
  ])("turns HTTP %i (%s) into a %s error without the key", async (status, type, kind) => {
    const http = fakeHttp(() => json(status, { type: "error", error: { type, message: `problem with test-key-abc` } }));
    const error = await anthropicModel({ http, model: "m", apiKey: "test-key-abc" }).complete(ask).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).kind).toBe(kind);
    expect((error as ModelError).message).not.toContain("test-key-abc");
  });

  it("never repeats the key when an error comes inside a 200 answer", async () => {
    const http = fakeHttp(() => json(200, { type: "error", error: { type: "authentication_error", message: "invalid x-api-key: test-key-abc" } }));
    const error = await anthropicModel({ http, model: "m", apiKey: "test-key-abc" }).complete(ask).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).message).toContain("invalid x-api-key");
    expect((error as ModelError).message).not.toContain("test-key-abc");
  });

  it("quotes at most 200 characters of an error message of megabytes", async () => {
    for (const status of [400, 200]) {
      const http = fakeHttp(() => json(status, { type: "error", error: { type: "invalid_request_error", message: `prompt is too long: ${"9".repeat(3_000_000)}` } }));
      const error = (await anthropicModel({ http, model: "m", apiKey: "test-key-abc" }).complete(ask).catch((e: unknown) => e)) as ModelError;
      expect(error.message).toMatch(/prompt is too long: 9+…$/);
      expect(error.message.length).toBeLessThan(260);
    }
  });

  it("refuses to call without a key", async () => {
    const http = fakeHttp(() => json(200, message("x")));
    const error = await anthropicModel({ http, model: "m", apiKey: "" }).complete(ask).catch((e: unknown) => e);
    expect((error as ModelError).kind).toBe("auth");
    expect(http.requests).toHaveLength(0);
  });

  it.each([
    [529, "overloaded_error", "unavailable", "busy"],
    [404, "not_found_error", "unavailable", "model_not_found"],
    [400, "invalid_request_error", "http", "request_refused"],
    [500, "api_error", "http", "server_error"],
  ])("names why HTTP %i (%s) failed: its kind %s, its reason %s", async (status, type, kind, reason) => {
    const said = type === "not_found_error" ? "model: claude-9" : "problem";
    const http = fakeHttp(() => json(status, { type: "error", error: { type, message: said } }));
    const error = (await anthropicModel({ http, model: "claude-9", apiKey: "test-key-abc" }).complete(ask).catch((e: unknown) => e)) as ModelError;
    expect(error).toMatchObject({ kind, details: { status, reason } });
  });

  it("an overloaded_error passed on inside a 200 is a busy server, not an error to check settings for", async () => {
    const http = fakeHttp(() => json(200, { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }));
    const error = (await anthropicModel({ http, model: "m", apiKey: "test-key-abc" }).complete(ask).catch((e: unknown) => e)) as ModelError;
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ kind: "unavailable", details: { reason: "busy" } });
    expect(error.message).toBe("Anthropic is overloaded: Overloaded");
  });

  it("cuts an answer far past its max_tokens and marks it cut", async () => {
    const http = fakeHttp(() => json(200, message("x".repeat(5_000_000))));
    const response = await anthropicModel({ http, model: "m", apiKey: "test-key-abc" }).complete({ ...ask, maxTokens: 300 });
    expect(response.text.length).toBeLessThanOrEqual(4_800);
    expect(response.truncated).toBe(true);
  });
});
