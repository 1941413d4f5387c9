import { describe, expect, it } from "vitest";
import { createEmbeddingModel, embeddingDisclosure, embedSecretNameFor, formatEmbedSpec, parseEmbedSpec } from "../../../src/llm/embeddings/embed-spec";
import { fakeHttp } from "../fake-http";

describe("--embed SPEC", () => {
  it.each([
    ["none", { kind: "none" }],
    ["ollama", { kind: "ollama", model: "nomic-embed-text", baseUrl: "http://localhost:11434" }],
    ["ollama:mxbai-embed-large", { kind: "ollama", model: "mxbai-embed-large", baseUrl: "http://localhost:11434" }],
    ["ollama:nomic-embed-text:v1.5@http://gpu-box:11434/", { kind: "ollama", model: "nomic-embed-text:v1.5", baseUrl: "http://gpu-box:11434" }],
    ["ollama@http://gpu-box:11434", { kind: "ollama", model: "nomic-embed-text", baseUrl: "http://gpu-box:11434" }],
    ["openai:text-embedding-3-small@https://api.openai.com/v1", { kind: "openai", model: "text-embedding-3-small", baseUrl: "https://api.openai.com/v1" }],
    ["OpenAI:nomic-embed-text", { kind: "openai", model: "nomic-embed-text", baseUrl: "http://localhost:11434/v1" }],
  ])("%s", (spec, config) => {
    expect(parseEmbedSpec(spec)).toEqual({ ok: true, config });
  });

  it.each([
    ["", /empty/],
    ["openai", /names no model/],
    ["openai:@http://x", /names no model/],
    ["ollama:m@gpu-box", /must be an http/],
    ["openai:m@ftp://x", /must be an http/],
    ["anthropic:claude", /Unknown embedding kind "anthropic"/],
  ])("refuses %j with a usage error", (spec, words) => {
    const parsed = parseEmbedSpec(spec);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.error.kind).toBe("usage");
      expect(parsed.error.message).toMatch(words);
    }
  });

  it("refuses a key given as the embedding model, without a kind, without repeating it", () => {
    for (const spec of ["sk-Abcdefghijklmnop0123456789", "AIzaSyAbcdefghijklmnop0123456789", "tvly-Abcdefghijklmnop0123456789@http://x"]) {
      const parsed = parseEmbedSpec(spec);
      expect(parsed, spec).toMatchObject({ ok: false, error: { kind: "usage" } });
      expect(JSON.stringify(parsed), spec).not.toMatch(/Abcdefghijklmnop/i);
      if (!parsed.ok) expect(parsed.error.message, spec).toContain("Unknown embedding kind a value that looks like an API key.");
    }
  });

  it("formats back to the shortest spec that gives the same config", () => {
    for (const spec of ["none", "ollama:nomic-embed-text", "ollama:x@http://gpu:1", "openai:m", "openai:m@https://api.openai.com/v1"]) {
      const parsed = parseEmbedSpec(spec);
      expect(parsed.ok && formatEmbedSpec(parsed.config)).toBe(spec);
    }
  });

  it("names the secret an OpenAI-compatible server may use, and none for Ollama", () => {
    expect(embedSecretNameFor({ kind: "openai", model: "m", baseUrl: "https://api.openai.com/v1" })).toBe("openai");
    expect(embedSecretNameFor({ kind: "ollama", model: "m", baseUrl: "http://localhost:11434" })).toBeNull();
    expect(embedSecretNameFor({ kind: "none" })).toBeNull();
  });

  it("says what leaves the device, and whether the address is this computer", () => {
    expect(embeddingDisclosure({ kind: "none" })).toMatch(/nothing leaves the device/);
    expect(embeddingDisclosure({ kind: "ollama", model: "nomic-embed-text", baseUrl: "http://localhost:11434" })).toMatch(
      /text of every note .* to http:\/\/localhost:11434 \(nomic-embed-text\)\. That address is this computer\./,
    );
    expect(embeddingDisclosure({ kind: "openai", model: "text-embedding-3-small", baseUrl: "https://api.openai.com/v1" })).toMatch(/https:\/\/api\.openai\.com .*leaves this device/);
  });

  it("refuses a base URL with a user name or password, in words that do not repeat it", () => {
    const parsed = parseEmbedSpec("ollama:nomic-embed-text@http://me:s3cret-pw@localhost:11434");
    expect(parsed.ok).toBe(false);
    expect(JSON.stringify(parsed)).not.toContain("s3cret-pw");
  });

  it("refuses an API key given as the model's name, without repeating it", () => {
    const parsed = parseEmbedSpec("openai:sk-proj-typed-as-model-0123@http://127.0.0.1:18080/v1");
    expect(parsed.ok).toBe(false);
    expect(JSON.stringify(parsed)).not.toContain("typed-as-model");
    expect(JSON.stringify(parsed)).toContain("looks like an API key");
  });

  it("refuses a key among the words of the model's name or of the base URL, and a space in either, as --model does", () => {
    const key = "sk-proj-Abcdefghijklmnop0123456789";
    for (const spec of [`ollama:nomic-embed-text ${key}`, `openai:e@http://localhost:1234/v1 ${key}`, `ollama@http://gpu-box:11434/${key}`]) {
      const parsed = parseEmbedSpec(spec);
      expect(parsed, spec).toMatchObject({ ok: false, error: { kind: "usage" } });
      expect(JSON.stringify(parsed), spec).toContain("looks like an API key");
      expect(JSON.stringify(parsed), spec).not.toContain("Abcdefghijklmnop");
    }
    expect(parseEmbedSpec("ollama:nomic embed")).toMatchObject({ ok: false, error: { message: expect.stringContaining("a model's name holds no spaces") as unknown } });
    expect(parseEmbedSpec("ollama@http://gpu-box:11434/ x")).toMatchObject({ ok: false, error: { message: expect.stringContaining("is not a valid http(s) base URL") as unknown } });
  });

  it("judges 'this computer' by the address's host, not its text: a user name that reads like localhost is not", () => {
    const said = (baseUrl: string) => embeddingDisclosure({ kind: "ollama", model: "m", baseUrl });
    expect(said("http://localhost:11434@evil.example")).toMatch(/another computer: the text leaves this device/);
    expect(said("http://127.0.0.1.evil.example:11434")).toMatch(/another computer/);
    for (const local of ["http://127.0.0.2:11434", "http://[::1]:11434", "http://LOCALHOST:11434/", "http://ollama.localhost"]) expect(said(local), local).toMatch(/That address is this computer\./);
  });

  it("makes a client for each kind, and none for none (nothing is called)", () => {
    const http = fakeHttp(() => ({ status: 500, headers: {}, text: "" }));
    expect(createEmbeddingModel({ kind: "none" }, { http })).toBeNull();
    expect(createEmbeddingModel({ kind: "ollama", model: "nomic-embed-text", baseUrl: "http://localhost:11434" }, { http })?.name).toBe("ollama:nomic-embed-text");
    expect(createEmbeddingModel({ kind: "openai", model: "m", baseUrl: "http://localhost:1234/v1" }, { http })?.name).toBe("openai:m");
    expect(http.requests).toHaveLength(0);
  });
});
