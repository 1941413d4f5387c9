import { describe, expect, it } from "vitest";
import { readModelAtBaseUrl, specProblem } from "../../src/llm/model-at-base-url";
import { parseModelSpec } from "../../src/llm/model-spec";
import { parseEmbedSpec } from "../../src/llm/embeddings/embed-spec";

const KEY = "sk-proj-Abcdefghijklmnop0123456789";
const HELP = "--model expects a spec";

/** The problem `rest` gives as a `--model openai:REST` would say it. */
function problemOf(spec: string, rest: string): string {
  const read = readModelAtBaseUrl(rest, { baseUrl: "http://localhost:11434/v1" });
  if (read.ok) throw new Error(`${rest} was read`);
  return specProblem(spec, read, HELP);
}

describe("specProblem", () => {
  it("repeats a spec that holds no key, quoted", () => {
    expect(problemOf("openai:@http://x", "@http://x")).toBe(`"openai:@http://x" names no model. ${HELP}.`);
    expect(problemOf("openai:m@gpu-box", "m@gpu-box")).toBe('"openai:m@gpu-box": the part after @ must be an http:// or https:// URL.');
    expect(problemOf("openai:m@http://a b", "m@http://a b")).toBe(`"http://a b" is not a valid http(s) base URL. ${HELP}.`);
  });

  // A key pasted after the @ (in place of the address), or into an address that names no model, is
  // one the environment does not hold: no scrubber knows it, and the terminal would show it whole.
  it.each([
    ["a key after @ in place of the address", `openai:llama@${KEY}`, "A value that looks like an API key: the part after @ must be an http:// or https:// URL."],
    ["a key as all that follows the kind", `openai:@${KEY}`, "A value that looks like an API key: the part after @ must be an http:// or https:// URL."],
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
