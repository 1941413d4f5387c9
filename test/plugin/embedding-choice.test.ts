import { describe, expect, it } from "vitest";
import { embeddingChoice } from "../../src/plugin/embedding-choice";
import { defaultSettings, loadSettings } from "../../src/settings";

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

describe("embeddingChoice says what is wrong with the settings, one problem each", () => {
  // Reached through loading (a data.json edited by hand, an older version's settings) and the settings
  // tab alike: settings validation checks the address field, and a model name only for a key's look.
  const loaded = (values: Record<string, unknown>) => {
    const load = loadSettings({ search: { embedding: { kind: "openai", ...values } } });
    expect(load.problems).toEqual([]);
    return embeddingChoice(load.settings.search.embedding);
  };

  it("a model name carrying an address with a ?query or #fragment: the settings' own words, the address not repeated", () => {
    for (const model of ["nomic-embed-text@http://127.0.0.1:1234/v1?key=abc123", "nomic-embed-text@http://127.0.0.1:1234/v1#key"]) {
      const choice = loaded({ model });
      expect(choice).toEqual({ kind: "unusable", message: "Embedding model, the address after @: expected an address without ?query or #fragment (paths are added after it)." });
    }
  });

  it("a model name carrying an address with a user name or password", () => {
    const choice = loaded({ model: "nomic-embed-text@http://alice:secret@127.0.0.1:1234/v1" });
    expect(choice).toEqual({ kind: "unusable", message: "Embedding model, the address after @: expected an address without a user name or password (a key goes in secret storage, not in the address)." });
    if (choice.kind === "unusable") expect(choice.message).not.toContain("secret@");
  });

  it("a model name carrying no address at all after @, or one that is no address", () => {
    for (const model of ["nomic-embed-text@localhost", "nomic-embed-text@localhost:1234", "nomic-embed-text@gpu-box", "nomic-embed-text@192.168.1.5:1234/v1", "nomic-embed-text@example.com", "nomic-embed-text@//host"]) {
      expect(loaded({ model }), model).toEqual({ kind: "unusable", message: "Embedding model: the part after @ is no http:// or https:// address; the server's address goes in the embedding server address." });
    }
    expect(loaded({ model: "nomic-embed-text@http://" })).toEqual({ kind: "unusable", message: "Embedding model, the address after @: expected an http(s) address." });
  });

  it("a model name carrying an address while the address field names one too: two addresses, not a password", () => {
    expect(loaded({ model: "nomic-embed-text@http://127.0.0.1:1234/v1", baseUrl: "http://127.0.0.1:5678/v1" })).toEqual({
      kind: "unusable",
      message: "Embedding model: the name carries a server address after @, and the embedding server address names one too; keep the address there only.",
    });
  });

  it("an address field settings were never asked about (values set in code): the settings' words, under the field's name", () => {
    expect(embeddingChoice(embedding({ kind: "ollama", baseUrl: "http://127.0.0.1:11434/?key=abc123" }))).toEqual({ kind: "unusable", message: "Embedding server address: expected an address without ?query or #fragment (paths are added after it)." });
    expect(embeddingChoice(embedding({ kind: "ollama", baseUrl: "ftp://127.0.0.1" }))).toEqual({ kind: "unusable", message: "Embedding server address: expected an http(s) address." });
  });

  // LM Studio names each quantisation of a model after an @: the name, not an address without its scheme.
  it("a model name ending in a quantisation tag is the model's name, with the address field or without it", () => {
    expect(loaded({ model: "text-embedding-nomic-embed-text-v1.5@q8_0" })).toMatchObject({ kind: "chosen", config: { model: "text-embedding-nomic-embed-text-v1.5@q8_0", baseUrl: "http://localhost:11434/v1" } });
    expect(loaded({ model: "text-embedding-nomic-embed-text-v1.5@q8_0", baseUrl: "http://127.0.0.1:1234/v1" })).toMatchObject({
      kind: "chosen",
      config: { model: "text-embedding-nomic-embed-text-v1.5@q8_0", baseUrl: "http://127.0.0.1:1234/v1" },
      consentKey: "openai@http://127.0.0.1:1234/v1",
    });
  });

  it("a model name carrying a sound address, the field empty, is still used as before", () => {
    expect(loaded({ model: "nomic-embed-text@http://127.0.0.1:1234/v1/" })).toMatchObject({ kind: "chosen", config: { model: "nomic-embed-text", baseUrl: "http://127.0.0.1:1234/v1" } });
  });
});
