// The CLI's Http: Node's fetch under the one deadline (`src/deadline.ts`), really aborted when the
// deadline or the caller gives up, and a byte cap checked while reading, so a huge or endless body
// is cut off instead of filling memory. Page fetches (`redirect: "manual"`) go over node:http(s)
// to the addresses the fetch guard checked and pinned (node/page-request.ts): Node's fetch cannot
// be told where to connect.
import { HttpFailure, systemClock, type Clock, type Http, type HttpRequest, type HttpResponse } from "../ports";
import type { PinnedDns } from "../node/pinned-dns";
import { joined, pagesOverNode, transferFailure, transferred } from "../node/page-request";
import { redirectLocation } from "../promote/fetch-guard";
import { cliPageDns } from "./dns-resolver";

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
  const transfer = { clock: options.clock ?? systemClock, defaultTimeoutMs: options.defaultTimeoutMs ?? 30_000 };
  const fetched: Http = { request: (req) => transferred(req, (controller) => fetchAll(doFetch, req, controller), transfer) };
  return pageDns ? pagesOverNode(fetched, pageDns, transfer) : fetched;
}

async function fetchAll(doFetch: typeof fetch, req: HttpRequest, controller: AbortController): Promise<HttpResponse> {
  let url = req.url;
  let method = req.method;
  let body = req.body;
  for (let hop = 0; ; hop++) {
    // Redirects are followed here, not by fetch: fetch drops only `authorization` on the way to
    // another site, and a provider's key rides in its own header (`x-api-key`, Brave's token).
    const response = await doFetch(url, {
      method,
      ...(req.headers ? { headers: req.headers } : {}),
      ...(body !== undefined ? { body } : {}),
      redirect: "manual",
      signal: controller.signal,
    });
    const next = req.redirect === "manual" ? null : redirectTarget(response, url);
    if (next === null) return responseOf(response, req, url, controller);
    await response.body?.cancel().catch(() => undefined);
    if (hop >= MAX_REDIRECTS) throw new HttpFailure("network", `${new URL(req.url).host} redirected more than ${MAX_REDIRECTS} times.`);
    if (!sameSite(url, next)) {
      throw new HttpFailure("network", `${new URL(url).host} redirected to another site (${next.host}); the request was not sent there, so nothing it carried (a key among it) left for a site you did not name.`);
    }
    // As browsers do: a 303, or a 301/302 after a POST, asks for the new address with a GET and no body.
    if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === "POST")) {
      method = "GET";
      body = undefined;
    }
    url = next.href;
  }
}

/** Redirects followed before a request is given up on. */
const MAX_REDIRECTS = 5;

function redirectTarget(response: Response, from: string): URL | null {
  const location = redirectLocation(response.status, response.headers.get("location"));
  if (location === null) return null;
  try {
    return new URL(location, from);
  } catch {
    return null;
  }
}

/** Where a request may follow a redirect with all it carries: the same host and port, or the same host from http up to https. */
function sameSite(from: string, to: URL): boolean {
  const origin = new URL(from);
  if (to.protocol !== "http:" && to.protocol !== "https:") return false;
  if (to.username !== "" || to.password !== "") return false;
  if (to.hostname !== origin.hostname) return false;
  if (to.protocol === origin.protocol) return to.port === origin.port;
  // http → https on the same host (an upgrade), at the default ports.
  return origin.protocol === "http:" && to.protocol === "https:" && origin.port === "" && to.port === "";
}

async function responseOf(response: Response, req: HttpRequest, url: string, controller: AbortController): Promise<HttpResponse> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name.toLowerCase()] = value;
  });
  // A body that breaks off says so: Node's fetch calls it "terminated".
  const bytes = await readCapped(response, req.maxBytes, url, () => controller.abort()).catch((error: unknown) => {
    throw transferFailure(error, url, "body");
  });
  return { status: response.status, headers, text: new TextDecoder("utf-8").decode(bytes), bytes };
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
