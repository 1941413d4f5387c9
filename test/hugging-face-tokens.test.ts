// Hugging Face's tokens against Python's names of theirs. A token is `hf_` and 34 letters, no second
// underscore; a name (`hf_hub_download`, a local model named `hf_llama3_8b_instruct_gguf`) has one.
// The settings' one rule (`looksLikeApiKey`) keeps the token out of every message and refuses it as
// a model's name, and takes the name as the name it is. (Questions: test/research/key-in-question.test.ts.)
import { describe, expect, it } from "vitest";
import { holdsKeyShapedWord, looksLikeApiKey, modelNameProblem } from "../src/settings";

/** Made up, in the shape Hugging Face issues: `hf_` and 34 letters. */
const TOKEN = "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";
const NAMES = ["hf_hub_download", "hf_transfer", "hf_hub_download_retry", "hf_raise_for_status", "hf_llama3_8b_instruct_gguf", "hf_bnb_4bit_compute_dtype_float16"];

describe("Hugging Face tokens and names", () => {
  it("a token looks like a key, alone, pasted with space around it or quoted", () => {
    for (const text of [TOKEN, `  ${TOKEN}\n`, `${TOKEN}"`]) expect(looksLikeApiKey(text), text).toBe(true);
    expect(holdsKeyShapedWord(`llama3.1:8b ${TOKEN}`)).toBe(true);
    expect(modelNameProblem(TOKEN)).toBe("key");
  });

  it("a Python name beginning hf_ is a name: not hidden, not refused as a model's name", () => {
    for (const name of NAMES) {
      // `hf_transfer` begins as a token may, as `sk-learn` does as OpenAI's keys: too short for one, and taken as a name.
      if (name.indexOf("_", 3) > 0) expect(looksLikeApiKey(name), name).toBe(false);
      expect(holdsKeyShapedWord(name), name).toBe(false);
      expect(modelNameProblem(name), name).toBeNull();
    }
  });
});
