// Chat models behind an OpenAI-style `/chat/completions` endpoint: Ollama, LM Studio, llama.cpp's
// server, vLLM, OpenAI itself. Local servers need no key, so Authorization is sent only when one
// is given. Response shapes differ a little between them; the parser accepts each known variant.
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
import { originOf } from "../text/urls";

export const DEFAULT_OPENAI_COMPATIBLE_BASE_URL = "http://localhost:11434/v1";

export interface OpenAiCompatibleOptions {
  http: Http;
  model: string;
  /** Up to and including the version path, e.g. `http://localhost:11434/v1` (Ollama, the default). */
  baseUrl?: string;
  /** Omit for local servers; sent as `Authorization: Bearer …` when present. */
  apiKey?: string | null;
  /** Per call (default 120 s; local models on a laptop can be slow). */
  timeoutMs?: number;
}

export function openAiCompatibleModel(options: OpenAiCompatibleOptions): ChatModel {
  const baseUrl = chatBaseUrl(options.baseUrl ?? DEFAULT_OPENAI_COMPATIBLE_BASE_URL);
  const apiKey = options.apiKey ?? undefined;
  const timeoutMs = options.timeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS;
  const serverName = `the model server at ${originOf(baseUrl)}`;
  // What this model refused to take, learned from its first 400 and kept for every later call.
  const refused: RefusedParameters = { maxTokens: false, temperature: false };

  return {
    name: `openai:${options.model}`,
    async complete(req: ChatRequest): Promise<ChatResponse> {
      const secrets = apiKey ? [apiKey] : [];
      const maxTokens = req.maxTokens ?? DEFAULT_MAX_TOKENS;
      for (let attempt = 0; ; attempt++) {
        let body: unknown;
        try {
          body = await postJson({
            http: options.http,
            url: `${baseUrl}/chat/completions`,
            headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
            body: completionRequest(options.model, req, maxTokens, refused),
            timeoutMs,
            signal: req.signal,
            serverName,
            secrets,
            keySent: Boolean(apiKey),
            errorMessageOf: openAiErrorMessage,
            errorTypesOf: openAiErrorTypes,
            rejectedParameterOf: openAiRejectedParameter,
          });
        } catch (error) {
          // Each parameter is given up once: two refusals at most, then the server's words stand.
          if (attempt < 2 && learnedRefusal(error, refused)) continue;
          throw withBaseUrlHint(error, baseUrl, "status");
        }
        try {
          return withinLengthLimit(readScrubbed(() => parseChatCompletion(body, options.model, serverName), secrets), maxTokens);
        } catch (error) {
          throw withBaseUrlHint(error, baseUrl, "body");
        }
      }
    },
  };
}

/**
 * OpenAI's reasoning models (o1, o3, o4-mini, gpt-5…) refuse `max_tokens` ("Use
 * 'max_completion_tokens' instead") and any temperature but their default, with a 400 that names
 * the parameter: every model call failed, and "choose another model" was the only way out.
 */
interface RefusedParameters {
  maxTokens: boolean;
  temperature: boolean;
}

function completionRequest(model: string, req: ChatRequest, maxTokens: number, refused: RefusedParameters): Record<string, unknown> {
  return {
    model,
    messages: [{ role: "system", content: req.system }, ...req.messages],
    ...(refused.maxTokens ? { max_completion_tokens: maxTokens } : { max_tokens: maxTokens }),
    ...(refused.temperature ? {} : { temperature: req.temperature ?? DEFAULT_TEMPERATURE }),
    stream: false,
  };
}

/** Whether the error is a parameter refused for the first time (now marked, so the request is sent again without it). */
function learnedRefusal(error: unknown, refused: RefusedParameters): boolean {
  if (!(error instanceof ModelError)) return false;
  const parameter = error.details.rejectedParameter;
  if (parameter === "max_tokens" && !refused.maxTokens) {
    refused.maxTokens = true;
    return true;
  }
  if (parameter === "temperature" && !refused.temperature) {
    refused.temperature = true;
    return true;
  }
  return false;
}

/** The base URL as the adapter uses it: no trailing slash, and no `/chat/completions` when the whole endpoint was pasted. */
function chatBaseUrl(typed: string): string {
  return typed.replace(/\/+$/, "").replace(/\/chat\/completions$/i, "");
}

/**
 * A base URL that is only an address (`http://localhost:11434`) and a missing route: a 404 that names
 * no model or a 405 (Ollama, vLLM: `send.ts` gives both the `wrong_address` reason) or an error inside
 * a 200 (LM Studio: "Unexpected endpoint or method"). It is the path that is wrong, not the model or
 * the server, and they serve the route under `/v1`; retrying would not help, so the message says what
 * to change. Only these: a server that kept redirecting is also an `http` error without a status, and
 * took the hint, "…given up on. The base URL … has no path", as a wrong address.
 */
