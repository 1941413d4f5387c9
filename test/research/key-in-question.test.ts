// A question that is an API key, or holds one the run cannot scrub, is refused before the run
// starts; ordinary questions that merely begin or contain a key's first letters are not.
import { describe, expect, it } from "vitest";
import { keyInQuestion, QuestionRefused, refuseKeyAsQuestion } from "../../src/research/key-in-question";

const OPENAI = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z";
const BRAVE = "BSAbx9Zq3W7pLr2Kt8Vn4Yc6Hm1Jd5Fs0";
/** Made up, in the shape Hugging Face issues: `hf_` and 34 letters, no digit. */
const HUGGING_FACE = "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";

describe("keyInQuestion", () => {
  it.each([
    ["an OpenAI key", OPENAI],
    ["a Brave key, pasted with quotes and space around it", `  '${BRAVE}'\n`],
    ["a GitHub token", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"],
    ["an Authorization header", `Authorization: Bearer ${OPENAI}`],
    ["a bearer token of no known service", "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJl"],
    ["an environment line", `export OPENAI_API_KEY=${OPENAI}`],
    ["a question around a key", `why does ${BRAVE} give me a 401?`],
    ["a key in an address", `https://api.example.com/search?key=${OPENAI}`],
  ])("is true for %s", (_, question) => {
    expect(keyInQuestion(question)).toBe(true);
  });

  it.each([
    ["a question", "Why did the team pick Automerge instead of Yjs for the field app?"],
    ["a word that begins as OpenAI keys do", "sk-learn vs pytorch for tabular data"],
    ["an acronym that begins as Brave keys do", "BSA compliance deadlines for 2025"],
    ["a question about bearer tokens", "What is a bearer token, and how long should it live?"],
    ["a long hyphenated word with no digit", "sk-learn-versus-pytorch-benchmarks"],
  ])("is false for %s", (_, question) => {
    expect(keyInQuestion(question)).toBe(false);
  });

  it.each([
    ["alone", HUGGING_FACE],
    ["inside a question", `why does ${HUGGING_FACE} give me a 401?`],
    ["as an environment line", `export HF_TOKEN=${HUGGING_FACE}`],
    ["with a digit among its letters", "hf_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3f"],
  ])("is true for a Hugging Face token %s", (_, question) => {
    expect(keyInQuestion(question)).toBe(true);
  });

  it.each([
    "How does hf_hub_download cache files?",
    "Is hf_transfer faster than the default downloader?",
    "When does hf_hub_download_retry give up?",
    "Why does hf_raise_for_status hide the server's message?",
    "Where is hf_llama2_7b_chat_weights loaded from in our notebook?",
    "hf_bnb_4bit_compute_dtype_float16 vs bfloat16",
  ])("is false for a Python name that begins hf_: %s", (question) => {
    expect(keyInQuestion(question)).toBe(false);
  });

  it("a key the caller holds is refused as the whole question, whatever its form, and left to the scrubber inside a longer one", () => {
    const exa = "3f2a9c1e-7b4d-4e8f-9a6b-0c1d2e3f4a5b";
    expect(keyInQuestion(` ${exa} `, [exa])).toBe(true);
    expect(keyInQuestion(`Bearer ${exa}`, [exa])).toBe(true);
    expect(keyInQuestion(`why is ${exa} refused`, [exa])).toBe(false);
    expect(keyInQuestion(`why is ${BRAVE} refused`, [BRAVE])).toBe(false);
  });

  it("refuses with a message that does not repeat the question", () => {
    let refused: unknown;
    try {
      refuseKeyAsQuestion(OPENAI);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(QuestionRefused);
    expect((refused as QuestionRefused).kind).toBe("question_is_a_key");
    expect((refused as QuestionRefused).message).not.toContain("sk-");
    expect((refused as QuestionRefused).message).toMatch(/looks like an API key/);
  });
});
