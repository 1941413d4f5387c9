// Requests that carry a key, over Node (what the desktop plugin does with them): redirects on the
// same site only, and requestUrl (the `base` here, a recorder) only when Node could not connect at
// all — never after any answer. Servers on 127.0.0.1 stand in for the service and for the other
// site it redirects to; the other site records the headers it receives.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo, LookupFunction } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CONNECT_MS, keyedOverNode } from "../../src/node/api-request";
import { HttpFailure, systemClock, type Clock, type Http, type HttpRequest } from "../../src/ports";
import { fakeClock } from "../support/fake-clock";

const KEY = "sk-live-0123456789abcdef";
let service: Server;
let other: Server;
let serviceOrigin: string;
let otherOrigin: string;
let otherHeard: IncomingHttpHeaders[];
let serviceHeard: { method: string; url: string; headers: IncomingHttpHeaders; body: string }[];
let viaRequestUrl: HttpRequest[];

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

beforeEach(async () => {
  otherHeard = [];
  serviceHeard = [];
  viaRequestUrl = [];
  other = createServer((req, res) => {
    otherHeard.push(req.headers);
    res.writeHead(200, { "content-type": "application/json" }).end('{"stolen":true}');
  });
  // "localhost" is another host than "127.0.0.1", so another site, on this machine.
  otherOrigin = (await listen(other)).replace("127.0.0.1", "localhost");
  service = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    req.on("end", () => {
      serviceHeard.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      if (req.url?.startsWith("/away")) return void res.writeHead(302, { location: `${otherOrigin}/collect` }).end();
      if (req.url === "/endless") return void res.writeHead(200, { "content-type": "application/json" }).end(`"${"x".repeat(5_000)}"`);
      if (req.url === "/moved") return void res.writeHead(308, { location: "/v1/chat" }).end();
      res.writeHead(200, { "content-type": "application/json" }).end(`{"at":"${req.url}"}`);
    });
  });
  serviceOrigin = await listen(service);
});

afterEach(async () => {
  await Promise.all([service, other].map((s) => new Promise((resolve) => s.close(resolve))));
});

/** requestUrl as far as this file cares: it records what reached it and answers 200. */
const requestUrl: Http = { request: async (req) => (viaRequestUrl.push(req), { status: 200, headers: {}, text: "via requestUrl" }) };
const keyed = (options: { clock?: Clock; lookup?: LookupFunction; carries?: boolean } = {}) =>
  keyedOverNode(requestUrl, {
    clock: options.clock ?? systemClock,
    defaultTimeoutMs: 30_000,
    defaultMaxBytes: 1_000,
    carriesSecret: async () => options.carries ?? true,
    ...(options.lookup ? { lookup: options.lookup } : {}),
  });
const post = (url: string) => ({ method: "POST" as const, url, headers: { "x-api-key": KEY, "content-type": "application/json" }, body: '{"q":"kites"}' });

/** The service by a name, so connections ask the test's lookup (an address literal is never looked up). */
const named = (origin: string) => origin.replace("127.0.0.1", "service.test");

