// A question that is an API key, or holds one the run cannot scrub, is refused before the run
// starts; ordinary questions that merely begin or contain a key's first letters are not.
import { describe, expect, it } from "vitest";
import { keyInQuestion, QuestionRefused, refuseKeyAsQuestion } from "../../src/research/key-in-question";

const OPENAI = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z";
const BRAVE = "BSAbx9Zq3W7pLr2Kt8Vn4Yc6Hm1Jd5Fs0";

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
