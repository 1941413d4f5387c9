// A key goes only to its own service in the desktop app too. requestUrl follows redirects itself,
// headers and all, so a web source, a SearXNG instance or a model base URL that answered 302 to
// another site handed it the key. On desktop, requests that carry a secret go over Node instead,
// where a redirect is followed on the same site only. Servers on 127.0.0.1 stand in: the service,
// and the other site, which records every header it receives.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Platform, setRequestUrlHandler, type RequestUrlParam, type StandInResponse } from "../stubs/obsidian";
import { pageAccess } from "../../src/plugin/desktop-pages";
import { RequestUrlHttp } from "../../src/plugin/request-url-http";
import { systemClock, type HttpRequest } from "../../src/ports";
import { socketRequest } from "./socket-request-url";

const KEY = "BSA-live-0123456789abcdef";
let service: Server;
let other: Server;
let serviceOrigin: string;
let otherHeard: { url: string; headers: IncomingHttpHeaders; body: string }[];
let requestUrlAsked: string[];

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

/** requestUrl as the app has it: redirects followed by itself with every header and the body. */
async function followingRequestUrl(param: RequestUrlParam): Promise<StandInResponse> {
  requestUrlAsked.push(param.url);
  let url = param.url;
  for (let hop = 0; hop < 20; hop++) {
    const answer = await socketRequest({ ...param, url });
    const location = answer.headers?.["location"];
    if (answer.status < 300 || answer.status >= 400 || !location) return answer;
    url = new URL(location, url).href;
  }
  throw new Error("too many redirects");
}

beforeEach(async () => {
  otherHeard = [];
  requestUrlAsked = [];
  other = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    req.on("end", () => {
      otherHeard.push({ url: req.url ?? "", headers: req.headers, body });
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  // "localhost" is another host than "127.0.0.1": another site, on this machine.
  const otherOrigin = (await listen(other)).replace("127.0.0.1", "localhost");
  service = createServer((req, res) => {
    if (req.url?.startsWith("/away")) return void res.writeHead(302, { location: `${otherOrigin}/collect` }).end();
    res.writeHead(200, { "content-type": "application/json" }).end('{"results":[]}');
  });
  serviceOrigin = await listen(service);
  setRequestUrlHandler(followingRequestUrl);
});

afterEach(async () => {
  setRequestUrlHandler(null);
  Platform.isDesktopApp = true;
  await Promise.all([service, other].map((s) => new Promise((resolve) => s.close(resolve))));
});

/** Each way a key travels: Brave's token, Exa's and Anthropic's header, SearXNG's basic auth, a query parameter, a held key in a body. */
const keyedRequests: Record<string, (origin: string) => HttpRequest> = {
  "a Brave token": (origin) => ({ method: "GET", url: `${origin}/away?q=kites`, headers: { "X-Subscription-Token": KEY } }),
  "an x-api-key": (origin) => ({ method: "POST", url: `${origin}/away`, headers: { "x-api-key": KEY, "Content-Type": "application/json" }, body: "{}" }),
  "a SearXNG password": (origin) => ({ method: "GET", url: `${origin}/away/search`, headers: { Authorization: `Basic ${btoa(`me:${KEY}`)}` } }),
  "a key in the query": (origin) => ({ method: "GET", url: `${origin}/away?api_key=${KEY}` }),
  "a held key in the body": (origin) => ({ method: "POST", url: `${origin}/away`, headers: { "Content-Type": "application/json" }, body: JSON.stringify({ credential_blob: KEY }) }),
};

describe("requests that carry a key, in the desktop app", () => {
  it("through requestUrl alone, a 302 to another site hands it the key (why they go over Node)", async () => {
    await new RequestUrlHttp().request({ method: "GET", url: `${serviceOrigin}/away`, headers: { "X-Subscription-Token": KEY } });
    expect(otherHeard.map((h) => h.headers["x-subscription-token"])).toEqual([KEY]);
  });

  it.each(Object.keys(keyedRequests))("with %s, a 302 to another site is refused: the other site hears nothing, the message names no key", async (how) => {
    const access = await pageAccess(new RequestUrlHttp(), systemClock, { keysHeld: async () => [KEY] });
    const failure = await access.http.request(keyedRequests[how](serviceOrigin)).catch((e: unknown) => e);
    expect((failure as Error).message).toMatch(/redirected to another site \(localhost:\d+\); the request was not sent there/);
    expect((failure as Error).message).not.toContain(KEY);
    expect(otherHeard).toEqual([]);
    expect(requestUrlAsked).toEqual([]);
  });

  it("keys that cannot be read: the request is taken to carry one", async () => {
    const access = await pageAccess(new RequestUrlHttp(), systemClock, { keysHeld: () => Promise.reject(new Error("secret storage locked")) });
    await expect(access.http.request({ method: "POST", url: `${serviceOrigin}/away`, body: KEY })).rejects.toThrow(/redirected to another site/);
    expect(otherHeard).toEqual([]);
  });

  it("a request without a secret stays on requestUrl", async () => {
    const access = await pageAccess(new RequestUrlHttp(), systemClock, { keysHeld: async () => [KEY] });
    const answer = await access.http.request({ method: "GET", url: `${serviceOrigin}/search?q=kites` });
    expect(answer.text).toBe('{"results":[]}');
    expect(requestUrlAsked).toEqual([`${serviceOrigin}/search?q=kites`]);
  });

  it("on mobile (no Node) they stay on requestUrl, which still follows a redirect anywhere", async () => {
    Platform.isDesktopApp = false;
    const access = await pageAccess(new RequestUrlHttp(), systemClock, { keysHeld: async () => [KEY] });
    await access.http.request({ method: "GET", url: `${serviceOrigin}/away`, headers: { "X-Subscription-Token": KEY } });
    expect(otherHeard).toHaveLength(1);
  });
});