function withBaseUrlHint(error: unknown, baseUrl: string, from: "status" | "body"): unknown {
  if (!(error instanceof ModelError) || !/^https?:\/\/[^/?#]+$/i.test(baseUrl)) return error;
  const missingRoute = from === "status" ? error.details.reason === "wrong_address" : error.kind === "http";
  if (!missingRoute) return error;
  return new ModelError("unavailable", `${error.message.replace(/[.\s]*$/, "")}. The base URL ${baseUrl} has no path; OpenAI-compatible servers usually expect one ending in /v1 (${baseUrl}/v1).`, { ...error.details, reason: "wrong_address" });
}

/** Reads a chat completion; exported for tests of odd server shapes. */
export function parseChatCompletion(body: unknown, configuredModel: string, serverName = "the model server"): ChatResponse {
  if (!isRecord(body)) throw new ModelError("parse", `${serverName} sent JSON that is not a chat completion.`);
  if (body.error !== undefined && body.error !== null) {
    // Some servers report errors with a 200 status (and some name no error as `error: null`).
    throw new ModelError("http", `${serverName} reported an error: ${serverSaid(openAiErrorMessage(body) ?? "unknown error")}`);
  }
  const choices = body.choices;
  if (!Array.isArray(choices) || choices.length === 0 || !isRecord(choices[0])) {
    throw new ModelError("parse", `${serverName} sent a chat completion without choices.`);
  }
  const choice = choices[0];
  if (choice.error !== undefined && choice.error !== null) {
    // OpenRouter: the upstream model failed after the 200 was sent; the choice carries the error.
    throw new ModelError("http", `${serverName} reported an error: ${serverSaid(openAiErrorMessage({ error: choice.error }) ?? "unknown error")}`);
  }
  const raw = textOfChoice(choice);
  const tool = calledTool(choice);
  if ((raw === undefined || raw.trim() === "") && tool !== null) throw toolCallReply(serverName, tool);
  if (raw === undefined) throw new ModelError("parse", `${serverName} sent a choice without message text.`);
  const text = withoutThinking(raw);
  const usage = isRecord(body.usage)
    ? { inputTokens: numberOr(body.usage.prompt_tokens), outputTokens: numberOr(body.usage.completion_tokens) }
    : undefined;
  return {
    text,
    model: reportedModelName(body.model, configuredModel),
    ...(usage ? { usage } : {}),
    ...(choice.finish_reason === "length" ? { truncated: true } : {}),
    ...(choice.finish_reason === "content_filter" ? { refused: true } : {}),
  };
}

function textOfChoice(choice: Record<string, unknown>): string | undefined {
  const message = choice.message;
  if (isRecord(message)) {
    const content = message.content;
    if (typeof content === "string") return content;
    // Content as parts: [{ type: "text", text }].
    if (Array.isArray(content)) {
      return content
        .map((part) => (isRecord(part) && typeof part.text === "string" ? part.text : ""))
        .join("");
    }
    // A reasoning model that spent its whole budget thinking returns null content: that is an
    // empty answer, not a broken response.
    if (content === null) return "";
  }
  // Legacy completion shape some llama.cpp builds still use.
  if (typeof choice.text === "string") return choice.text;
  return undefined;
}

/** The tool a choice calls (its name, or undefined unnamed): `tool_calls`, or the older `function_call`; null when it calls none. */
function calledTool(choice: Record<string, unknown>): unknown {
  const message = choice.message;
  if (!isRecord(message)) return null;
  const calls = message.tool_calls;
  if (Array.isArray(calls) && calls.length > 0) {
    const first: unknown = calls[0];
    return isRecord(first) && isRecord(first.function) ? first.function.name : undefined;
  }
  return isRecord(message.function_call) ? message.function_call.name : null;
}

const THINK_OPEN = "<think>";
const THINK_CLOSE = "</think>";

/**
 * The answer without a reasoning model's thinking, for servers that leave it in the content
 * (llama.cpp without a reasoning format, vLLM without a reasoning parser, older Ollama and LM
 * Studio): `<think>…</think>` before the answer, or only the closing tag when the chat template
 * opened the block in the prompt. A block never closed was cut off while thinking: no answer yet.
 */
export function withoutThinking(text: string): string {
  const opened = text.trimStart().startsWith(THINK_OPEN);
  const close = text.indexOf(THINK_CLOSE);
  if (close >= 0 && opened) return text.slice(close + THINK_CLOSE.length).trimStart();
  // Only the closing tag (the template opened the block in the prompt): it ends a line of its own.
  // One inside a sentence is an answer talking about the tags, and every word of it is kept.
  if (close >= 0 && !text.slice(0, close).includes(THINK_OPEN) && /(^|\n)[ \t]*$/.test(text.slice(0, close))) return text.slice(close + THINK_CLOSE.length).trimStart();
  return opened ? "" : text;
}

function openAiErrorMessage(body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  const error = body.error;
  if (typeof error === "string") return error;
  if (isRecord(error) && typeof error.message === "string") return error.message;
  if (typeof body.message === "string") return body.message;
  return undefined;
}

/** OpenAI names an error twice, by `type` and `code` (`insufficient_quota`, `model_not_found`). */
function openAiErrorTypes(body: unknown): string[] {
  if (!isRecord(body) || !isRecord(body.error)) return [];
  return [body.error.type, body.error.code].filter((t): t is string => typeof t === "string");
}

/** The parameter an `unsupported_parameter` or `unsupported_value` error names (`{error: {param: "max_tokens"}}`). */
function openAiRejectedParameter(body: unknown): string | undefined {
  if (!isRecord(body) || !isRecord(body.error) || typeof body.error.param !== "string") return undefined;
  return openAiErrorTypes(body).some((t) => t === "unsupported_parameter" || t === "unsupported_value") ? body.error.param : undefined;
}

function numberOr(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
