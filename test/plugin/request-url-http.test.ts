// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setRequestUrlHandler, type RequestUrlParam } from "../stubs/obsidian";
import { HttpFailure } from "../../src/ports";
import { RequestUrlHttp } from "../../src/plugin/request-url-http";

describe("requestUrl Http", () => {
  let seen: RequestUrlParam[];
  beforeEach(() => {
    seen = [];
  });
  afterEach(() => {
    setRequestUrlHandler(null);
    vi.useRealTimers();
  });

  it("passes the request through without throwing on error statuses, and lower-cases header names", async () => {
    setRequestUrlHandler((req) => {
      seen.push(req);
      return { status: 429, headers: { "Retry-After": "3", "Content-Type": "application/json" }, body: '{"error":"slow down"}' };
    });
    const res = await new RequestUrlHttp().request({
      method: "POST",
      url: "https://api.example.com/search",
      headers: { "Content-Type": "application/json", "X-Subscription-Token": "k" },
      body: '{"q":"x"}',
    });
    expect(res).toMatchObject({ status: 429, headers: { "retry-after": "3", "content-type": "application/json" }, text: '{"error":"slow down"}' });
    expect(new TextDecoder().decode(res.bytes)).toBe('{"error":"slow down"}');
    expect(seen[0]).toMatchObject({ method: "POST", throw: false, contentType: "application/json", body: '{"q":"x"}' });
    expect(seen[0].headers).toEqual({ "X-Subscription-Token": "k" });
  });

  it("gives up with a timeout failure when no answer comes in time", async () => {
    vi.useFakeTimers();
    setRequestUrlHandler(() => new Promise(() => {}));
    const pending = new RequestUrlHttp().request({ method: "GET", url: "https://slow.example.com/a?q=secret", timeoutMs: 2000 });
    const check = expect(pending).rejects.toMatchObject({ kind: "timeout" });
    await vi.advanceTimersByTimeAsync(2000);
    await check;
    await pending.catch((e: HttpFailure) => expect(e.message).not.toContain("secret"));
  });

  it("clears its timer once the answer is in", async () => {
    vi.useFakeTimers();
    setRequestUrlHandler(() => ({ status: 200, body: "ok" }));
    await new RequestUrlHttp().request({ method: "GET", url: "https://example.com/", timeoutMs: 60_000 });
    expect(vi.getTimerCount()).toBe(0);
  });

  it("stops waiting when the run is cancelled", async () => {
    setRequestUrlHandler(() => new Promise(() => {}));
    const controller = new AbortController();
    const pending = new RequestUrlHttp().request({ method: "GET", url: "https://example.com/", signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ kind: "aborted" });
    const already = new RequestUrlHttp().request({ method: "GET", url: "https://example.com/", signal: controller.signal });
    await expect(already).rejects.toBeInstanceOf(HttpFailure);
  });

  it("refuses bodies over the cap, whether declared or received", async () => {
    setRequestUrlHandler(() => ({ status: 200, body: "x".repeat(2048) }));
    await expect(new RequestUrlHttp().request({ method: "GET", url: "https://big.example.com/", maxBytes: 1024 })).rejects.toMatchObject({
      kind: "too_large",
    });
    setRequestUrlHandler(() => ({ status: 200, headers: { "Content-Length": "999999" }, body: "small" }));
    await expect(new RequestUrlHttp({ maxBytes: 1000 }).request({ method: "GET", url: "https://big.example.com/" })).rejects.toMatchObject({
      kind: "too_large",
    });
    setRequestUrlHandler(() => ({ status: 200, body: "x".repeat(1024) }));
    await expect(new RequestUrlHttp().request({ method: "GET", url: "https://ok.example.com/", maxBytes: 1024 })).resolves.toMatchObject({ status: 200 });
  });

  it("reports a network failure with the address but not its query", async () => {
    setRequestUrlHandler(() => {
      throw new Error("net::ERR_NAME_NOT_RESOLVED");
    });
    const error = await new RequestUrlHttp().request({ method: "GET", url: "https://nowhere.example/path?key=abc" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpFailure);
    expect(error).toMatchObject({ kind: "network" });
    expect((error as Error).message).toContain("https://nowhere.example/path");
    expect((error as Error).message).toContain("ERR_NAME_NOT_RESOLVED");
    expect((error as Error).message).not.toContain("abc");
  });

  // "Could not reach …: net::ERR_TOO_MANY_REDIRECTS" for a server that answered, every time; then, of
  // the `network` kind, "Could not reach SearXNG:" before the right words.
  it.each(["net::ERR_TOO_MANY_REDIRECTS", "Too many follow-up requests: 21", "too many HTTP redirects"])("says a redirect loop (%s) as one that kept redirecting, of the kind of a server reached, without its query", async (said) => {
    setRequestUrlHandler(() => {
      throw new Error(said);
    });
    const error = await new RequestUrlHttp().request({ method: "GET", url: "http://127.0.0.1:8888/search?q=kites" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpFailure);
    expect(error).toMatchObject({ kind: "redirect" });
    expect((error as Error).message).toBe("http://127.0.0.1:8888/search kept redirecting; the request was given up on.");
  });
});
