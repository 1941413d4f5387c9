// DESIGN invariant 3, at the web source itself: a provider hides its own key in every form the one
// scrubber knows (text/secret-scrub.ts `hideKey`), before its body is parsed — so a 200 body or an
// error body that spells the key JSON-\u-escaped, percent-encoded or base64 gives results, errors
// and log lines that already say "[key hidden]", whatever later output scrubbing does.
import { describe, expect, it } from "vitest";
import type { HttpResponse } from "../../src/ports";
import { createBraveWebProvider } from "../../src/websearch/providers/brave-web";
import { createExaProvider } from "../../src/websearch/providers/exa";
import type { ProviderLogEvent } from "../../src/websearch/types";
import { braveKey, exaKey, jsonResponse, scriptedHttp, testContext } from "../websearch/helpers";

const jsonEscaped = (text: string) => Array.from(text, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join("");

describe("a provider's own hiding covers every form of its key", () => {
  it("a 200 body with the key \\u-escaped: results say [key hidden] once parsed", async () => {
    const body = JSON.stringify({ results: [{ url: `https://example.org/?q=${exaKey}`, title: `title ${exaKey}`, highlights: [`text ${exaKey}`] }] }).split(exaKey).join(jsonEscaped(exaKey));
    const answer = (): HttpResponse => ({ status: 200, headers: { "content-type": "application/json" }, text: body });
    const events: ProviderLogEvent[] = [];
    const ok = await createExaProvider().search({ query: "crdt", count: 3 }, testContext(scriptedHttp(answer), { log: (e) => events.push(e) }));
    expect(ok.results[0].title).toBe("title [key hidden]");
    expect(JSON.stringify(ok)).not.toContain(exaKey);
  });

  it("an error body with the key percent-encoded and base64: the error says [key hidden]", async () => {
    const percent = Array.from(Buffer.from(braveKey), (b) => `%${b.toString(16).toUpperCase()}`).join("");
    const answer = (): HttpResponse => jsonResponse({ message: `token ${percent} rejected; Basic ${Buffer.from(`me:${braveKey}`).toString("base64")}` }, 500);
    const events: ProviderLogEvent[] = [];
    const error = await createBraveWebProvider().search({ query: "crdt", count: 3 }, testContext(scriptedHttp(answer), { log: (e) => events.push(e) })).then(() => new Error("no error"), (e: unknown) => e as Error);
    expect(error.message).toContain("token [key hidden] rejected");
    for (const output of [error.message, JSON.stringify(events)]) {
      expect(output).not.toContain(percent);
      expect(output).not.toContain(Buffer.from(braveKey).toString("base64").slice(2, 20));
    }
  });
});
