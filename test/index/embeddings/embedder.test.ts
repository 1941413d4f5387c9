// index/ may not import llm/, so the embedding lane states the shape it needs (embedder.ts) and
// llm/embeddings' clients fill it. These checks fail to compile if the two drift apart.
import { describe, expect, it } from "vitest";
import type { Embedder, EmbedderFailureKind } from "../../../src/index/embeddings/embedder";
import type { EmbeddingErrorKind } from "../../../src/llm/embeddings/embedding-model";
import { ollamaEmbeddingModel } from "../../../src/llm/embeddings/ollama-embedding";
import { openAiEmbeddingModel } from "../../../src/llm/embeddings/openai-embedding";
import { fakeHttp } from "../../llm/fake-http";

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

describe("the lane's Embedder port and llm's EmbeddingModel", () => {
  it("have the same closed set of error kinds", () => {
    const agree: Same<EmbeddingErrorKind, EmbedderFailureKind> = true;
    expect(agree).toBe(true);
  });

  it("both clients are Embedders", () => {
    const http = fakeHttp(() => ({ status: 500, headers: {}, text: "" }));
    const clients: Embedder[] = [ollamaEmbeddingModel({ http, model: "nomic-embed-text" }), openAiEmbeddingModel({ http, model: "m" })];
    expect(clients.map((c) => c.name)).toEqual(["ollama:nomic-embed-text", "openai:m"]);
  });
});
