// The CLI's Http on its page path (a request that hands redirects back goes over node:http with the
// pinned resolver): what a page fetch gets back — status, lower-cased headers, a 3xx handed back,
// a gzip body decoded, a compressed body cut off mid-transfer, the byte cap announced or not —
// against a server on 127.0.0.1.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pinnedDns } from "../../src/node/pinned-dns";
import { createFetchHttp } from "../../src/cli/fetch-http";
import { HttpFailure } from "../../src/ports";

/** Enough text that its compressed form is many bytes, so half of it is a body cut off mid-way. */
const LONG_PAGE = `<p>${Array.from({ length: 2000 }, (_, i) => `word${i * 7919}`).join(" ")}</p>`;
/** About 1 KB on the wire, 1 MB decoded. */
const GZIP_BOMB = gzipSync("x".repeat(1_000_000));
const COMPRESSED: Record<string, Uint8Array> = { gzip: gzipSync(LONG_PAGE), deflate: deflateSync(LONG_PAGE), br: brotliCompressSync(LONG_PAGE) };

let server: Server;
let origin: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === "/moved") return void res.writeHead(301, { Location: "/page" }).end();
    if (req.url === "/gzip") return void res.writeHead(200, { "content-type": "text/html", "content-encoding": "gzip" }).end(gzipSync("<p>squeezed</p>"));
    const cut = /^\/cut\/(\w+)$/.exec(req.url ?? "");
    if (cut) {
      const body = COMPRESSED[cut[1]];
      res.writeHead(200, { "content-type": "text/html", "content-encoding": cut[1] });
      return void res.write(body.subarray(0, body.byteLength >> 1), () => res.socket?.destroy());
    }
    if (req.url === "/gzip-bomb") return void res.writeHead(200, { "content-type": "text/html", "content-encoding": "gzip" }).end(GZIP_BOMB);
    if (req.url === "/big") return void res.writeHead(200, { "content-type": "text/html" }).end("x".repeat(5000));
    if (req.url === "/announced") return void res.writeHead(200, { "content-length": "999999" }).end("x");
    // A Content-Length that promises more than comes: the server closes mid-body.
    if (req.url === "/broken-off") return void res.writeHead(200, { "content-type": "text/html", "content-length": "5000" }).write("<p>half", () => res.socket?.destroy());
    // An encoding named, and no bytes sent: what some servers do on a redirect or an empty answer.
    const empty = /^\/empty\/(\d+)\/([\w-]+)$/.exec(req.url ?? "");
    if (empty) return void res.writeHead(Number(empty[1]), { "content-encoding": empty[2], ...(empty[1] === "302" ? { location: "/page" } : {}) }).end();
    if (req.url === "/huge-headers") return void res.writeHead(200, { "x-filler": "a".repeat(100_000) }).end("<p>x</p>");
    if (req.url === "/not-gzip") return void res.writeHead(200, { "content-type": "text/html", "content-encoding": "gzip" }).end("<p>plain, not gzip</p>");
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8", "X-Seen": req.headers.accept ?? "" }).end("<p>héllo</p>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const http = createFetchHttp({ pageDns: pinnedDns(async () => ["127.0.0.1"]) });
const page = (path: string, maxBytes?: number, timeoutMs = 2000) =>
  http.request({ method: "GET", url: `${origin}${path}`, headers: { accept: "text/html" }, redirect: "manual", timeoutMs, ...(maxBytes ? { maxBytes } : {}) });

/** What each broken answer is called, whichever path (a page over node:http, or Node's fetch) met it. */
const BROKEN_ANSWERS: [path: string, words: RegExp][] = [
  ["/broken-off", /closed the connection before the whole answer had arrived/],
  ["/huge-headers", /sent over 16 KB of headers, more than is read; its answer was not read\./],
  ["/not-gzip", /sent a compressed body that could not be unpacked \(incorrect header check\)\./],
];

describe("createFetchHttp: a broken answer is said in plain words, naming the host", () => {
  // Node's own words were "aborted" (read as if the user had cancelled), "Parse Error: Header
  // overflow", "incorrect header check", "terminated": a promoted note kept them as its reason.
  const viaFetch = createFetchHttp({ pageDns: null });
  for (const [path, words] of BROKEN_ANSWERS) {
    it(`${path}, on both paths`, async () => {
      const onPage = await page(path, undefined, 60_000).catch((e: unknown) => e);
      const onFetch = await viaFetch.request({ method: "GET", url: `${origin}${path}`, timeoutMs: 60_000, maxBytes: 1_000_000 }).catch((e: unknown) => e);
      for (const error of [onPage, onFetch]) {
        expect(error).toBeInstanceOf(HttpFailure);
        expect((error as HttpFailure).kind).toBe("network");
        expect((error as HttpFailure).message).toMatch(words);
        expect((error as HttpFailure).message.startsWith(new URL(origin).host)).toBe(true);
        expect((error as HttpFailure).message).not.toMatch(/^aborted$|terminated|fetch failed|Parse Error/);
      }
    });
  }
});

describe("createFetchHttp, page path", () => {
  it("gives the status, lower-cased headers and the body as text and bytes; only the headers asked for are sent", async () => {
    const got = await page("/page");
    expect(got.status).toBe(200);
    expect(got.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(got.headers["x-seen"]).toBe("text/html");
    expect(got.text).toBe("<p>héllo</p>");
    expect(got.bytes?.byteLength).toBe(13);
  });

  it("hands a redirect back as it is", async () => {
    const got = await page("/moved");
    expect(got).toMatchObject({ status: 301, headers: { location: "/page" } });
  });

  it("decodes a gzip body a page sent unasked", async () => {
    expect((await page("/gzip")).text).toBe("<p>squeezed</p>");
  });

  // The fetch's deadline is far past the test's own limit: a body left waiting would fail the test, never pass as a timeout.
  it("fails a compressed body cut off mid-transfer at once, as a network error", { timeout: 5000 }, async () => {
    for (const encoding of Object.keys(COMPRESSED)) {
      const error = await page(`/cut/${encoding}`, undefined, 60_000).catch((e: unknown) => e);
      expect(error, encoding).toBeInstanceOf(HttpFailure);
      expect((error as HttpFailure).kind, encoding).toBe("network");
    }
  });

  it("hands back a redirect or an empty answer that names an encoding but sends no bytes (not 'unexpected end of file')", async () => {
    for (const encoding of ["gzip", "deflate", "br"]) {
      expect(await page(`/empty/302/${encoding}`), encoding).toMatchObject({ status: 302, headers: { location: "/page" }, text: "" });
      expect(await page(`/empty/200/${encoding}`), encoding).toMatchObject({ status: 200, text: "" });
    }
  });

  it("refuses a body over the cap, sent or announced, as too_large", async () => {
    for (const path of ["/big", "/announced"]) {
      const error = await page(path, 1000).catch((e: unknown) => e);
      expect(error, path).toBeInstanceOf(HttpFailure);
      expect((error as HttpFailure).kind, path).toBe("too_large");
    }
  });

  it("counts the cap on the decoded bytes, so a small gzip body that unpacks huge is too_large", async () => {
    expect(GZIP_BOMB.byteLength).toBeLessThan(10_000);
    const error = await page("/gzip-bomb", 10_000).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpFailure);
    expect((error as HttpFailure).kind).toBe("too_large");
  });
});
