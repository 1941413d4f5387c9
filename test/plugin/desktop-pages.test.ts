// Page fetches in the desktop app go over Node, so the fetch guard follows and checks every redirect
// and looks names up (DESIGN invariant 7); through requestUrl, which follows redirects itself, a
// public page could lead the plugin to this device or the local network. Two servers on 127.0.0.1
// stand in: the "public" page (let through by the guard's test-only allowedOrigins) and a local
// service it redirects to, which counts what reaches it.
import { getEventListeners } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Platform, setRequestUrlHandler, type RequestUrlParam, type StandInResponse } from "../stubs/obsidian";
import * as pageRequest from "../../src/node/page-request";
import * as pinned from "../../src/node/pinned-dns";
import * as apiRequest from "../../src/node/api-request";
import { httpOnceSettled, pageAccess } from "../../src/plugin/desktop-pages";
import { RequestUrlHttp } from "../../src/plugin/request-url-http";
import { guardedGet } from "../../src/promote/fetch-guard";
import { systemClock, type Http, type HttpRequest } from "../../src/ports";
import { socketRequest } from "./socket-request-url";

let page: Server;
let local: Server;
let pageOrigin: string;
let localReached: string[];

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

/** requestUrl as the app has it: redirects followed by itself, up to 20. */
async function followingRequestUrl(param: RequestUrlParam): Promise<StandInResponse> {
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
  localReached = [];
  local = createServer((req, res) => {
    localReached.push(req.url ?? "");
    res.writeHead(200, { "content-type": "text/html" }).end("<p>the router's admin page</p>");
  });
  const localOrigin = await listen(local);
  page = createServer((req, res) => {
    if (req.url === "/moved") return void res.writeHead(302, { location: `${localOrigin}/admin` }).end();
    res.writeHead(200, { "content-type": "text/html" }).end("<p>a public page</p>");
  });
  pageOrigin = await listen(page);
  setRequestUrlHandler(followingRequestUrl);
});

afterEach(async () => {
  setRequestUrlHandler(null);
  Platform.isDesktopApp = true;
  vi.restoreAllMocks();
  await Promise.all([page, local].map((s) => new Promise((resolve) => s.close(resolve))));
});

const get = (url: string) => ({ url, accept: "text/html", timeoutMs: 5_000, maxBytes: 1_000_000 });

describe("page fetches in the plugin", () => {
  it("through requestUrl alone, a redirect to this device is followed unchecked (why desktop goes over Node)", async () => {
    const answered = await guardedGet(get(`${pageOrigin}/moved`), new RequestUrlHttp(), { allowedOrigins: [pageOrigin] });
    expect(answered.kind).toBe("answered");
    expect(localReached).toEqual(["/admin"]);
  });

  it("on desktop, every redirect comes back to the guard, which refuses one to this device: nothing reaches it", async () => {
    const access = await pageAccess(new RequestUrlHttp(), systemClock);
    expect(access.pages).toBe("node");
    const result = await guardedGet(get(`${pageOrigin}/moved`), access.http, { ...access.fetchGuard, allowedOrigins: [pageOrigin] });
    expect(result.kind).toBe("refused");
    if (result.kind === "refused") expect(result.message).toMatch(/redirected to 127\.0\.0\.1.*never fetched/);
    expect(localReached).toEqual([]);
    const plain = await guardedGet(get(`${pageOrigin}/`), access.http, { ...access.fetchGuard, allowedOrigins: [pageOrigin] });
    expect(plain.kind === "answered" && plain.response.text).toBe("<p>a public page</p>");
  });

  it("on desktop, names are looked up and one that resolves to a private address is refused", async () => {
    const lookups: string[] = [];
    const systemLookup = async (host: string) => (lookups.push(host), host === "intranet.example.com" ? ["10.0.0.5"] : ["93.184.216.34"]);
    const access = await pageAccess(new RequestUrlHttp(), systemClock, { loadNode: async () => ({ ...pageRequest, ...pinned, ...apiRequest, systemLookup }) });
    const result = await guardedGet(get("http://intranet.example.com/wiki"), access.http, access.fetchGuard);
    expect(result.kind === "refused" && result.refusal).toMatchObject({ kind: "blocked_address", address: "10.0.0.5", how: "resolved" });
    expect(lookups).toEqual(["intranet.example.com"]);
  });

  it("on desktop, everything but a page and a keyed request (keyless web sources and models) still goes through requestUrl", async () => {
    const asked: HttpRequest[] = [];
    const base: Http = { request: async (req) => (asked.push(req), { status: 200, headers: {}, text: "ok" }) };
    const access = await pageAccess(base, systemClock);
    await access.http.request({ method: "GET", url: `${pageOrigin}/api` });
    expect(asked.map((r) => r.url)).toEqual([`${pageOrigin}/api`]);
    await access.http.request({ method: "GET", url: `${pageOrigin}/`, redirect: "manual" });
    expect(asked).toHaveLength(1);
  });

  it("on mobile, or where the Node adapters do not load, pages stay on requestUrl and nothing breaks", async () => {
    const base = new RequestUrlHttp();
    Platform.isDesktopApp = false;
    const mobile = await pageAccess(base, systemClock, { loadNode: () => Promise.reject(new Error("must not be loaded on mobile")) });
    expect(mobile).toEqual({ http: base, pages: "request_url" });
    Platform.isDesktopApp = true;
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const failed = await pageAccess(base, systemClock, { loadNode: () => Promise.reject(new Error("no node here")) });
    expect(failed).toEqual({ http: base, pages: "request_url" });
    expect(warn).toHaveBeenCalledOnce();
  });
});

describe("httpOnceSettled", () => {
  it("a request stopped while the access is still being settled is cancelled, not left waiting for good", async () => {
    const http = httpOnceSettled(new Promise<never>(() => undefined));
    const controller = new AbortController();
    const answer = http.request({ method: "GET", url: `${pageOrigin}/`, signal: controller.signal }).catch((e: unknown) => e);
    controller.abort();
    expect(await answer).toMatchObject({ name: "HttpFailure", kind: "aborted" });
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("once the access is settled the request goes through it, and its signal holds no listener of the wait", async () => {
    const asked: HttpRequest[] = [];
    const http = httpOnceSettled(Promise.resolve({ http: { request: async (req: HttpRequest) => (asked.push(req), { status: 200, headers: {}, text: "ok" }) } }));
    const controller = new AbortController();
    expect((await http.request({ method: "GET", url: `${pageOrigin}/`, signal: controller.signal })).text).toBe("ok");
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
    controller.abort();
    expect(asked).toHaveLength(1);
  });

  it("Node adapters that load but cannot be set up leave requestUrl, with a warning: the access never fails every request", async () => {
    const base = new RequestUrlHttp();
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const broken = { ...pageRequest, ...pinned, ...apiRequest, pinnedDns: () => { throw new Error("no resolver"); } };
    expect(await pageAccess(base, systemClock, { loadNode: async () => broken })).toEqual({ http: base, pages: "request_url" });
    expect(warn).toHaveBeenCalledOnce();
  });
});
