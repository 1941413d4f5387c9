// Page reading against a real HTTP server on 127.0.0.1, through the CLI's real fetch adapter:
// redirects followed hop by hop, a redirect loop, a redirect off the allowed origin, a page that
// never finishes, and bodies too big to read. The guard refuses 127.0.0.1 in production; this test
// lets its own server's origin through at the port (`allowedOrigins`), and nothing else.
import { readFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodePageReader } from "../../../src/cli/dom-parser";
import { createFetchHttp } from "../../../src/cli/fetch-http";
import type { Http } from "../../../src/ports";
import { PAGE_READ_LIMITS } from "../../../src/research/stages/page-fetch";
import { MAX_REDIRECTS } from "../../../src/promote/fetch-guard";
import { createReplayHttp } from "../../../src/websearch/replay";
import { REPO_ROOT } from "../../support/recording-http";
import { sampleVaultHarness } from "../../support/research-harness";

const GUIDE_HTML = (JSON.parse(readFileSync(path.join(REPO_ROOT, "evals/research/replay/page-reading/quillsync-compaction-guide.json"), "utf8")) as { body: string }).body;

let server: Server;
let origin = "";
const seen: { url: string; headers: IncomingHttpHeaders }[] = [];
const slowResponses: ServerResponse[] = [];

function route(url: string, res: ServerResponse): void {
  const loop = /^\/loop\/(\d+)$/.exec(url);
  if (url === "/old") return void res.writeHead(301, { location: "/guide" }).end();
  if (loop) return void res.writeHead(302, { location: `/loop/${Number(loop[1]) + 1}` }).end();
  if (url === "/escape") return void res.writeHead(302, { location: `http://localhost:${new URL(origin).port}/guide` }).end();
  if (url === "/slow") {
    res.writeHead(200, { "content-type": "text/html" });
    res.write("<!doctype html><html><body><p>");
    slowResponses.push(res);
    return;
  }
  if (url === "/huge") {
    res.writeHead(200, { "content-type": "text/html" });
    const chunk = `<p>${"x".repeat(64 * 1024)}</p>`;
    for (let i = 0; i < 48; i++) res.write(chunk);
    return void res.end();
  }
  if (url === "/announced-huge") return void res.writeHead(200, { "content-type": "text/html", "content-length": String(50 * 1024 * 1024) }).end("<p>x</p>");
  res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(GUIDE_HTML);
}

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ url: req.url ?? "", headers: req.headers });
    route(req.url ?? "", res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const res of slowResponses) res.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** Search from a recording (results at the local server), pages from the server through real fetch. */
function webFor(paths: string[]): Http {
  const results = paths.map((p, i) => ({ title: `Quillsync tombstones ${i + 1}`, url: `${origin}${p}`, description: "Quillsync compaction.", type: "search_result" }));
  const search = createReplayHttp([{ method: "GET", url: "https://api.search.brave.com/res/v1/web/search", status: 200, headers: { "content-type": "application/json" }, body: { type: "search", web: { type: "search", results } } }]);
  const pages = createFetchHttp();
  return { request: (req) => (req.url.startsWith("https://api.search.brave.com/") ? search.request(req) : pages.request(req)) };
}

async function readFrom(paths: string[]) {
  const h = await sampleVaultHarness();
  const result = await h.run(
    { question: "How long does Quillsync keep tombstones before compacting them?", mode: "on-weak", providers: ["brave-web"], writeTrace: false, retrievalOnly: true },
    { http: webFor(paths), readPage: nodePageReader, fetchGuard: { allowedOrigins: [origin] } },
  );
  const byPath = (p: string) => result.page_reads?.find((r) => r.url === `${origin}${p}`);
  return { result, byPath };
}

