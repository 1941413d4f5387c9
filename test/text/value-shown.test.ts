import { describe, expect, it } from "vitest";
import { looksLikeApiKey } from "../../src/settings";
import { KEY_NOT_REPEATED, valueShown } from "../../src/text/value-shown";

describe("valueShown", () => {
  it("quotes a value, and names one that looks like a key without repeating it", () => {
    expect(valueShown("gemini", looksLikeApiKey)).toBe('"gemini"');
    expect(valueShown("sk-proj-0123456789abcdef", looksLikeApiKey)).toBe(KEY_NOT_REPEATED);
    expect(valueShown("AIzaSy0123456789abcdef", looksLikeApiKey)).toBe("a value that looks like an API key");
  });
});
