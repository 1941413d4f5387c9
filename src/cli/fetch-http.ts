// The CLI's Http: Node's fetch under the one deadline (`src/deadline.ts`), really aborted when the
// deadline or the caller gives up, and a byte cap checked while reading, so a huge or endless body
// is cut off instead of filling memory.
import { DeadlineMissed, withDeadline } from "../deadline";
import { HttpFailure, systemClock, type Clock, type Http, type HttpRequest, type HttpResponse } from "../ports";

export interface FetchHttpOptions {
  /** Stand-in for `globalThis.fetch` (tests). */
  fetch?: typeof fetch;
  /** Used when a request names no timeout (default 30 s). */
  defaultTimeoutMs?: number;
  /** Runs the deadline's timer (default: the system clock). */
  clock?: Clock;
}

export function createFetchHttp(options: FetchHttpOptions = {}): Http {
  const doFetch = options.fetch ?? globalThis.fetch;
  const defaultTimeoutMs = options.defaultTimeoutMs ?? 30_000;
  const clock = options.clock ?? systemClock;
  return {
    async request(req: HttpRequest): Promise<HttpResponse> {
      if (req.signal?.aborted) throw new HttpFailure("aborted", "The request was cancelled.");
      const controller = new AbortController();
      const timeoutMs = req.timeoutMs ?? defaultTimeoutMs;
      try {
        return await withDeadline(fetchAll(doFetch, req, controller), { clock, ms: timeoutMs, ...(req.signal ? { signal: req.signal } : {}) });
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
