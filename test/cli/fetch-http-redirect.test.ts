// A provider's key rides in a header of its own (Exa's `x-api-key`, Brave's token), and Node's
// fetch, following a redirect to another site, drops only `authorization`: a base URL that
// answered 307 to another host handed that host the key and the query. The CLI's Http follows
// redirects itself: on the same site as asked, with everything; to another site, not at all.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFetchHttp } from "../../src/cli/fetch-http";
import { HttpFailure } from "../../src/ports";

const KEY = "sk-test-secret-123";
let asked: Server;
let other: Server;
let askedOrigin: string;
let otherOrigin: string;
let reachedOther: IncomingHttpHeaders[];
let reachedAsked: { method: string; url: string; headers: IncomingHttpHeaders; body: string }[];

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

beforeEach(async () => {
  reachedOther = [];
  reachedAsked = [];
  other = createServer((req, res) => {
    reachedOther.push(req.headers);
    res.writeHead(200, { "content-type": "application/json" }).end('{"results":[]}');
  });
  // The other site is "localhost", the asked one 127.0.0.1: another host on this machine.
  otherOrigin = (await listen(other)).replace("127.0.0.1", "localhost");
  asked = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    req.on("end", () => {
      reachedAsked.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      if (req.url === "/away") return void res.writeHead(307, { location: `${otherOrigin}/search` }).end();
      if (req.url === "/moved") return void res.writeHead(308, { location: "/search" }).end();
      if (req.url === "/see-other") return void res.writeHead(303, { location: "/result" }).end();
      if (req.url === "/loop") return void res.writeHead(302, { location: "/loop" }).end();
      res.writeHead(200, { "content-type": "application/json" }).end(`{"at":"${req.url}"}`);
    });
  });
  askedOrigin = await listen(asked);
});

afterEach(async () => {
  await Promise.all([asked, other].map((s) => new Promise((resolve) => s.close(resolve))));
});

const http = () => createFetchHttp({ pageDns: null });
const post = (url: string) => ({ method: "POST" as const, url, headers: { "x-api-key": KEY, "content-type": "application/json" }, body: '{"query":"kites"}' });

describe("redirects of a request that carries a key", () => {
  it("to another site are not followed: the other site never hears of the request", async () => {
    const failure = await http().request(post(`${askedOrigin}/away`)).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(HttpFailure);
    // The asked server answered: of the `redirect` kind, never `network` ("Could not reach …").
    expect(failure).toMatchObject({ kind: "redirect" });
    expect((failure as HttpFailure).message).toMatch(/redirected to another site \(localhost:\d+\); the request was not sent there/);
    expect(reachedOther).toEqual([]);
  });

  it("on the same site are followed with the method, key and body (307/308), or as a GET without a body (303)", async () => {
    const moved = await http().request(post(`${askedOrigin}/moved`));
    expect(moved.text).toBe('{"at":"/search"}');
    expect(reachedAsked[1]).toMatchObject({ method: "POST", url: "/search", body: '{"query":"kites"}' });
    expect(reachedAsked[1].headers["x-api-key"]).toBe(KEY);
    const seen = await http().request(post(`${askedOrigin}/see-other`));
    expect(seen.text).toBe('{"at":"/result"}');
    expect(reachedAsked[3]).toMatchObject({ method: "GET", url: "/result", body: "" });
  });

  // The server answered six times: "Could not reach SearXNG: 127.0.0.1:… redirected more than 5 times." said otherwise.
  it("that never end are given up on, saying the server kept redirecting", async () => {
    const failure = await http().request({ method: "GET", url: `${askedOrigin}/loop` }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(HttpFailure);
    expect(failure).toMatchObject({ kind: "redirect" });
    expect((failure as HttpFailure).message).toBe(`${new URL(askedOrigin).host} kept redirecting (more than 5 times); the request was given up on.`);
    expect(reachedAsked).toHaveLength(6);
  });

  it("are handed back as they are to a caller that follows them itself (the fetch guard)", async () => {
    const answer = await http().request({ method: "GET", url: `${askedOrigin}/away`, redirect: "manual" });
    expect(answer.status).toBe(307);
    expect(reachedOther).toEqual([]);
  });
});
