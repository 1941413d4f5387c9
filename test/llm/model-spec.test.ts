import { describe, expect, it } from "vitest";
import { parseEmbedSpec } from "../../src/llm/embeddings/embed-spec";
import { createChatModel, formatModelSpec, modelConfigFromSettings, parseModelSpec } from "../../src/llm/model-spec";
import { defaultSettings } from "../../src/settings";
import { fakeHttp, json } from "./fake-http";
import { stringContaining } from "../support/typed-matchers";

describe("parseModelSpec", () => {
  it.each([
    ["none", { kind: "none" }],
    ["NONE", { kind: "none" }],
    ["openai:llama3.1:8b", { kind: "openai", model: "llama3.1:8b", baseUrl: "http://localhost:11434/v1" }],
    ["openai:qwen2.5@http://127.0.0.1:1234/v1/", { kind: "openai", model: "qwen2.5", baseUrl: "http://127.0.0.1:1234/v1" }],
    ["openai:gpt-4o-mini@https://api.openai.com/v1", { kind: "openai", model: "gpt-4o-mini", baseUrl: "https://api.openai.com/v1" }],
    ["anthropic:claude-sonnet-4-5", { kind: "anthropic", model: "claude-sonnet-4-5" }],
  ])("reads %j", (spec, config) => {
    expect(parseModelSpec(spec)).toEqual({ ok: true, config });
  });

  it.each([
    ["", /empty/],
    ["openai", /names no model/],
    ["openai:", /names no model/],
    ["openai:m@localhost:1234", /http/],
    ["openai:m@ftp://x", /http/],
    ["anthropic:", /names no model/],
    ["anthropic:claude@https://x.org", /no base URL/],
    ["gemini:pro", /Unknown model kind "gemini"/],
  ])("explains what is wrong with %j", (spec, message) => {
    const result = parseModelSpec(spec);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.kind).toBe("usage");
      expect(result.error.message).toMatch(message);
    }
  });

  it("refuses a key given as the model (no kind), or after anthropic's @, without repeating it", () => {
    for (const spec of ["sk-proj-Abcdefghijklmnop0123456789", "AIzaSyAbcdefghijklmnop0123456789", "anthropic:claude@sk-ant-api03-Abcdefghijklmnop0123456789"]) {
      const parsed = parseModelSpec(spec);
      expect(parsed.ok, spec).toBe(false);
      expect(JSON.stringify(parsed), spec).not.toMatch(/Abcdefghijklmnop/i);
    }
    expect(parseModelSpec("sk-proj-Abcdefghijklmnop0123456789")).toMatchObject({ ok: false, error: { message: stringContaining("Unknown model kind a value that looks like an API key.") } });
    expect(parseModelSpec("anthropic:claude@x")).toMatchObject({ ok: false, error: { message: stringContaining('"anthropic:claude": anthropic models take no base URL (the part after @)') } });
  });

  it("refuses a base URL with a user name or password, in words that do not repeat it", () => {
    for (const spec of ["openai:llama3@http://me:s3cret-pw@localhost:1234/v1", "openai:m@https://s3cret-pw@proxy.example/v1"]) {
      const parsed = parseModelSpec(spec);
      expect(parsed.ok, spec).toBe(false);
      expect(JSON.stringify(parsed), spec).not.toContain("s3cret-pw");
      expect(JSON.stringify(parsed), spec).toContain("user name or password");
    }
  });

  // Settings refuse such an address; the spec took it, called `…/v1?api_key=…/chat/completions` and
  // printed it whole where it names the model's server (the MCP server's description of level 4).
  it("refuses a base URL with a ?query or #fragment, as settings do, without repeating it", () => {
    for (const spec of ["openai:m@https://proxy.example/v1?api_key=s3cret-pw", "openai:m@https://proxy.example/v1#s3cret-pw", "openai:m@https://proxy.example/v1?"]) {
      const parsed = parseModelSpec(spec);
      expect(parsed.ok, spec).toBe(false);
      expect(JSON.stringify(parsed), spec).not.toContain("s3cret-pw");
      expect(JSON.stringify(parsed), spec).toContain("?query or #fragment");
    }
    expect(parseEmbedSpec("openai:e@https://proxy.example/v1?key=s3cret-pw")).toMatchObject({ ok: false, error: { message: expect.not.stringContaining("s3cret-pw") as unknown } });
    expect(parseModelSpec("openai:m@https://proxy.example/v1")).toMatchObject({ ok: true });
  });

  it("refuses an API key given as the model's name (sent in every request, written into every trace), without repeating it", () => {
    for (const spec of ["openai:sk-proj-typed-as-model-0123@http://127.0.0.1:18080/v1", "openai:sk-proj-typed-as-model-0123", "anthropic:sk-ant-typed-as-model-0123"]) {
      const parsed = parseModelSpec(spec);
      expect(parsed.ok, spec).toBe(false);
      expect(JSON.stringify(parsed), spec).not.toContain("typed-as-model");
      expect(JSON.stringify(parsed), spec).toContain("looks like an API key");
    }
  });

  // The key shapes were read only at the start of the model's name: a key after a space (or a slash)
  // was taken as part of the name, or of the base URL (`/v1%20sk-…`), sent, and written into traces.
  it("refuses a key among the words of the model's name or of the base URL, without repeating it", () => {
    const key = "sk-proj-Abcdefghijklmnop0123456789";
    for (const spec of [
      `openai:m@http://localhost:1234/v1 ${key}`,
      `openai:m@http://localhost:1234/v1/${key}`,
      `openai:llama ${key}`,
      `openai:llama/${key}@http://localhost:1234/v1`,
      "anthropic:claude sk-ant-api03-Abcdefghijklmnop0123456789",
      "anthropic:claude sk-ant-api03-Abcdefghijklmnop0123456789@x",
    ]) {
      const parsed = parseModelSpec(spec);
      expect(parsed, spec).toMatchObject({ ok: false, error: { kind: "usage", message: stringContaining("looks like an API key") } });
      expect(JSON.stringify(parsed), spec).not.toContain("Abcdefghijklmnop");
    }
  });

  it("refuses a space inside the model's name or the base URL, naming the spec", () => {
    expect(parseModelSpec("openai:llama 3")).toMatchObject({ ok: false, error: { message: stringContaining('"openai:llama 3": a model\'s name holds no spaces') } });
    expect(parseModelSpec("anthropic:claude sonnet")).toMatchObject({ ok: false, error: { message: stringContaining('"anthropic:claude sonnet": a model\'s name holds no spaces') } });
    expect(parseModelSpec("openai:m@http://localhost:1234/v1 extra")).toMatchObject({ ok: false, error: { message: stringContaining('"http://localhost:1234/v1 extra" is not a valid http(s) base URL') } });
    // Real ids (Ollama, OpenRouter, LM Studio's, a GGUF from Hugging Face) and spaces around the spec are fine.
    for (const spec of [
      " openai:llama3.1:8b ",
      "openai:meta-llama/llama-3.1-8b-instruct@https://openrouter.ai/api/v1",
      "openai:lmstudio-community/Meta-Llama-3.1-8B-Instruct-GGUF@http://localhost:1234/v1",
      "openai:hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF:Q4_K_M",
      "anthropic:claude-sonnet-4-5-20250929",
    ]) {
      expect(parseModelSpec(spec).ok, spec).toBe(true);
    }
  });

  it("formats back to a spec that parses to the same config", () => {
    for (const spec of ["none", "openai:llama3.1:8b", "openai:m@http://127.0.0.1:8080/v1", "anthropic:claude-x"]) {
      const parsed = parseModelSpec(spec);
      if (!parsed.ok) throw new Error(parsed.error.message);
      expect(formatModelSpec(parsed.config)).toBe(spec);
    }
  });
});

