// Which requests leave requestUrl for Node on desktop: those that carry a secret, by a credential's
// name or by a held key's value anywhere in them; the rest (keyless sources and models) stay.
import { describe, expect, it } from "vitest";
import { carriesSecret } from "../../src/plugin/carries-secret";

const KEY = "tvly-0123456789abcdef";
const get = (url: string, headers?: Record<string, string>) => ({ method: "GET" as const, url, ...(headers ? { headers } : {}) });

describe("carriesSecret", () => {
  it("sees a credential by its header or parameter name, or a user and password in the address", () => {
    expect(carriesSecret(get("https://api.search.brave.com/res/v1/web/search?q=kites", { "X-Subscription-Token": "x" }), [])).toBe(true);
    expect(carriesSecret(get("https://api.anthropic.com/v1/messages", { "x-api-key": "x" }), [])).toBe(true);
    expect(carriesSecret(get("https://searx.example/search", { Authorization: "Basic bWU6cHc=" }), [])).toBe(true);
    expect(carriesSecret(get("https://maps.example/api?key=abc&q=kites"), [])).toBe(true);
    expect(carriesSecret(get("https://me:pw@searx.example/search"), [])).toBe(true);
  });

  it("sees a held key wherever it is: a JSON body, an unforeseen header, an escaped query", () => {
    expect(carriesSecret({ method: "POST", url: "https://api.tavily.com/search", body: JSON.stringify({ blob: KEY }) }, [KEY])).toBe(true);
    expect(carriesSecret(get("https://api.example/v1", { "X-Client": KEY }), [KEY])).toBe(true);
    expect(carriesSecret(get(`https://api.example/v1?c=${encodeURIComponent("a+b/" + KEY)}`), ["a+b/" + KEY])).toBe(true);
  });

  it("leaves a keyless request alone: words like max_tokens and keywords are not credentials", () => {
    expect(carriesSecret(get("https://en.wikipedia.org/w/api.php?action=query&srsearch=kites"), [KEY])).toBe(false);
    expect(carriesSecret({ method: "POST", url: "http://127.0.0.1:11434/v1/chat/completions", headers: { "content-type": "application/json" }, body: '{"max_tokens":5,"keywords":"kites"}' }, [KEY])).toBe(false);
  });
});