describe("reading pages from a real server", () => {
  it("follows a redirect itself, checks the hop, and reads the page it lands on", async () => {
    seen.length = 0;
    const { byPath, result } = await readFrom(["/old"]);
    expect(byPath("/old")).toMatchObject({ status: "read", kind: "html" });
    expect(seen.map((s) => s.url)).toEqual(["/old", "/guide"]);
    expect(result.trace.events.find((e) => e.type === "page_fetch")?.data).toMatchObject({ final_url: `${origin}/guide` });
  });

  it("sends a page no cookie, no key and no credentials", async () => {
    seen.length = 0;
    await readFrom(["/guide"]);
    for (const { headers } of seen) {
      expect(headers.cookie).toBeUndefined();
      expect(headers.authorization).toBeUndefined();
      expect(Object.keys(headers).filter((h) => /token|key|secret/i.test(h))).toEqual([]);
    }
  });

  it(`gives up on a redirect loop after ${MAX_REDIRECTS} hops, and on a redirect off the allowed origin before following it`, async () => {
    seen.length = 0;
    const { byPath } = await readFrom(["/loop/0", "/escape"]);
    // The site answered every time: a redirect loop, as on mobile, not the guard's refusal.
    expect(byPath("/loop/0")).toMatchObject({ status: "skipped", reason: { kind: "unusable", problem: { kind: "redirect_loop" } }, message: `127.0.0.1:${new URL(origin).port} kept redirecting (more than ${MAX_REDIRECTS} times); the page was given up on.` });
    expect(seen.filter((s) => s.url.startsWith("/loop/"))).toHaveLength(MAX_REDIRECTS + 1);
    expect(byPath("/escape")).toMatchObject({ status: "skipped", reason: { kind: "refused", refusal: { kind: "blocked_address", host: "localhost", range: "loopback" } } });
    expect(seen.filter((s) => s.headers.host?.startsWith("localhost"))).toEqual([]);
  });

  it("stops reading a body past the size cap, announced or not, before parsing it", async () => {
    const { byPath } = await readFrom(["/huge", "/announced-huge"]);
    for (const p of ["/huge", "/announced-huge"]) {
      expect(byPath(p), p).toMatchObject({ status: "skipped", reason: { kind: "unusable", problem: { kind: "too_large" } } });
    }
    expect(PAGE_READ_LIMITS.maxBytes).toBe(2 * 1024 * 1024);
  });

  it("gives up on a page that never finishes, at the per-page time limit, and keeps the rest of the run", async () => {
    const h = await sampleVaultHarness();
    // Both pages race deadlines on the one fake clock: it moves once, after the good page was read
    // and while the slow one is still sending.
    let moved = false;
    const waiting = setInterval(() => {
      const guideRead = h.progress.some((e) => e.stage === "read_pages" && e.detail.startsWith("Read "));
      if (moved || slowResponses.length === 0 || !guideRead) return;
      moved = true;
      h.clock.advance(PAGE_READ_LIMITS.pageMs + 1);
    }, 10);
    try {
      const result = await h.run(
        { question: "How long does Quillsync keep tombstones before compacting them?", mode: "on-weak", providers: ["brave-web"], writeTrace: false, retrievalOnly: true },
        { http: webFor(["/slow", "/guide"]), readPage: nodePageReader, fetchGuard: { allowedOrigins: [origin] } },
      );
      expect(result.page_reads?.find((r) => r.url === `${origin}/slow`)).toMatchObject({ status: "skipped", reason: { kind: "time_limit" } });
      expect(result.page_reads?.find((r) => r.url === `${origin}/guide`)).toMatchObject({ status: "read" });
    } finally {
      clearInterval(waiting);
    }
  });

  it("refuses the same server without the allow-list: the default guard never reaches 127.0.0.1", async () => {
    seen.length = 0;
    const h = await sampleVaultHarness();
    const result = await h.run(
      { question: "How long does Quillsync keep tombstones?", mode: "on-weak", providers: ["brave-web"], writeTrace: false, retrievalOnly: true },
      { http: webFor(["/guide"]), readPage: nodePageReader },
    );
    expect(result.page_reads?.[0]).toMatchObject({ status: "skipped", reason: { kind: "refused" } });
    expect(seen).toEqual([]);
  });
});
