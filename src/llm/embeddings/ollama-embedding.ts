// Ollama's native embedding endpoint: POST {base}/api/embed { model, input: [...], truncate }
// → { embeddings: number[][] }. (The older /api/embeddings takes one prompt per request; /api/embed
// takes a batch.) `truncate: true` lets Ollama cut a text longer than the model's context instead
// of failing the whole batch.
import {
  DEFAULT_EMBEDDING_BATCH,
  embeddingError,
  type EmbeddingClientOptions,
  type EmbeddingModel,
} from "./embedding-model";
import { embeddingPrefixes } from "./embedding-prefixes";
import { embedInBatches, embeddingServer, errorReportedWith200, isRecord, postEmbeddingJson, type BatchAnswer, type BatchSize } from "./embedding-request";

export const DEFAULT_OLLAMA_BASE_URL = "http://localhost:11434";
export const DEFAULT_OLLAMA_EMBEDDING_MODEL = "nomic-embed-text";

export function ollamaEmbeddingModel(options: EmbeddingClientOptions): EmbeddingModel {
  const { baseUrl, server } = embeddingServer(options, DEFAULT_OLLAMA_BASE_URL, (origin) => `Ollama at ${origin}`);
  const prefixes = embeddingPrefixes(options.model);
  const batch: BatchSize = { texts: options.batchSize ?? DEFAULT_EMBEDDING_BATCH };
  const sendBatch = async (input: string[], paced: boolean, signal?: AbortSignal): Promise<BatchAnswer> => {
    const answer = await postEmbeddingJson(server, {
      url: `${baseUrl}/api/embed`,
      headers: options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {},
      body: { model: options.model, input, truncate: true },
      signal,
      paced,
      errorMessageOf: ollamaErrorMessage,
    });
    if (!answer.ok) return answer;
    const body = answer.body;
    // LM Studio answers a route it does not serve (an OpenAI-compatible base given as Ollama's) with a 200 and an error.
    if (isRecord(body) && !Array.isArray(body.embeddings) && body.error !== undefined && body.error !== null) {
      return { ok: false, error: errorReportedWith200(server.serverName, ollamaErrorMessage(body), server.secrets) };
    }
    if (!isRecord(body) || !Array.isArray(body.embeddings)) {
      return { ok: false, error: embeddingError("parse", `${server.serverName} sent JSON without "embeddings".`) };
    }
    return { ok: true, vectors: body.embeddings };
  };
  return {
    name: `ollama:${options.model}`,
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

/** Ollama's `{error: "…"}`, or the `{error: {message}}` of a server in front of it that speaks OpenAI's way. */
function ollamaErrorMessage(body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  if (typeof body.error === "string") return body.error;
  return isRecord(body.error) && typeof body.error.message === "string" ? body.error.message : undefined;
}
