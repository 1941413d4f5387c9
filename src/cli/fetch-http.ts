// The CLI's Http: Node's fetch under the one deadline (`src/deadline.ts`), really aborted when the
// deadline or the caller gives up, and a byte cap checked while reading, so a huge or endless body
// is cut off instead of filling memory.
//
// A page fetch (a request that hands redirects back, `redirect: "manual"`: the fetch guard's, which
// checks every hop itself) connects only to an address the guard checked (DESIGN invariant 7):
// Node's fetch cannot be told where to connect, so such a request goes through node:http(s) with a
// `lookup` that answers from the guard's pinned addresses (dns-resolver.ts) and never resolves the
// name a second time, so DNS rebinding cannot swap in 127.0.0.1 between the check and the connection.
import http from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { pipeline, type Readable, type Transform } from "node:stream";
import { DeadlineMissed, withDeadline } from "../deadline";
import { HttpFailure, systemClock, type Clock, type Http, type HttpRequest, type HttpResponse } from "../ports";
import { cliPageDns, type PinnedDns } from "./dns-resolver";

export interface FetchHttpOptions {
  /** Stand-in for `globalThis.fetch` (tests). Page fetches then go through it too, unpinned. */
  fetch?: typeof fetch;
  /** Where page connections get their addresses (default: the CLI's pinned resolver; none with a stand-in fetch). */
  pageDns?: PinnedDns | null;
  /** Used when a request names no timeout (default 30 s). */
  defaultTimeoutMs?: number;
  /** Runs the deadline's timer (default: the system clock). */
  clock?: Clock;
}

export function createFetchHttp(options: FetchHttpOptions = {}): Http {
  const doFetch = options.fetch ?? globalThis.fetch;
  const pageDns = options.pageDns !== undefined ? options.pageDns : options.fetch ? null : cliPageDns;
  const defaultTimeoutMs = options.defaultTimeoutMs ?? 30_000;
  const clock = options.clock ?? systemClock;
  return {
    async request(req: HttpRequest): Promise<HttpResponse> {
      if (req.signal?.aborted) throw new HttpFailure("aborted", "The request was cancelled.");
      const controller = new AbortController();
      const timeoutMs = req.timeoutMs ?? defaultTimeoutMs;
      try {
        const transfer = pageDns && req.redirect === "manual" ? pinnedRequest(req, controller, pageDns) : fetchAll(doFetch, req, controller);
        return await withDeadline(transfer, { clock, ms: timeoutMs, ...(req.signal ? { signal: req.signal } : {}) });
      } catch (error) {
        // Whoever gave up — the deadline or the caller — the transfer stops here too.
        controller.abort();
        if (error instanceof HttpFailure) throw error;
        if (error instanceof DeadlineMissed) {
          throw error.kind === "timeout"
            ? new HttpFailure("timeout", `No answer from ${new URL(req.url).host} within ${timeoutMs} ms.`)
            : new HttpFailure("aborted", "The request was cancelled.");
        }
        if (req.signal?.aborted) throw new HttpFailure("aborted", "The request was cancelled.");
        throw new HttpFailure("network", describeNetworkError(error));
      }
    },
  };
}

async function fetchAll(doFetch: typeof fetch, req: HttpRequest, controller: AbortController): Promise<HttpResponse> {
  const response = await doFetch(req.url, {
    method: req.method,
    ...(req.headers ? { headers: req.headers } : {}),
    ...(req.body !== undefined ? { body: req.body } : {}),
    ...(req.redirect ? { redirect: req.redirect } : {}),
    signal: controller.signal,
  });
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name.toLowerCase()] = value;
  });
  const bytes = await readCapped(response, req.maxBytes, req.url, () => controller.abort());
  return { status: response.status, headers, text: new TextDecoder("utf-8").decode(bytes), bytes };
}

