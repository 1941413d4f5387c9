// The CLI's Http: Node's fetch under the one deadline (`src/deadline.ts`), really aborted when the
// deadline or the caller gives up, and a byte cap checked while reading, so a huge or endless body
// is cut off instead of filling memory. Page fetches (`redirect: "manual"`) go over node:http(s)
// to the addresses the fetch guard checked and pinned (node/page-request.ts): Node's fetch cannot
// be told where to connect.
import { HttpFailure, systemClock, type Clock, type Http, type HttpRequest, type HttpResponse } from "../ports";
import type { PinnedDns } from "../node/pinned-dns";
import { joined, pagesOverNode, transferFailure, transferred } from "../node/page-request";
import { followedOnSameSite } from "../node/same-site-redirects";
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

/** Node's fetch with redirects handed back to the same-site rule (node/same-site-redirects.ts). */
function fetchAll(doFetch: typeof fetch, req: HttpRequest, controller: AbortController): Promise<HttpResponse> {
  return followedOnSameSite(req, async (hop) => {
    // Redirects are followed by the rule, not by fetch: fetch drops only `authorization` on the way
    // to another site, and a provider's key rides in its own header (`x-api-key`, Brave's token).
    const response = await doFetch(hop.url, {
      method: hop.method,
      ...(req.headers ? { headers: req.headers } : {}),
      ...(hop.body !== undefined ? { body: hop.body } : {}),
      redirect: "manual",
      signal: controller.signal,
    });
    return {
      status: response.status,
      location: response.headers.get("location"),
      read: () => responseOf(response, req, hop.url, controller),
      discard: async () => void (await response.body?.cancel().catch(() => undefined)),
    };
  });
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
