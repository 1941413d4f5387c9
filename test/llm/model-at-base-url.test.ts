import { describe, expect, it } from "vitest";
import { readModelAtBaseUrl, specProblem } from "../../src/llm/model-at-base-url";
import { formatModelSpec, parseModelSpec } from "../../src/llm/model-spec";
import { formatEmbedSpec, parseEmbedSpec } from "../../src/llm/embeddings/embed-spec";
import { stringContaining } from "../support/typed-matchers";

const KEY = "sk-proj-Abcdefghijklmnop0123456789";
const HELP = "--model expects a spec";
const DEFAULTS = { baseUrl: "http://localhost:11434/v1" };

/** The problem `rest` gives as a `--model openai:REST` would say it. */
function problemOf(spec: string, rest: string): string {
  const read = readModelAtBaseUrl(rest, DEFAULTS);
  if (read.ok) throw new Error(`${rest} was read`);
  return specProblem(spec, read, HELP);
}

describe("readModelAtBaseUrl: an @ with no address after it", () => {
  // LM Studio names each quantisation of a model after an @; `--model openai:qwen2.5-7b-instruct@q4_k_m`
  // was refused as an address written without its scheme.
  it.each([
    "qwen2.5-7b-instruct@q4_k_m",
    "llama-3.2-1b-instruct@q8_0",
    "qwen2.5-7b-instruct@Q4_K_M",
    "gemma-3-4b-it@iq2_xxs",
    "meta-llama-3.1-8b-instruct@iq4_nl",
    "bitnet-b1.58-2b-4t@tq1_0",
    "qwen2.5-0.5b-instruct@f16",
    "qwen2.5-0.5b-instruct@bf16",
    "phi-4@fp16",
    "openai/gpt-oss-20b@mxfp4",
    "qwen3-4b@4bit",
    "qwen3-4b@8bit",
    "qwen3-4b@4bit-dwq",
    "qwen3-4b@mlx-4bit",
    "qwen3-4b@mlx",
    "mistral-7b-instruct@gguf",
    "qwen2.5-7b-instruct@awq",
    "qwen2.5-7b-instruct@gptq",
    "text-embedding-nomic-embed-text-v1.5@q8_0",
  ])("keeps a quantisation tag in the name: %s, at the default address", (name) => {
    expect(readModelAtBaseUrl(name, DEFAULTS)).toEqual({ ok: true, model: name, baseUrl: DEFAULTS.baseUrl });
    expect(readModelAtBaseUrl(`${name}@http://127.0.0.1:1234/v1/`, DEFAULTS)).toEqual({ ok: true, model: name, baseUrl: "http://127.0.0.1:1234/v1" });
  });

  it.each([
    "m@gpu-box",
    "m@localhost",
    "m@localhost:1234",
    "m@192.168.1.5:1234/v1",
    "m@example.com",
    "m@//host",
    "m@q4.example.com",
    "m@q4:1234",
    "m@q4_k_m/v1",
    "m@gguf.lan",
    "m@mlx-box",
    "m@q4_k_m@gpu-box",
    "m@",
    "@gpu-box",
    "m@ q4_k_m",
  ])("refuses what after the @ is an address, or no tag: %s", (rest) => {
    expect(readModelAtBaseUrl(rest, DEFAULTS)).toEqual({ ok: false, problem: "at_without_url" });
  });

  // "the part after @ must be … a quantisation tag" was said of one: what is missing is the model before it.
  it("says a tag with no name before it names no model", () => {
    expect(readModelAtBaseUrl("@q4_k_m", DEFAULTS)).toEqual({ ok: false, problem: "no_model" });
    expect(problemOf("openai:@q4_k_m", "@q4_k_m")).toBe(`"openai:@q4_k_m" names no model. ${HELP}.`);
    expect(parseEmbedSpec("ollama:@q8_0")).toMatchObject({ ok: false, error: { message: stringContaining('"ollama:@q8_0" names no model.') } });
  });

  it("refuses a key after the @, or as the name before a tag, without repeating it", () => {
    expect(readModelAtBaseUrl(`llama@${KEY}`, DEFAULTS)).toEqual({ ok: false, problem: "at_without_url" });
    expect(readModelAtBaseUrl(`qwen@q4_k_m ${KEY}`, DEFAULTS)).toEqual({ ok: false, problem: "at_without_url" });
    expect(readModelAtBaseUrl(`${KEY}@q4_k_m`, DEFAULTS)).toEqual({ ok: false, problem: "key_as_model", why: "key" });
    expect(readModelAtBaseUrl(`llama ${KEY}@q4_k_m`, DEFAULTS)).toEqual({ ok: false, problem: "key_as_model", why: "key" });
    expect(problemOf(`openai:qwen@q4_k_m ${KEY}`, `qwen@q4_k_m ${KEY}`)).not.toContain("Abcdefghijklmnop");
  });

  it("is what --model and --embed read, and what they write back", () => {
    const model = parseModelSpec("openai:qwen2.5-7b-instruct@q4_k_m");
    expect(model).toEqual({ ok: true, config: { kind: "openai", model: "qwen2.5-7b-instruct@q4_k_m", baseUrl: "http://localhost:11434/v1" } });
    if (model.ok) expect(parseModelSpec(formatModelSpec(model.config))).toEqual(model);
    const elsewhere = parseModelSpec("openai:qwen2.5-7b-instruct@q4_k_m@http://127.0.0.1:1234/v1");
    expect(elsewhere).toMatchObject({ ok: true, config: { model: "qwen2.5-7b-instruct@q4_k_m", baseUrl: "http://127.0.0.1:1234/v1" } });
    if (elsewhere.ok) expect(parseModelSpec(formatModelSpec(elsewhere.config))).toEqual(elsewhere);
    const embed = parseEmbedSpec("openai:text-embedding-nomic-embed-text-v1.5@q8_0");
    expect(embed).toMatchObject({ ok: true, config: { kind: "openai", model: "text-embedding-nomic-embed-text-v1.5@q8_0" } });
    if (embed.ok) expect(parseEmbedSpec(formatEmbedSpec(embed.config))).toEqual(embed);
    expect(parseEmbedSpec("ollama:nomic-embed-text@f16")).toMatchObject({ ok: true, config: { kind: "ollama", model: "nomic-embed-text@f16", baseUrl: "http://localhost:11434" } });
  });

  // Anthropic's names hold no @, and the rule for its specs is model-spec.ts's own: untouched.
  it("leaves anthropic's rule as it was: no @ at all", () => {
    expect(parseModelSpec("anthropic:claude-sonnet-4-5@q4_k_m")).toMatchObject({ ok: false, error: { message: stringContaining('"anthropic:claude-sonnet-4-5": anthropic models take no base URL (the part after @)') } });
  });
});

