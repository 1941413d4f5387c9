import { describe, expect, it } from "vitest";
import { defaultSettings } from "../../src/settings";
import { resolveSearchRequest, searchLimits } from "../../src/websearch/request-limits";

const shortened = (query: string) => resolveSearchRequest({ query, count: 5 }, defaultSettings());

describe("resolveSearchRequest: a query longer than providers accept", () => {
  it("is cut by characters, never through the middle of one (a question in one long run, as Chinese is)", () => {
    // 397 characters and then emoji: cut by UTF-16 units, the 400th unit was half of the second one.
    const text = `質${"日本語の質問".repeat(66)}`;
    const { request, warnings } = shortened(`${text}${"😀".repeat(5)}`);
    expect(request.query).toBe(`${text}😀😀😀`);
    expect(new URLSearchParams({ q: request.query }).toString()).not.toContain("%EF%BF%BD");
    expect(warnings).toEqual(["query shortened to 1 word (400 characters; providers accept at most 50 words, 400 characters)"]);
  });

  it("is cut at the last whole word when it has spaces", () => {
    const { request } = shortened(`${"a".repeat(390)} abcdefghijklmnop`);
    expect(request.query).toBe("a".repeat(390));
  });

  it("of at most 400 characters is left alone, emoji counted as one each", () => {
    const query = "😀".repeat(searchLimits.queryChars);
    expect(shortened(query)).toMatchObject({ request: { query }, warnings: [] });
  });
});
