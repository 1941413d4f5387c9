// The CLI's Http: Node's fetch with a real abort on timeout and a byte cap checked while reading,
// so a huge or endless body is cut off instead of filling memory.
import { HttpFailure, type Http, type HttpRequest, type HttpResponse } from "../ports";

export interface FetchHttpOptions {
  /** Stand-in for `globalThis.fetch` (tests). */
  fetch?: typeof fetch;
  /** Used when a request names no timeout (default 30 s). */
  defaultTimeoutMs?: number;
}

export function createFetchHttp(options: FetchHttpOptions = {}): Http {
  const doFetch = options.fetch ?? globalThis.fetch;
  const defaultTimeoutMs = options.defaultTimeoutMs ?? 30_000;
  return {
    async request(req: HttpRequest): Promise<HttpResponse> {
      if (req.signal?.aborted) throw new HttpFailure("aborted", "The request was cancelled.");
      const controller = new AbortController();
      let timedOut = false;
      const timeoutMs = req.timeoutMs ?? defaultTimeoutMs;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, timeoutMs);
      const onCancel = (): void => controller.abort();
      req.signal?.addEventListener("abort", onCancel, { once: true });
      try {
        const response = await doFetch(req.url, {
          method: req.method,
          ...(req.headers ? { headers: req.headers } : {}),
          ...(req.body !== undefined ? { body: req.body } : {}),
          signal: controller.signal,
        });
        const headers: Record<string, string> = {};
        response.headers.forEach((value, name) => {
          headers[name.toLowerCase()] = value;
        });
        const bytes = await readCapped(response, req.maxBytes, req.url, () => controller.abort());
        return { status: response.status, headers, text: new TextDecoder("utf-8").decode(bytes), bytes };
      } catch (error) {
        if (error instanceof HttpFailure) throw error;
        if (timedOut) throw new HttpFailure("timeout", `No answer from ${new URL(req.url).host} within ${timeoutMs} ms.`);
        if (req.signal?.aborted) throw new HttpFailure("aborted", "The request was cancelled.");
        throw new HttpFailure("network", describeNetworkError(error));
      } finally {
        clearTimeout(timer);
        req.signal?.removeEventListener("abort", onCancel);
      }
    },
  };
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