/** A lookup that answers 127.0.0.1 for `answers` calls, then fails as a name that does not resolve. */
function lookupAnswering(answers: number): LookupFunction {
  let calls = 0;
  return (_host, options, callback) => {
    if (calls++ >= answers) return callback(Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" }), "", 0);
    if (options.all) callback(null, [{ address: "127.0.0.1", family: 4 }]);
    else callback(null, "127.0.0.1", 4);
  };
}

describe("a request that carries a key, over Node", () => {
  it("is not taken to another site by a redirect: the other site hears nothing, requestUrl is not asked", async () => {
    const failure = await keyed().request(post(`${serviceOrigin}/away?api_key=${KEY}`)).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(HttpFailure);
    expect(failure).toMatchObject({ kind: "redirect" });
    expect((failure as Error).message).toMatch(/redirected to another site \(localhost:\d+\); the request was not sent there/);
    expect((failure as Error).message).not.toContain(KEY);
    expect(otherHeard).toEqual([]);
    expect(viaRequestUrl).toEqual([]);
  });

  it("follows a redirect on the same site with its method, key and body", async () => {
    const answer = await keyed().request(post(`${serviceOrigin}/moved`));
    expect(answer.text).toBe('{"at":"/v1/chat"}');
    expect(serviceHeard[1]).toMatchObject({ method: "POST", url: "/v1/chat", body: '{"q":"kites"}' });
    expect(serviceHeard[1].headers["x-api-key"]).toBe(KEY);
    expect(serviceHeard[1].headers["content-length"]).toBe("13");
    expect(viaRequestUrl).toEqual([]);
  });

  it("reaches a model server on 127.0.0.1 as configured (only page fetches refuse private addresses)", async () => {
    const answer = await keyed().request({ method: "POST", url: `${serviceOrigin}/v1/chat/completions`, headers: { authorization: `Bearer ${KEY}` }, body: "{}" });
    expect(answer.status).toBe(200);
    expect(serviceHeard[0].headers.authorization).toBe(`Bearer ${KEY}`);
    expect(viaRequestUrl).toEqual([]);
  });

  it("cuts off an answer over the size cap a request that sets none gets (requestUrl's, 10 MB in the plugin)", async () => {
    await expect(keyed().request(post(`${serviceOrigin}/endless`))).rejects.toThrow(/127\.0\.0\.1:\d+ sent more than 1000 bytes; the rest was not read/);
    await expect(keyed().request({ ...post(`${serviceOrigin}/endless`), maxBytes: 10_000 })).resolves.toMatchObject({ status: 200 });
  });

  it("leaves a request without a secret, and a page fetch, to requestUrl", async () => {
    await keyed({ carries: false }).request({ method: "GET", url: `${serviceOrigin}/free` });
    await keyed().request({ method: "GET", url: `${serviceOrigin}/page`, redirect: "manual" });
    expect(viaRequestUrl.map((r) => r.url)).toEqual([`${serviceOrigin}/free`, `${serviceOrigin}/page`]);
    expect(serviceHeard).toEqual([]);
  });
});

describe("when Node cannot connect (a proxy only Chromium knows of)", () => {
  it("a name that does not resolve: requestUrl sends the request, nothing having left over Node", async () => {
    const url = `${named(serviceOrigin)}/v1/chat`;
    const answer = await keyed({ lookup: lookupAnswering(0) }).request(post(url));
    expect(answer.text).toBe("via requestUrl");
    expect(viaRequestUrl.map((r) => r.url)).toEqual([url]);
    expect(serviceHeard).toEqual([]);
  });

  it("a refused connection: requestUrl sends the request", async () => {
    // A port that was just given up, so nobody listens there.
    const gone = createServer();
    const goneOrigin = await listen(gone);
    await new Promise((resolve) => gone.close(resolve));
    const answer = await keyed().request(post(`${goneOrigin}/v1/chat`));
    expect(answer.text).toBe("via requestUrl");
    expect(viaRequestUrl.map((r) => r.url)).toEqual([`${goneOrigin}/v1/chat`]);
  });

  it("a connection not made in time: requestUrl gets the time that is left", async () => {
    const clock = fakeClock();
    const never: LookupFunction = () => undefined;
    const asked = keyed({ clock, lookup: never }).request(post(`${named(serviceOrigin)}/v1/chat`));
    // The request's deadline and its connection's are both set: the connection is waiting.
    await expect.poll(() => clock.pendingTimers()).toBe(2);
    expect(viaRequestUrl).toEqual([]);
    clock.advance(CONNECT_MS);
    await expect(asked).resolves.toMatchObject({ text: "via requestUrl" });
    expect(viaRequestUrl[0].timeoutMs).toBe(30_000 - CONNECT_MS);
  });

  it("a TLS handshake that fails (a certificate Node does not trust, here no TLS at all): requestUrl sends the request", async () => {
    const url = `${serviceOrigin.replace("http:", "https:")}/v1/chat`;
    const answer = await keyed().request(post(url));
    expect(answer.text).toBe("via requestUrl");
    expect(viaRequestUrl.map((r) => r.url)).toEqual([url]);
    expect(serviceHeard).toEqual([]);
  });

  it("never once the request may have left: a connection closed before any answer is a failure, not a retry", async () => {
    service.removeAllListeners("request");
    service.on("request", (req) => req.socket.destroy());
    const failure = await keyed().request(post(`${serviceOrigin}/v1/chat`)).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(HttpFailure);
    expect((failure as Error).message).toMatch(/closed the connection without answering/);
    expect(viaRequestUrl).toEqual([]);
  });

  it("never after an answer: a redirect's target on the same site that cannot be reached is a failure, not a retry through requestUrl", async () => {
    const failure = await keyed({ lookup: lookupAnswering(1) }).request(post(`${named(serviceOrigin)}/moved`)).catch((e: unknown) => e);
    expect(serviceHeard.map((h) => h.url)).toEqual(["/moved"]);
    expect(failure).toBeInstanceOf(HttpFailure);
    expect((failure as Error).message).toMatch(/service\.test:\d+ could not be looked up \(ENOTFOUND\)/);
    expect((failure as Error).message).not.toContain(KEY);
    expect(viaRequestUrl).toEqual([]);
  });
});
