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

describe("carriesSecret, a held key in the forms the secret scrubber knows", () => {
  const SLASHED = "tvly-0123456789abc+def/ghi";
  const post = (url: string, headers: Record<string, string>, body?: string) => ({ method: "POST" as const, url, headers, ...(body !== undefined ? { body } : {}) });

  it("percent-encoded in a form body, or in an address a stray % elsewhere keeps from being decoded whole", () => {
    expect(carriesSecret(post("https://api.example/v1", { "content-type": "application/x-www-form-urlencoded" }, `client=${encodeURIComponent(SLASHED)}`), [SLASHED])).toBe(true);
    expect(carriesSecret(get(`https://api.example/v1?q=100%&c=${encodeURIComponent(SLASHED)}`), [SLASHED])).toBe(true);
  });

  it("base64 under a header no list names, JSON-escaped deep in a body, or in another case", () => {
    expect(carriesSecret(get("https://api.example/v1", { "X-Client": btoa(`me:${SLASHED}`) }), [SLASHED])).toBe(true);
    expect(carriesSecret(post("https://api.example/v1", {}, `{"a":{"b":[{"c":"${SLASHED.replace("t", "\\u0074").replace("/", "\\/")}"}]}}`), [SLASHED])).toBe(true);
    expect(carriesSecret(get("https://api.example/v1", { "X-Client": KEY.toUpperCase() }), [KEY])).toBe(true);
  });

  it("a Bearer token in Authorization, whatever the header's case", () => {
    expect(carriesSecret(get("https://api.example/v1", { AUTHORIZATION: `Bearer ${KEY}` }), [])).toBe(true);
  });

  it("still leaves alone a request that holds none of the keys, after a request that held one", () => {
    expect(carriesSecret(get("https://api.example/v1", { "X-Client": KEY }), [KEY])).toBe(true);
    expect(carriesSecret(get("https://en.wikipedia.org/w/api.php?q=kites"), [KEY])).toBe(false);
    expect(carriesSecret(get("https://api.example/v1", { "X-Client": KEY }), [])).toBe(false);
  });
});
