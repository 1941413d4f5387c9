// Promotion through the one fetch guard: tried as a new user would, an outside row that points at
// a server on this machine. The server is real (127.0.0.1) and so is the CLI's fetch adapter; the
// guard must refuse before anything is asked of it, and nothing may be written.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodePageReader } from "../../src/cli/dom-parser";
import { createFetchHttp } from "../../src/cli/fetch-http";
import { promoteOutsideRow } from "../../src/promote/promote";
import { renderTraceNote } from "../../src/notes/trace-note";
import { defaultSettings } from "../../src/settings";
import { fixedClock, MemoryNoteStore, traceWith, webRow } from "../support/promote-fixtures";

const TRACE_PATH = "Research/Traces/local.md";
const ARTICLE = `<!doctype html><html><head><title>Admin panel</title></head><body><article><h1>Router admin</h1><p>${"Secret settings of this machine that must never be saved. ".repeat(10)}</p></article></body></html>`;

let server: Server;
let origin = "";
const served: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    served.push(req.url ?? "");
    if (req.url === "/bounce" || req.url === "/bounce-out") {
      res.writeHead(302, { location: req.url === "/bounce" ? "/admin" : `http://localhost:${new URL(origin).port}/admin` });
      res.end();
      return;
    }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(ARTICLE);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function promote(url: string, extra: { allowedOrigins?: string[] } = {}) {
  const row = webRow("brave", url, "Router admin", "An admin page.");
  const trace = traceWith("what is on my router?", [row]);
  const store = new MemoryNoteStore({ [TRACE_PATH]: renderTraceNote(trace) });
  const run = promoteOutsideRow({
    row,
    trace,
    tracePath: TRACE_PATH,
    store,
    http: createFetchHttp(),
    clock: fixedClock,
    settings: defaultSettings(),
    readPage: nodePageReader,
    updateTraceNote: store.update,
    ...(extra.allowedOrigins ? { fetchGuard: { allowedOrigins: extra.allowedOrigins } } : {}),
  });
  return { run, store };
}

describe("promotion refuses pages on this device", () => {
  it("does not fetch or save an outside row that points at 127.0.0.1", async () => {
    served.length = 0;
    const { run, store } = promote(`${origin}/admin`);
    const result = await run;
    expect(result).toMatchObject({ status: "failed", error: { kind: "fetch_refused" } });
    expect(result.message).toContain("127.0.0.1, a loopback address");
    expect(served).toEqual([]);
    expect(store.created).toEqual([]);
  });

  it("refuses localhost and the other spellings of this machine just the same", async () => {
    const port = new URL(origin).port;
    for (const host of ["localhost", "0x7f.1", "2130706433", "[::1]", "[::ffff:127.0.0.1]", "0.0.0.0"]) {
      served.length = 0;
      const { run, store } = promote(`http://${host}:${port}/admin`);
      expect(await run, host).toMatchObject({ status: "failed", error: { kind: "fetch_refused" } });
      expect(served, host).toEqual([]);
      expect(store.created, host).toEqual([]);
    }
  });

  it("a test may allow its own server's origin at the port, and then the page is saved", async () => {
    const { run, store } = promote(`${origin}/admin`, { allowedOrigins: [origin] });
    expect(await run).toMatchObject({ status: "created" });
    expect(store.created).toHaveLength(1);
  });

  it("follows the allowed server's redirects itself, one checked hop at a time", async () => {
    served.length = 0;
    const { run } = promote(`${origin}/bounce`, { allowedOrigins: [origin] });
    expect(await run).toMatchObject({ status: "created" });
    expect(served).toEqual(["/bounce", "/admin"]);
  });

  it("refuses a redirect from an allowed address to one that is not, and saves nothing", async () => {
    served.length = 0;
    const { run, store } = promote(`${origin}/bounce-out`, { allowedOrigins: [origin] });
    const result = await run;
    expect(result).toMatchObject({ status: "failed", error: { kind: "fetch_refused" } });
    expect(result.message).toContain("The page redirected to localhost");
    expect(served).toEqual(["/bounce-out"]);
    expect(store.created).toEqual([]);
  });
});