describe("model config from settings", () => {
  it("means no model by default and when the model name is blank", () => {
    const model = defaultSettings().model;
    expect(modelConfigFromSettings(model)).toEqual({ kind: "none" });
    expect(modelConfigFromSettings({ ...model, kind: "openai", model: "  " })).toEqual({ kind: "none" });
  });

  it("carries the OpenAI-compatible base URL", () => {
    const model = { ...defaultSettings().model, kind: "openai" as const, model: "mistral", baseUrl: "http://127.0.0.1:1234/v1/" };
    expect(modelConfigFromSettings(model)).toEqual({ kind: "openai", model: "mistral", baseUrl: "http://127.0.0.1:1234/v1" });
  });
});

describe("createChatModel", () => {
  const http = fakeHttp(() => json(200, { choices: [{ message: { content: "ok" } }] }));

  it("gives no model for none, so the runner writes an evidence brief", () => {
    expect(createChatModel({ kind: "none" }, { http })).toEqual({ ok: true, model: null });
  });

  it("builds a keyless OpenAI-compatible model", async () => {
    const result = createChatModel({ kind: "openai", model: "m", baseUrl: "http://127.0.0.1:9/v1" }, { http });
    if (!result.ok || !result.model) throw new Error("expected a model");
    await result.model.complete({ system: "s", messages: [{ role: "user", content: "u" }] });
    expect(http.requests.at(-1)?.url).toBe("http://127.0.0.1:9/v1/chat/completions");
  });

  it("refuses an Anthropic model without a key", () => {
    const result = createChatModel({ kind: "anthropic", model: "m" }, { http, apiKey: null });
    expect(result).toEqual({ ok: false, error: { kind: "missing_key", message: stringContaining("API key") } });
  });
});
