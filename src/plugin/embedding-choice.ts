// What the settings' embedding section means: no backend, a backend that cannot be used as set
// (an OpenAI-compatible server without a model name, a bad address), or a backend the job may use
// once the user has agreed. Consent is recorded as the backend and its address (`consentedTo`), so
// pointing the same settings at another server asks again before any note text goes there.
import { embeddingDisclosure, type EmbedConfig } from "../llm/embeddings/embed-spec";
import { DEFAULT_OLLAMA_BASE_URL, DEFAULT_OLLAMA_EMBEDDING_MODEL } from "../llm/embeddings/ollama-embedding";
import { readModelAtBaseUrl } from "../llm/model-at-base-url";
import { DEFAULT_OPENAI_COMPATIBLE_BASE_URL } from "../llm/openai-compatible";
import type { Settings } from "../settings";

export type EmbeddingSettings = Settings["search"]["embedding"];

export type EmbeddingChoice =
  | { kind: "off" }
  | { kind: "unusable"; message: string }
  | {
      kind: "chosen";
      config: Exclude<EmbedConfig, { kind: "none" }>;
      /** What `consentedTo` must equal before anything is embedded: `ollama@http://localhost:11434`. */
      consentKey: string;
      /** What leaves the device, in words (shown before the user agrees). */
      disclosure: string;
      consented: boolean;
    };

export function embeddingChoice(embedding: EmbeddingSettings): EmbeddingChoice {
  if (embedding.kind === "none") return { kind: "off" };
  const defaults = embedding.kind === "ollama" ? { baseUrl: DEFAULT_OLLAMA_BASE_URL, model: DEFAULT_OLLAMA_EMBEDDING_MODEL } : { baseUrl: DEFAULT_OPENAI_COMPATIBLE_BASE_URL };
  const rest = `${embedding.model.trim()}${embedding.baseUrl.trim() === "" ? "" : `@${embedding.baseUrl.trim()}`}`;
  const read = readModelAtBaseUrl(rest, defaults);
  if (!read.ok) {
    const message = read.problem === "no_model" ? "Name the embedding model the server should use." : "The embedding server's address must start with http:// or https://.";
    return { kind: "unusable", message };
  }
  const config = { kind: embedding.kind, model: read.model, baseUrl: read.baseUrl };
  const consentKey = `${config.kind}@${config.baseUrl}`;
  return { kind: "chosen", config, consentKey, disclosure: embeddingDisclosure(config), consented: embedding.consentedTo === consentKey };
}
