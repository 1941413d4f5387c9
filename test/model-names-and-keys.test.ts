// Real model names against real key shapes: a model name is sent in every request and written into
// every trace, so a key there is refused; but a name is never refused for looking like one.
import { describe, expect, it } from "vitest";
import { parseEmbedSpec } from "../src/llm/embeddings/embed-spec";
import { parseModelSpec } from "../src/llm/model-spec";
import { loadSettings, modelNameProblem } from "../src/settings";

/** Names as the services list them (OpenAI, Anthropic, Ollama tags, Hugging Face through Ollama, OpenRouter, Together, xAI, Mistral, DeepSeek, Groq). */
const REAL_NAMES = [
  "gpt-4o-mini",
  "gpt-4o-mini-2024-07-18",
  "o3-mini",
  "ft:gpt-4o-mini-2024-07-18:my-org:custom-suffix:9aBcDeFg",
  "text-embedding-3-small",
  "claude-sonnet-4-5-20250929",
  "claude-3-5-haiku-latest",
  "llama3.1:8b",
  "llama3.1:8b-instruct-q4_K_M",
  "nomic-embed-text:latest",
  "qwen2.5-coder:32b-instruct-q8_0",
  "hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF:Q4_K_M",
  "hf.co/xai-org/grok-1",
  "meta-llama/llama-3.1-405b-instruct:free",
  "x-ai/grok-4",
  "deepseek-ai/DeepSeek-R1-Distill-Qwen-32B",
  "deepseek/deepseek-chat-v3-0324:free",
  "xai-org/grok-1",
  "xai-org/grok-2",
  "grok-4-0709",
  "grok-code-fast-1",
  "mistral-large-latest",
  "codestral-2501",
  "mistralai/Mixtral-8x7B-Instruct-v0.1",
  "meta-llama/Meta-Llama-3.1-70B-Instruct-Turbo",
  "Qwen/Qwen2.5-72B-Instruct-Turbo",
  "togethercomputer/m2-bert-80M-8k-retrieval",
  "llama-3.3-70b-versatile",
  "skywork-13b",
  "skt/A.X-4.0",
  "BAAI/bge-large-en-v1.5",
];

/**
 * LM Studio's names: a model's quantisation after an @ (`lms ls`, `GET /v1/models`), for
 * OpenAI-compatible servers only: anthropic's specs take no @ (model-spec.ts).
 */
const LM_STUDIO_NAMES = [
  "qwen2.5-7b-instruct@q4_k_m",
  "meta-llama-3.1-8b-instruct@q4_k_m",
  "meta-llama-3.1-8b-instruct@Q4_K_M",
  "qwen3-coder-30b-a3b-instruct@q4_k_m",
  "qwen2.5-coder-1.5b-instruct@q4_k_m",
  "qwen/qwen3-8b@4bit",
  "google/gemma-4-31b@8bit",
  "qwen2.5-coder-7b-instruct-mlx@4bit",
  "text-embedding-nomic-embed-text-v1.5@q8_0",
  "text-embedding-nomic-embed-text-v1.5@f16",
  "text-embedding-nomic-embed-text-v1.5@f32",
];

/** Keys in the shapes the services issue them (made up, of the right length and letters). */
const KEYS = [
  `sk-${"Ab0".repeat(16)}`, // OpenAI, older
  `sk-proj-${"Ab0_-".repeat(30)}`, // OpenAI project key
  `sk-ant-api03-${"Ab0_-".repeat(19)}AA`, // Anthropic
  `sk-or-v1-${"0a".repeat(32)}`, // OpenRouter
  `xai-${"Ab0".repeat(26)}xy`, // xAI
  `gsk_${"Ab0".repeat(17)}x`, // Groq
  `hf_${"Ab".repeat(17)}`, // Hugging Face
  `BSA${"Ab0_".repeat(7)}`, // Brave
  "0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b", // Exa
  `tvly-${"Ab0".repeat(10)}xy`, // Tavily
  `tvly-dev-${"Ab0".repeat(10)}xy`, // Tavily, development key
  `ghp_${"Ab0".repeat(12)}`, // GitHub
  `AIza${"Ab0_-".repeat(7)}`, // Google
];

describe("model names against key shapes", () => {
  it("takes every real model name, in settings and in --model and --embed specs", () => {
    for (const name of REAL_NAMES) {
      expect(modelNameProblem(name), name).toBeNull();
      expect(loadSettings({ model: { kind: "openai", model: name }, search: { embedding: { kind: "ollama", model: name } } }).problems, name).toEqual([]);
      expect(parseModelSpec(`openai:${name}`), name).toMatchObject({ ok: true, config: { model: name } });
      expect(parseModelSpec(`anthropic:${name}`), name).toMatchObject({ ok: true, config: { model: name } });
      expect(parseEmbedSpec(`ollama:${name}@http://localhost:11434`), name).toMatchObject({ ok: true, config: { model: name } });
    }
  });

  it("takes LM Studio's names, the quantisation after @ kept, in settings and in --model and --embed specs with no address", () => {
    for (const name of LM_STUDIO_NAMES) {
      expect(modelNameProblem(name), name).toBeNull();
      expect(loadSettings({ model: { kind: "openai", model: name }, search: { embedding: { kind: "openai", model: name } } }).problems, name).toEqual([]);
      expect(parseModelSpec(`openai:${name}`), name).toMatchObject({ ok: true, config: { model: name, baseUrl: "http://localhost:11434/v1" } });
      expect(parseModelSpec(`openai:${name}@http://localhost:1234/v1`), name).toMatchObject({ ok: true, config: { model: name, baseUrl: "http://localhost:1234/v1" } });
      expect(parseEmbedSpec(`openai:${name}`), name).toMatchObject({ ok: true, config: { model: name } });
      expect(parseModelSpec(`anthropic:${name}`).ok, name).toBe(false);
    }
  });

  it("refuses every key shape as a model name, alone or among its words, and never repeats it", () => {
    for (const key of KEYS) {
      for (const name of [key, ` ${key} `, `llama3.1:8b ${key}`, `meta-llama/${key}`, `${key}@q4_k_m`]) {
        expect(modelNameProblem(name), name).toBe("key");
        const { settings, problems } = loadSettings({ model: { kind: "openai", model: name } });
        expect(settings.model.model, name).toBe("");
        expect(problems.join("\n"), name).not.toContain(key.trim());
        for (const spec of [`openai:${name}`, `anthropic:${name}`]) {
          const parsed = parseModelSpec(spec);
          expect(parsed.ok, spec).toBe(false);
          expect(JSON.stringify(parsed), spec).not.toContain(key);
        }
        const embedded = parseEmbedSpec(`openai:${name}`);
        expect(embedded.ok, name).toBe(false);
        expect(JSON.stringify(embedded), name).not.toContain(key);
      }
    }
  });
});