describe("specProblem", () => {
  it("repeats a spec that holds no key, quoted", () => {
    expect(problemOf("openai:@http://x", "@http://x")).toBe(`"openai:@http://x" names no model. ${HELP}.`);
    expect(problemOf("openai:m@gpu-box", "m@gpu-box")).toBe('"openai:m@gpu-box": the part after @ must be an http:// or https:// URL, or a quantisation tag (as in qwen2.5-7b-instruct@q4_k_m).');
    expect(problemOf("openai:m@http://a b", "m@http://a b")).toBe(`"http://a b" is not a valid http(s) base URL. ${HELP}.`);
  });

  // A key pasted after the @ (in place of the address), or into an address that names no model, is
  // one the environment does not hold: no scrubber knows it, and the terminal would show it whole.
  it.each([
    ["a key after @ in place of the address", `openai:llama@${KEY}`, "A value that looks like an API key: the part after @ must be an http:// or https:// URL"],
    ["a key as all that follows the kind", `openai:@${KEY}`, "A value that looks like an API key: the part after @ must be an http:// or https:// URL"],
    ["a key in the address of a spec that names no model", `openai:@https://proxy.example/v1?key=${KEY}`, "A value that looks like an API key names no model."],
    ["a key in an address that is no address", `openai:m@http://gpu-box ${KEY}`, "A value that looks like an API key is not a valid http(s) base URL."],
  ])("does not repeat %s", (_case, spec, words) => {
    const problem = problemOf(spec, spec.slice("openai:".length));
    expect(problem).toContain(words);
    expect(problem).not.toContain("Abcdefghijklmnop");
  });

  it("is what --model and --embed say", () => {
    for (const parsed of [parseModelSpec(`openai:@${KEY}`), parseEmbedSpec(`ollama@${KEY}`), parseEmbedSpec(`openai:@https://x/v1?k=${KEY}`)]) {
      expect(parsed).toMatchObject({ ok: false, error: { kind: "usage" } });
      expect(JSON.stringify(parsed)).toContain("A value that looks like an API key");
      expect(JSON.stringify(parsed)).not.toContain("Abcdefghijklmnop");
    }
  });
});
