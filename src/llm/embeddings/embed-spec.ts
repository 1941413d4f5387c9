// Which embedding model the dial uses: the CLI's `--embed SPEC` (and, later, the plugin's settings)
// become an EmbedConfig, and `createEmbeddingModel` turns a config plus a key into a client. The
// same shape as ../model-spec.ts: model names may hold `:` (Ollama tags), so only the first `:`
// separates the kind, and a base URL is recognised by `@http://` or `@https://`.
import type { Clock, Http } from "../../ports";
import { DEFAULT_OPENAI_COMPATIBLE_BASE_URL } from "../openai-compatible";
import type { EmbeddingModel } from "./embedding-model";
import { originOf } from "../../text/urls";
import { valueShown } from "../../text/value-shown";
import { looksLikeApiKey } from "../../settings";
import { readModelAtBaseUrl, specProblem } from "../model-at-base-url";
import { DEFAULT_OLLAMA_BASE_URL, DEFAULT_OLLAMA_EMBEDDING_MODEL, ollamaEmbeddingModel } from "./ollama-embedding";
import { openAiEmbeddingModel } from "./openai-embedding";

export type EmbedConfig =
  | { kind: "none" }
  | { kind: "ollama"; model: string; baseUrl: string }
  | { kind: "openai"; model: string; baseUrl: string };

export type EmbedSpecResult = { ok: true; config: EmbedConfig } | { ok: false; error: { kind: "usage"; message: string } };

const SPEC_HELP =
  "--embed expects none, ollama:MODEL[@BASE_URL] (e.g. ollama:nomic-embed-text) or openai:MODEL[@BASE_URL] (e.g. openai:text-embedding-3-small@https://api.openai.com/v1)";

/** Parses `none` | `ollama[:MODEL][@BASE_URL]` | `openai:MODEL[@BASE_URL]`; Ollama's model defaults to nomic-embed-text. */
export function parseEmbedSpec(spec: string): EmbedSpecResult {
  const text = spec.trim();
  if (text === "") return usage(`The embedding spec is empty. ${SPEC_HELP}.`);
  if (text.toLowerCase() === "none") return { ok: true, config: { kind: "none" } };
  const colon = text.search(/[:@]/);
  // Named as written: `AIza…` lower-cased is no key's shape, and would be repeated.
  const kindAsWritten = colon < 0 ? text : text.slice(0, colon);
  const kind = kindAsWritten.toLowerCase();
  const rest = colon < 0 ? "" : text[colon] === ":" ? text.slice(colon + 1) : text.slice(colon);
  if (kind !== "ollama" && kind !== "openai") return usage(`Unknown embedding kind ${valueShown(kindAsWritten, looksLikeApiKey)}. ${SPEC_HELP}.`);

  const read = kind === "ollama"
    ? readModelAtBaseUrl(rest, { baseUrl: DEFAULT_OLLAMA_BASE_URL, model: DEFAULT_OLLAMA_EMBEDDING_MODEL })
    : readModelAtBaseUrl(rest, { baseUrl: DEFAULT_OPENAI_COMPATIBLE_BASE_URL });
  if (!read.ok) return usage(specProblem(spec, read, SPEC_HELP));
  return { ok: true, config: { kind, model: read.model, baseUrl: read.baseUrl } };
}

/** The spec that would give this config (defaults left out). */
export function formatEmbedSpec(config: EmbedConfig): string {
  if (config.kind === "none") return "none";
  const defaultBase = config.kind === "ollama" ? DEFAULT_OLLAMA_BASE_URL : DEFAULT_OPENAI_COMPATIBLE_BASE_URL;
  return config.baseUrl === defaultBase ? `${config.kind}:${config.model}` : `${config.kind}:${config.model}@${config.baseUrl}`;
}

/** Which secret a config may use: an OpenAI-compatible server's key if the user set one; Ollama none. */
export function embedSecretNameFor(config: EmbedConfig): "openai" | null {
  return config.kind === "openai" ? "openai" : null;
}

/**
 * What leaves the device once this backend is used — shown in the settings and by the CLI before
 * the first call, so nobody learns it from a network log.
 */
export function embeddingDisclosure(config: EmbedConfig): string {
  if (config.kind === "none") return "Nothing is embedded: search stays lexical and nothing leaves the device.";
  const where = originOf(config.baseUrl);
  const local = isThisComputer(config.baseUrl);
  return (
    `Embedding sends the text of every note (title, headings and each section), every search query at level 2 or above, and the passages of web pages a research run reads at that level to ${where} (${config.model}). ` +
    (local ? "That address is this computer." : "That address is another computer: the text leaves this device.")
  );
}

/**
 * Whether an address names this computer, by its host as a URL reads it: read as text,
 * `http://localhost:11434@evil.example` (a user name, then another host) passed for local.
 */
function isThisComputer(address: string): boolean {
  if (!URL.canParse(address)) return false;
  const host = new URL(address).hostname.toLowerCase();
  return host === "localhost" || host.endsWith(".localhost") || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

export interface CreateEmbeddingOptions {
  http: Http;
  apiKey?: string | null;
  timeoutMs?: number;
  batchSize?: number;
  requestsPerSecond?: number;
  expectedDimensions?: number;
  clock?: Clock;
}

/** A client for the config, or null for `none` (the dial then stays at level 1). */
export function createEmbeddingModel(config: EmbedConfig, options: CreateEmbeddingOptions): EmbeddingModel | null {
  switch (config.kind) {
    case "none":
      return null;
    case "ollama":
      return ollamaEmbeddingModel({ ...options, model: config.model, baseUrl: config.baseUrl });
    case "openai":
      return openAiEmbeddingModel({ ...options, model: config.model, baseUrl: config.baseUrl });
  }
}

function usage(message: string): EmbedSpecResult {
  return { ok: false, error: { kind: "usage", message } };
}

