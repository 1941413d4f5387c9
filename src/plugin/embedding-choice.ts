// What the settings' embedding section means: no backend, a backend that cannot be used as set
// (an OpenAI-compatible server without a model name, a bad address), or a backend the job may use
// once the user has agreed. Consent is recorded as the backend and its address (`consentedTo`), so
// pointing the same settings at another server asks again before any note text goes there.
import { embeddingDisclosure, type EmbedConfig } from "../llm/embeddings/embed-spec";
import { DEFAULT_OLLAMA_BASE_URL, DEFAULT_OLLAMA_EMBEDDING_MODEL } from "../llm/embeddings/ollama-embedding";
import { readModelAtBaseUrl, type ModelAtBaseUrl } from "../llm/model-at-base-url";
import { DEFAULT_OPENAI_COMPATIBLE_BASE_URL } from "../llm/openai-compatible";
import { settingsSchema, type Settings } from "../settings";

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
  const model = embedding.model.trim();
  const address = embedding.baseUrl.trim();
  const refused = address === "" ? null : settingsWords({ baseUrl: address });
  if (refused) return { kind: "unusable", message: `Embedding server address: ${refused}.` };
  const read = readModelAtBaseUrl(address === "" ? model : `${model}@${address}`, defaults);
  // With the field set, the address read must be the field's: else the model's name carried one of its own,
  // and the two were read as one ("http://a/v1@http://b/v1" is an address on a, its path holding b).
  if (address !== "" && (read.ok ? read.baseUrl !== address.replace(/\/+$/, "") : read.problem === "bad_url" || read.problem === "credentials" || read.problem === "query")) {
    return { kind: "unusable", message: "Embedding model: the name carries a server address after @, and the embedding server address names one too; keep the address there only." };
  }
  if (!read.ok) return { kind: "unusable", message: problemWords(read, model) };
  const config = { kind: embedding.kind, model: read.model, baseUrl: read.baseUrl };
  const consentKey = `${config.kind}@${config.baseUrl}`;
  return { kind: "chosen", config, consentKey, disclosure: embeddingDisclosure(config), consented: embedding.consentedTo === consentKey };
}

/**
 * Why the model's name cannot be used, one problem each (all but a missing name once read "must
 * start with http:// or https://"). Settings validation (settings.ts) checks the address field, and
 * a model name only for a key's look; but a name may carry its server after @, as `--embed` takes
 * it (`nomic-embed-text@http://host:11434`), and that address reaches no check before this reading.
 * An address's problem is said in the settings' own words, from its schema: one home for each rule.
 */
function problemWords(read: Exclude<ModelAtBaseUrl, { ok: true }>, model: string): string {
  switch (read.problem) {
    case "no_model":
      return "Name the embedding model the server should use.";
    case "key_as_model":
      return `Embedding model: ${settingsWords({ model }) ?? "it looks like an API key"}.`;
    case "at_without_url":
      return "Embedding model: the part after @ is no http:// or https:// address; the server's address goes in the embedding server address.";
    case "bad_url":
    case "credentials":
    case "query":
      return `Embedding model, the address after @: ${settingsWords({ baseUrl: read.problem === "bad_url" ? read.baseUrl : carriedAddress(model) }) ?? "it cannot be used"}.`;
  }
}

/** What the settings' schema says of these embedding values (the first thing it refuses), or null when it takes them. */
function settingsWords(embedding: Partial<EmbeddingSettings>): string | null {
  const checked = settingsSchema.safeParse({ search: { embedding } });
  return checked.success ? null : (checked.error.issues[0]?.message ?? null);
}

/**
 * The address a model's name carries after @, for the words of its problem only: what is read is
 * `readModelAtBaseUrl`'s, which knows one by `@http://` or `@https://` and names none it refuses.
 */
function carriedAddress(model: string): string {
  const at = model.search(/@https?:\/\//i);
  return at < 0 ? "" : model.slice(at + 1).trim();
}
