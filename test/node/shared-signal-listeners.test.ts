// A run's web stage shares one AbortSignal among all its requests. Every request's deadline used to
// add its own "abort" listener to it, and a `research --external-search always` run over the five
// free sources printed Node's "Possible EventTarget memory leak detected. 11 abort listeners" on
// stderr. The requests here go to a stand-in server on 127.0.0.1 that holds its answers until told.
import { getEventListeners } from "node:events";
import { createServer, type ServerResponse, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFetchHttp } from "../../src/cli/fetch-http";

let server: Server;
let origin: string;
let held: ServerResponse[];
let warnings: Error[];
const onWarning = (warning: Error): void => void warnings.push(warning);

beforeEach(async () => {
  held = [];
  warnings = [];
  process.on("warning", onWarning);
  server = createServer((_req, res) => void held.push(res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  process.off("warning", onWarning);
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe("requests sharing a run's signal", () => {
  it("twelve at once hold one abort listener on it, none once answered, and Node warns of no leak", async () => {
    const http = createFetchHttp({ pageDns: null });
    const run = new AbortController();
    const answers = Array.from({ length: 12 }, (_, i) => http.request({ method: "GET", url: `${origin}/search?q=${i}`, timeoutMs: 10_000, signal: run.signal }));
    await until(() => held.length === 12);
    expect(getEventListeners(run.signal, "abort")).toHaveLength(1);
    for (const res of held) res.writeHead(200, { "content-type": "application/json" }).end("{}");
    expect((await Promise.all(answers)).map((a) => a.status)).toEqual(Array(12).fill(200));
    expect(getEventListeners(run.signal, "abort")).toHaveLength(0);
    // Node emits the warning on a later tick.
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.filter((w) => w.name === "MaxListenersExceededWarning")).toEqual([]);
  });

  it("a cancel still stops every one of them, and leaves no listener behind", async () => {
    const http = createFetchHttp({ pageDns: null });
    const run = new AbortController();
    const answers = Array.from({ length: 12 }, (_, i) =>
      http.request({ method: "GET", url: `${origin}/search?q=${i}`, timeoutMs: 10_000, signal: run.signal }).then(
        () => "answered",
        (error: { kind?: string }) => error.kind,
      ),
    );
    await until(() => held.length === 12);
    run.abort();
    expect(await Promise.all(answers)).toEqual(Array(12).fill("aborted"));
    expect(getEventListeners(run.signal, "abort")).toHaveLength(0);
  });
});
