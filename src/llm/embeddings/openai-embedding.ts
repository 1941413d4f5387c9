// Embeddings behind an OpenAI-style endpoint: POST {base}/embeddings { model, input: [...],
// encoding_format: "float" } → { data: [{ index, embedding }] }. LM Studio, llama.cpp's server
// (started with --embeddings), vLLM, Ollama's /v1 and OpenAI itself. Items are put back in input
// order by `index`, as the API allows them to arrive in any order.
import {
  DEFAULT_EMBEDDING_BATCH,
  embeddingError,
  type EmbeddingClientOptions,
  type EmbeddingModel,
} from "./embedding-model";
import { embeddingPrefixes } from "./embedding-prefixes";
import { embedInBatches, embeddingServer, errorReportedWith200, isRecord, postEmbeddingJson, type BatchAnswer, type BatchSize } from "./embedding-request";
import { DEFAULT_OPENAI_COMPATIBLE_BASE_URL } from "../openai-compatible";

export function openAiEmbeddingModel(options: EmbeddingClientOptions): EmbeddingModel {
  const { baseUrl, server } = embeddingServer(options, DEFAULT_OPENAI_COMPATIBLE_BASE_URL, (origin) => `the embedding server at ${origin}`);
  const prefixes = embeddingPrefixes(options.model);
  const batch: BatchSize = { texts: options.batchSize ?? DEFAULT_EMBEDDING_BATCH };
  const sendBatch = async (input: string[], paced: boolean, signal?: AbortSignal): Promise<BatchAnswer> => {
    const answer = await postEmbeddingJson(server, {
      url: `${baseUrl}/embeddings`,
      headers: options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {},
      body: { model: options.model, input, encoding_format: "float" },
      signal,
      paced,
      errorMessageOf: openAiErrorMessage,
    });
    if (!answer.ok) return answer;
    return readEmbeddingList(answer.body, input.length, server.serverName, server.secrets);
  };
  return {
    name: `openai:${options.model}`,
    embed(texts, role, signal) {
      const prefix = role === "query" ? prefixes.query : prefixes.document;
      return embedInBatches(
        texts.map((t) => prefix + t),
        { batch, serverName: server.serverName, expectedDimensions: options.expectedDimensions, signal },
        (batch) => sendBatch(batch, role === "document", signal),
      );
    },
  };
}

/** `data[]` back in input order; exported for tests of odd server shapes. `secrets` never appear in a message. */
export function readEmbeddingList(body: unknown, count: number, serverName: string, secrets: string[] = []): BatchAnswer {
  // Some servers report errors with a 200 status (and some name no error as `error: null`).
  if (isRecord(body) && body.error !== undefined && body.error !== null) return { ok: false, error: errorReportedWith200(serverName, openAiErrorMessage(body), secrets) };
  if (!isRecord(body) || !Array.isArray(body.data)) {
    return { ok: false, error: embeddingError("parse", `${serverName} sent JSON without "data".`) };
  }
  const vectors = new Array<unknown>(count);
  for (const [position, item] of body.data.entries()) {
    if (!isRecord(item)) return { ok: false, error: embeddingError("parse", `${serverName} sent an embedding that is not an object.`) };
    const index = typeof item.index === "number" ? item.index : position;
    if (!Number.isInteger(index) || index < 0 || index >= count || vectors[index] !== undefined) {
      return { ok: false, error: embeddingError("parse", `${serverName} sent an embedding with a bad index (${String(item.index)}).`) };
    }
    vectors[index] = item.embedding;
  }
  return { ok: true, vectors: body.data.length === count ? vectors : body.data.map((item) => (isRecord(item) ? item.embedding : null)) };
}

function openAiErrorMessage(body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  const error = body.error;
  if (typeof error === "string") return error;
  if (isRecord(error) && typeof error.message === "string") return error.message;
  if (typeof body.message === "string") return body.message;
  return undefined;
}
