// Which model a run uses: the CLI's `--model SPEC` and the plugin's model settings both become a
// ModelConfig, and `createChatModel` turns a config plus a key into a ChatModel.
import type { Http } from "../ports";
import { looksLikeApiKey, modelNameProblem, type Settings } from "../settings";
import { anthropicModel } from "./anthropic";
import type { ChatModel } from "./chat-model";
import { DEFAULT_OPENAI_COMPATIBLE_BASE_URL, openAiCompatibleModel } from "./openai-compatible";
import { readModelAtBaseUrl, specProblem } from "./model-at-base-url";
import { valueShown } from "../text/value-shown";

export type ModelConfig =
  | { kind: "none" }
  | { kind: "openai"; model: string; baseUrl: string }
  | { kind: "anthropic"; model: string };

export interface ModelSpecError {
  kind: "usage";
  message: string;
}

export type ModelSpecResult = { ok: true; config: ModelConfig } | { ok: false; error: ModelSpecError };

const SPEC_HELP =
  "--model expects none, openai:MODEL[@BASE_URL] (e.g. openai:llama3.1:8b or openai:gpt-4o-mini@https://api.openai.com/v1) or anthropic:MODEL";

/**
 * Parses `none` | `openai:MODEL[@BASE_URL]` | `anthropic:MODEL`. Model names may contain `:`
 * (Ollama tags like `llama3.1:8b`), so only the first `:` separates the kind, and the base URL is
 * recognised by `@http://` or `@https://`.
 */
export function parseModelSpec(spec: string): ModelSpecResult {
  const text = spec.trim();
  if (text === "" ) return usage(`The model spec is empty. ${SPEC_HELP}.`);
  if (text.toLowerCase() === "none") return { ok: true, config: { kind: "none" } };

  const colon = text.indexOf(":");
  // Named as written: `AIza…` lower-cased is no key's shape, and would be repeated.
  const kindAsWritten = colon < 0 ? text : text.slice(0, colon);
  const kind = kindAsWritten.toLowerCase();
  const rest = colon < 0 ? "" : text.slice(colon + 1);

  if (kind === "openai") {
    const read = readModelAtBaseUrl(rest, { baseUrl: DEFAULT_OPENAI_COMPATIBLE_BASE_URL });
    if (!read.ok) return usage(specProblem(spec, read, SPEC_HELP));
    return { ok: true, config: { kind: "openai", model: read.model, baseUrl: read.baseUrl } };
  }
  if (kind === "anthropic") {
    const model = rest.trim();
    if (model === "") return usage(`"${spec}" names no model. ${SPEC_HELP}.`);
    // As `openai:` names are read (model-at-base-url.ts): the part before an @ is shown below, so a key there is said first.
    const problem = modelNameProblem(model.split("@")[0]);
    if (problem === "key") return usage(specProblem(spec, { ok: false, problem: "key_as_model", why: "key" }, SPEC_HELP));
    // The spec is not repeated: what follows @ is no address, and may be a key.
    if (model.includes("@")) return usage(`"anthropic:${model.slice(0, model.indexOf("@"))}": anthropic models take no base URL (the part after @). ${SPEC_HELP}.`);
    if (problem === "space") return usage(specProblem(spec, { ok: false, problem: "key_as_model", why: "space" }, SPEC_HELP));
    return { ok: true, config: { kind: "anthropic", model } };
  }
  // `--model sk-proj-…` (a key pasted for the model) is refused without repeating it.
  return usage(`Unknown model kind ${valueShown(kindAsWritten, looksLikeApiKey)}. ${SPEC_HELP}.`);
}

/** The plugin's model settings as a config; an empty model name means no model. */
export function modelConfigFromSettings(model: Settings["model"]): ModelConfig {
  if (model.kind === "none" || model.model.trim() === "") return { kind: "none" };
  if (model.kind === "anthropic") return { kind: "anthropic", model: model.model.trim() };
  return { kind: "openai", model: model.model.trim(), baseUrl: model.baseUrl.replace(/\/+$/, "") };
}

/** `none`, `openai:llama3.1:8b@http://…`, `anthropic:…` — the spec that would give this config. */
export function formatModelSpec(config: ModelConfig): string {
  switch (config.kind) {
    case "none":
      return "none";
    case "anthropic":
      return `anthropic:${config.model}`;
    case "openai":
      return config.baseUrl === DEFAULT_OPENAI_COMPATIBLE_BASE_URL
        ? `openai:${config.model}`
        : `openai:${config.model}@${config.baseUrl}`;
  }
}

/** Which secret a config needs: Anthropic always, OpenAI-compatible only if the user set one. */
export function secretNameFor(config: ModelConfig): "openai" | "anthropic" | null {
  if (config.kind === "anthropic") return "anthropic";
  if (config.kind === "openai") return "openai";
  return null;
}

export interface CreateModelOptions {
  http: Http;
  /** Optional for OpenAI-compatible servers, required for Anthropic. */
  apiKey?: string | null;
  timeoutMs?: number;
}

export type CreateModelResult =
  | { ok: true; model: ChatModel | null }
  | { ok: false; error: { kind: "missing_key"; message: string } };

/** A ChatModel for the config, or `null` for `none` (the runner then writes an evidence brief). */
export function createChatModel(config: ModelConfig, options: CreateModelOptions): CreateModelResult {
  switch (config.kind) {
    case "none":
      return { ok: true, model: null };
    case "openai":
      return {
        ok: true,
        model: openAiCompatibleModel({
          http: options.http,
          model: config.model,
          baseUrl: config.baseUrl,
          apiKey: options.apiKey,
          timeoutMs: options.timeoutMs,
        }),
      };
    case "anthropic":
      if (!options.apiKey) {
        return { ok: false, error: { kind: "missing_key", message: "Anthropic models need an API key, and none is set." } };
      }
      return {
        ok: true,
        model: anthropicModel({ http: options.http, model: config.model, apiKey: options.apiKey, timeoutMs: options.timeoutMs }),
      };
  }
}

function usage(message: string): ModelSpecResult {
  return { ok: false, error: { kind: "usage", message } };
}

