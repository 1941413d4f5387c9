// Ollama's native embedding endpoint: POST {base}/api/embed { model, input: [...], truncate }
// → { embeddings: number[][] }. (The older /api/embeddings takes one prompt per request; /api/embed
// takes a batch.) `truncate: true` lets Ollama cut a text longer than the model's context instead
// of failing the whole batch.
import { systemClock } from "../../ports";
import {
  DEFAULT_EMBEDDING_BATCH,
  DEFAULT_EMBEDDING_REQUESTS_PER_SECOND,
  DEFAULT_EMBEDDING_TIMEOUT_MS,
  embeddingError,
  type EmbeddingClientOptions,
  type EmbeddingModel,
} from "./embedding-model";
import { embeddingPrefixes } from "./embedding-prefixes";
import { embedInBatches, isRecord, originOf, postEmbeddingJson, type BatchAnswer, type EmbeddingServer } from "./embedding-request";
import { rateCap } from "./rate-cap";

export const DEFAULT_OLLAMA_BASE_URL = "http://localhost:11434";
export const DEFAULT_OLLAMA_EMBEDDING_MODEL = "nomic-embed-text";

export function ollamaEmbeddingModel(options: EmbeddingClientOptions): EmbeddingModel {
  const baseUrl = (options.baseUrl ?? DEFAULT_OLLAMA_BASE_URL).replace(/\/+$/, "");
  const apiKey = options.apiKey ?? undefined;
  const clock = options.clock ?? systemClock;
  const server: EmbeddingServer = {
    http: options.http,
    clock,
    timeoutMs: options.timeoutMs ?? DEFAULT_EMBEDDING_TIMEOUT_MS,
    rate: rateCap(options.requestsPerSecond ?? DEFAULT_EMBEDDING_REQUESTS_PER_SECOND, clock),
    serverName: `Ollama at ${originOf(baseUrl)}`,
    secrets: apiKey ? [apiKey] : [],
  };
  const prefixes = embeddingPrefixes(options.model);
  const sendBatch = async (input: string[], signal?: AbortSignal): Promise<BatchAnswer> => {
    const answer = await postEmbeddingJson(server, {
      url: `${baseUrl}/api/embed`,
      headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
      body: { model: options.model, input, truncate: true },
      signal,
      errorMessageOf: ollamaErrorMessage,
    });
    if (!answer.ok) return answer;
    const body = answer.body;
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
        { batchSize: options.batchSize ?? DEFAULT_EMBEDDING_BATCH, serverName: server.serverName, expectedDimensions: options.expectedDimensions, signal },
        (batch) => sendBatch(batch, signal),
      );
    },
  };
}

function ollamaErrorMessage(body: unknown): string | undefined {
  return isRecord(body) && typeof body.error === "string" ? body.error : undefined;
}
