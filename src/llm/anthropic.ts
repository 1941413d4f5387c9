// Anthropic's Messages API. The system prompt is a top-level field there, not a message, and
// `max_tokens` is required. Always needs a key.
import type { Http } from "../ports";
import {
  DEFAULT_MAX_TOKENS,
  DEFAULT_MODEL_TIMEOUT_MS,
  DEFAULT_TEMPERATURE,
  ModelError,
  reportedModelName,
  toolCallReply,
  withinLengthLimit,
  type ChatModel,
  type ChatRequest,
  type ChatResponse,
} from "./chat-model";
import { postJson, readScrubbed, serverSaid } from "./send";

export const ANTHROPIC_BASE_URL = "https://api.anthropic.com";
export const ANTHROPIC_VERSION = "2023-06-01";

export interface AnthropicOptions {
  http: Http;
  model: string;
  apiKey: string;
  /** Only for proxies and tests (default https://api.anthropic.com). */
  baseUrl?: string;
  timeoutMs?: number;
}

export function anthropicModel(options: AnthropicOptions): ChatModel {
  const baseUrl = (options.baseUrl ?? ANTHROPIC_BASE_URL).replace(/\/+$/, "");
  const timeoutMs = options.timeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS;
  return {
    name: `anthropic:${options.model}`,
    async complete(req: ChatRequest): Promise<ChatResponse> {
      if (!options.apiKey) throw new ModelError("auth", "No Anthropic API key is set.");
      const maxTokens = req.maxTokens ?? DEFAULT_MAX_TOKENS;
      const body = await postJson({
        http: options.http,
        url: `${baseUrl}/v1/messages`,
        headers: { "x-api-key": options.apiKey, "anthropic-version": ANTHROPIC_VERSION },
        body: {
          model: options.model,
          system: req.system,
          messages: req.messages,
          max_tokens: maxTokens,
          temperature: req.temperature ?? DEFAULT_TEMPERATURE,
        },
        timeoutMs,
        signal: req.signal,
        serverName: "Anthropic",
        secrets: [options.apiKey],
        errorMessageOf: anthropicErrorMessage,
        errorTypesOf: anthropicErrorTypes,
      });
      return withinLengthLimit(readScrubbed(() => parseAnthropicMessage(body, options.model), [options.apiKey]), maxTokens);
    },
  };
}

/** Reads a Messages API response; exported for tests. */
export function parseAnthropicMessage(body: unknown, configuredModel: string): ChatResponse {
  if (!isRecord(body)) throw new ModelError("parse", "Anthropic sent JSON that is not a message.");
  if (body.type === "error") {
    const said = serverSaid(anthropicErrorMessage(body) ?? "unknown error");
    // Overloaded is a wait, whichever status it came with (a proxy may pass it on in a 200).
    if (anthropicErrorTypes(body).includes("overloaded_error")) throw new ModelError("unavailable", `Anthropic is overloaded: ${said}`, { reason: "busy" });
    throw new ModelError("http", `Anthropic reported an error: ${said}`);
  }
  if (!Array.isArray(body.content)) throw new ModelError("parse", "Anthropic sent a message without content.");
  // Only text blocks are the answer; thinking and tool blocks are not.
  const text = body.content
    .map((block) => (isRecord(block) && block.type === "text" && typeof block.text === "string" ? block.text : ""))
    .join("");
  const toolUse: unknown = body.content.find((block) => isRecord(block) && block.type === "tool_use");
  if (text.trim() === "" && isRecord(toolUse)) throw toolCallReply("Anthropic", toolUse.name);
  const usage = isRecord(body.usage)
    ? { inputTokens: numberOr(body.usage.input_tokens), outputTokens: numberOr(body.usage.output_tokens) }
    : undefined;
  return {
    text,
    model: reportedModelName(body.model, configuredModel),
    ...(usage ? { usage } : {}),
    ...(body.stop_reason === "max_tokens" ? { truncated: true } : {}),
    ...(body.stop_reason === "refusal" ? { refused: true } : {}),
  };
}

function anthropicErrorMessage(body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  if (isRecord(body.error) && typeof body.error.message === "string") return body.error.message;
  return undefined;
}

function anthropicErrorTypes(body: unknown): string[] {
  return isRecord(body) && isRecord(body.error) && typeof body.error.type === "string" ? [body.error.type] : [];
}

function numberOr(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