/** One request over node:http(s), connecting only to the addresses `dns` gives for the name; redirects handed back. */
function pinnedRequest(req: HttpRequest, controller: AbortController, dns: PinnedDns): Promise<HttpResponse> {
  const url = new URL(req.url);
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(url, { method: req.method, headers: req.headers ?? {}, signal: controller.signal, lookup: pinnedLookup(dns), agent: false }, (response) => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(response.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
      const status = response.statusCode ?? 0;
      // A body refused at the cap rejects first and only then stops the transfer, so the refusal is what the caller hears.
      readStreamCapped(decoded(response, headers["content-encoding"]), headers["content-length"], req.maxBytes, req.url).then(
        (bytes) => resolve({ status, headers, text: new TextDecoder("utf-8").decode(bytes), bytes }),
        (error: Error) => {
          reject(error);
          controller.abort();
        },
      );
    });
    request.on("error", reject);
    request.end(req.body);
  });
}

/** `lookup` for a connection: the addresses `dns` allows, in the shape net asks for (one, or all with `all`). */
function pinnedLookup(dns: PinnedDns): LookupFunction {
  return (hostname, options, callback) => {
    dns.connectAddresses(hostname).then(
      (addresses) => {
        const family = options.family === 4 || options.family === 6 ? options.family : 0;
        const usable = addresses.filter((a) => family === 0 || isIP(a) === family).map((address) => ({ address, family: isIP(address) }));
        if (usable.length === 0) return callback(Object.assign(new Error(`${hostname} has no address to connect to.`), { code: "ENOTFOUND" }), "", 0);
        if (options.all) callback(null, usable);
        else callback(null, usable[0].address, usable[0].family);
      },
      (error: Error) => callback(error, "", 0),
    );
  };
}

/** The body as sent (fetch decodes these three itself; a page is asked for none, but may send one anyway). */
function decoded(body: Readable, encoding: string | undefined): Readable {
  const decoder = decoderFor(encoding);
  // pipeline, not pipe: a body cut off mid-transfer must fail the decoder with its error, or the
  // read waits for an end that never comes until the deadline calls it a timeout. The reader
  // hears that error from the decoder itself, so the callback has nothing left to do.
  return decoder ? pipeline(body, decoder, () => undefined) : body;
}

function decoderFor(encoding: string | undefined): Transform | null {
  switch (encoding?.trim().toLowerCase()) {
    case "gzip":
    case "x-gzip":
      return createGunzip();
    case "deflate":
      return createInflate();
    case "br":
      return createBrotliDecompress();
    default:
      return null;
  }
}

async function readStreamCapped(body: Readable, declaredLength: string | undefined, maxBytes: number | undefined, url: string): Promise<Uint8Array> {
  const declared = Number(declaredLength);
  if (maxBytes !== undefined && Number.isFinite(declared) && declared > maxBytes) {
    throw new HttpFailure("too_large", `${new URL(url).host} announced ${declared} bytes, over the ${maxBytes}-byte limit.`);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of body) {
    const bytes = chunk as Uint8Array;
    total += bytes.byteLength;
    if (maxBytes !== undefined && total > maxBytes) {
      throw new HttpFailure("too_large", `${new URL(url).host} sent more than ${maxBytes} bytes; the rest was not read.`);
    }
    chunks.push(bytes);
  }
  return joined(chunks, total);
}

async function readCapped(response: Response, maxBytes: number | undefined, url: string, abort: () => void): Promise<Uint8Array> {
  const declared = Number(response.headers.get("content-length"));
  if (maxBytes !== undefined && Number.isFinite(declared) && declared > maxBytes) {
    abort();
    throw new HttpFailure("too_large", `${new URL(url).host} announced ${declared} bytes, over the ${maxBytes}-byte limit.`);
  }
  if (!response.body) return new Uint8Array(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (maxBytes !== undefined && total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      abort();
      throw new HttpFailure("too_large", `${new URL(url).host} sent more than ${maxBytes} bytes; the rest was not read.`);
    }
    chunks.push(value);
  }
  return joined(chunks, total);
}

function joined(chunks: Uint8Array[], total: number): Uint8Array {
  const all = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return all;
}

function describeNetworkError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // Node's fetch says only "fetch failed"; the useful part (ENOTFOUND, ECONNREFUSED) is in the cause.
  const cause = (error as Error & { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ? `${error.message} (${cause.code})` : cause?.message ? `${error.message}: ${cause.message}` : error.message;
}
