// A page fetch over Node: the CLI's, and the plugin's on desktop, where Obsidian runs on Node too.
//
// A page fetch is a request that hands redirects back (`redirect: "manual"`: the fetch guard's,
// which checks every hop itself). It connects only to an address the guard checked (DESIGN
// invariant 7): it goes through node:http(s) with a `lookup` that answers from the guard's pinned
// addresses (pinned-dns.ts) and never resolves the name a second time, so DNS rebinding cannot
// swap in 127.0.0.1 between the check and the connection. The transfer runs under the one deadline
// (`src/deadline.ts`), is really aborted when the deadline or the caller gives up, and its bytes
// are capped while read, so a huge or endless body is cut off instead of filling memory.
import http, { maxHeaderSize, type IncomingMessage } from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { constants, createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { pipeline, type Readable, type Transform } from "node:stream";
import { DeadlineMissed, withDeadline } from "../deadline";
import { HttpFailure, type Clock, type Http, type HttpRequest, type HttpResponse } from "../ports";
import type { PinnedDns } from "./pinned-dns";
import type { Hop, HopAnswer } from "./same-site-redirects";
import { hostOf } from "../text/urls";

export interface TransferOptions {
  /** Runs the deadline's timer. */
  clock: Clock;
  /** Used when a request names no timeout. */
  defaultTimeoutMs: number;
}

/**
 * `base` for every request but page fetches, which go over node:http(s) to the addresses `dns`
 * pinned for them, redirects handed back to the guard.
 */
export function pagesOverNode(base: Http, dns: PinnedDns, options: TransferOptions): Http {
  return {
    request: (req) => (req.redirect === "manual" ? transferred(req, (controller) => pinnedRequest(req, controller, dns), options) : base.request(req)),
  };
}

/**
 * One transfer under the request's deadline: whoever gives up first — the deadline or the caller —
 * aborts it, and every failure comes back as an HttpFailure in plain words.
 */
export async function transferred(req: HttpRequest, transfer: (controller: AbortController) => Promise<HttpResponse>, options: TransferOptions): Promise<HttpResponse> {
  if (req.signal?.aborted) throw new HttpFailure("aborted", "The request was cancelled.");
  const controller = new AbortController();
  const timeoutMs = req.timeoutMs ?? options.defaultTimeoutMs;
  try {
    return await withDeadline(transfer(controller), { clock: options.clock, ms: timeoutMs, ...(req.signal ? { signal: req.signal } : {}) });
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
    throw transferFailure(error, req.url, "answer");
  }
}

/** One request over node:http(s), connecting only to the addresses `dns` gives for the name; redirects handed back. */
function pinnedRequest(req: HttpRequest, controller: AbortController, dns: PinnedDns): Promise<HttpResponse> {
  const hop = { url: req.url, method: req.method, index: 0, ...(req.body !== undefined ? { body: req.body } : {}) };
  return sendOverNode(hop, req, controller, { lookup: pinnedLookup(dns) }).then((answer) => answer.read());
}

/** How a request over node:http(s) finds its addresses, and how long it may take to connect. */
export interface NodeConnect {
  /** Where the connection gets its addresses (default: Node's own lookup, the system's). */
  lookup?: LookupFunction;
  /** Gives up connecting after `ms` on `clock` (NotConnected); default: only the request's deadline bounds it. */
  within?: { clock: Clock; ms: number };
}

/**
 * The request failed before the connection was up — the name could not be looked up, the
 * connection was refused, unreachable or not made in time, its TLS handshake failed — so not one
 * byte of it (its key neither) left this device. Node writes a request only once it is connected.
 */
export class NotConnected extends HttpFailure {
  constructor(message: string) {
    super("network", message);
    this.name = "NotConnected";
  }
}

/**
 * One hop over node:http(s): its answer's status and Location as soon as they come, the body read
 * (capped, decoded) only when asked. A failure before the connection was up is a NotConnected.
 */
export function sendOverNode(hop: Hop, req: HttpRequest, controller: AbortController, connect: NodeConnect = {}): Promise<HopAnswer> {
  const url = new URL(hop.url);
  const secure = url.protocol === "https:";
  const client = secure ? https : http;
  const connecting = new AbortController();
  return new Promise<HopAnswer>((resolve, reject) => {
    let connected = false;
    const options = { method: hop.method, headers: req.headers ?? {}, signal: controller.signal, agent: false, ...(connect.lookup ? { lookup: connect.lookup } : {}) };
    const request = client.request(url, options, (response) => resolve(answerOf(response, req, hop.url, controller)));
    request.on("socket", (socket) =>
      socket.once(secure ? "secureConnect" : "connect", () => {
        connected = true;
        connecting.abort();
      }),
    );
    request.on("error", (error) => {
      connecting.abort();
      // A cancelled transfer is the deadline's or the caller's to name, never a connection that failed.
      reject(connected || controller.signal.aborted ? error : new NotConnected(transferFailure(error, hop.url, "answer").message));
    });
    if (connect.within) {
      const seconds = Math.round(connect.within.ms / 1000);
      connect.within.clock.sleep(connect.within.ms, connecting.signal).then(
        () => request.destroy(Object.assign(new Error(`no connection within ${seconds} s`), { code: "ETIMEDOUT" })),
        () => undefined,
      );
    }
    request.end(hop.body);
  });
}

function answerOf(response: IncomingMessage, req: HttpRequest, url: string, controller: AbortController): HopAnswer {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  const status = response.statusCode ?? 0;
  return {
    status,
    location: headers["location"] ?? null,
    read: () =>
      readStreamCapped(decoded(response, headers["content-encoding"]), headers["content-length"], req.maxBytes, url).then(
        (bytes) => ({ status, headers, text: new TextDecoder("utf-8").decode(bytes), bytes }),
        (error: unknown) => {
          // The refusal at the cap is what the caller hears; only then does the transfer stop.
          const failure = transferFailure(error, url, "body");
          controller.abort();
          throw failure;
        },
      ),
    discard: async () => void response.destroy(),
  };
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

/**
 * Decoders that take the end of the body as the end of its data, as browsers and Node's fetch do: a
 * redirect or an empty page that names an encoding and sends no bytes failed the whole fetch as
 * "unexpected end of file". A body cut off by the connection still fails, with the connection's error.
 */
function decoderFor(encoding: string | undefined): Transform | null {
  const zlibEnd = { flush: constants.Z_SYNC_FLUSH, finishFlush: constants.Z_SYNC_FLUSH };
  switch (encoding?.trim().toLowerCase()) {
    case "gzip":
    case "x-gzip":
      return createGunzip(zlibEnd);
    case "deflate":
      return createInflate(zlibEnd);
    case "br":
      return createBrotliDecompress({ flush: constants.BROTLI_OPERATION_FLUSH, finishFlush: constants.BROTLI_OPERATION_FLUSH });
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

export function joined(chunks: Uint8Array[], total: number): Uint8Array {
  const all = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return all;
}

/** Where a transfer broke: before an answer came, or while its body was being read. */
export type TransferStage = "answer" | "body";

/**
 * A failed transfer as an HttpFailure in plain words, naming the host. Node's own words said
 * something else: "aborted" (a server that closed mid-body) read as a cancellation, "incorrect
 * header check" (a broken gzip body) as a header problem, "terminated" and "fetch failed" as
 * nothing at all — and a page's note kept them as its reason.
 */
export function transferFailure(error: unknown, url: string, stage: TransferStage): HttpFailure {
  if (error instanceof HttpFailure) return error;
  return new HttpFailure("network", `${hostOf(url, "The address")} ${whatWentWrong(causeOf(error), stage)}`);
}

/** The code and words of the failure itself: Node's fetch wraps it ("fetch failed", "terminated") in `cause`. */
function causeOf(error: unknown): { code: string; message: string } {
  const outer = error as { code?: unknown; message?: unknown; cause?: { code?: unknown; message?: unknown } } | null | undefined;
  const inner = outer?.cause ?? outer;
  const code = typeof inner?.code === "string" ? inner.code : typeof outer?.code === "string" ? outer.code : "";
  const message = typeof inner?.message === "string" && inner.message !== "" ? inner.message : error instanceof Error ? error.message : String(error);
  return { code, message: message.replace(/[.\s]+$/, "") };
}

function whatWentWrong({ code, message }: { code: string; message: string }, stage: TransferStage): string {
  if (code === "HPE_HEADER_OVERFLOW" || code === "UND_ERR_HEADERS_OVERFLOW") return `sent over ${maxHeaderSize / 1024} KB of headers, more than is read; its answer was not read.`;
  if (code.startsWith("HPE_")) return `sent something that is not a valid HTTP answer (${message}).`;
  // zlib's codes (Z_DATA_ERROR, Z_BUF_ERROR) and brotli's (ERR__ERROR_FORMAT_…).
  if (code.startsWith("Z_") || code.startsWith("ERR__ERROR_")) return `sent a compressed body that could not be unpacked (${message}).`;
  switch (code) {
    case "ECONNRESET":
    case "EPIPE":
    case "UND_ERR_SOCKET":
      return stage === "body" ? `closed the connection before the whole answer had arrived (${code}).` : `closed the connection without answering (${code}).`;
    case "ECONNREFUSED":
      return `refused the connection (${code}).`;
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `could not be looked up (${code}).`;
  }
  const words = code !== "" && !message.includes(code) ? `${message} (${code})` : message;
  return stage === "body" ? `broke off its answer: ${words}.` : `could not be reached: ${words}.`;
}

