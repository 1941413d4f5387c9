import { describe, expect, it } from "vitest";
import { embeddingChoice } from "../../src/plugin/embedding-choice";
import { defaultSettings } from "../../src/settings";

const embedding = (change: Partial<ReturnType<typeof defaultSettings>["search"]["embedding"]>) => ({ ...defaultSettings().search.embedding, ...change });

describe("embeddingChoice", () => {
  it("is off with no backend", () => {
    expect(embeddingChoice(embedding({}))).toEqual({ kind: "off" });
  });

  it("fills Ollama's defaults and asks for consent to that backend and address", () => {
    const choice = embeddingChoice(embedding({ kind: "ollama" }));
    expect(choice).toMatchObject({ kind: "chosen", config: { kind: "ollama", model: "nomic-embed-text", baseUrl: "http://localhost:11434" }, consentKey: "ollama@http://localhost:11434", consented: false });
    if (choice.kind === "chosen") expect(choice.disclosure).toMatch(/text of every note/);
  });

  it("is consented only while consentedTo names the same backend and address", () => {
    const agreed = embedding({ kind: "openai", model: "e5", baseUrl: "http://127.0.0.1:1234/v1", consentedTo: "openai@http://127.0.0.1:1234/v1" });
    expect(embeddingChoice(agreed)).toMatchObject({ consented: true });
    expect(embeddingChoice({ ...agreed, baseUrl: "https://api.openai.com/v1" })).toMatchObject({ consented: false });
    expect(embeddingChoice({ ...agreed, kind: "ollama" })).toMatchObject({ consented: false });
  });

  it("says what is missing when an OpenAI-compatible server has no model name", () => {
    expect(embeddingChoice(embedding({ kind: "openai" }))).toEqual({ kind: "unusable", message: "Name the embedding model the server should use." });
  });
});
