// Http over Obsidian's requestUrl, which works on desktop and mobile and is not bound by CORS.
// requestUrl cannot be aborted, so timeouts and cancellation race it under the one deadline
// (`src/deadline.ts`): the caller gets its answer on time and the late response is ignored. It
// also reads whole bodies, so the size cap is checked from Content-Length first and from the
// bytes received after.
import { requestUrl, type RequestUrlResponse } from "obsidian";
import { DeadlineMissed, withDeadline } from "../deadline";
import { HttpFailure, systemClock, type Clock, type Http, type HttpRequest, type HttpResponse } from "../ports";
import { errorMessage } from "../text/error-message";

/** The size cap of a request that sets none: the plugin's, over requestUrl and over Node alike (desktop-pages.ts). */
export const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;

export interface RequestUrlHttpOptions {
  /** Used when a request sets no timeout (default 30 s). */
  timeoutMs?: number;
  /** Used when a request sets no size cap (default 10 MB). */
  maxBytes?: number;
  /** Runs the deadline's timer (default: the system clock). */
  clock?: Clock;
}

export class RequestUrlHttp implements Http {
  private readonly timeoutMs: number;
  private readonly maxBytes: number;
  private readonly clock: Clock;

  constructor(options: RequestUrlHttpOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    this.clock = options.clock ?? systemClock;
  }

  async request(req: HttpRequest): Promise<HttpResponse> {
    const where = describeUrl(req.url);
    if (req.signal?.aborted) throw new HttpFailure("aborted", `The request to ${where} was cancelled.`);

    const headers: Record<string, string> = {};
    let contentType: string | undefined;
    for (const [name, value] of Object.entries(req.headers ?? {})) {
      if (name.toLowerCase() === "content-type") contentType = value;
      else headers[name] = value;
    }

    const timeoutMs = req.timeoutMs ?? this.timeoutMs;
    let response: RequestUrlResponse;
    try {
      response = await withDeadline(requestUrl({ url: req.url, method: req.method, headers, contentType, body: req.body, throw: false }), {
        clock: this.clock,
        ms: timeoutMs,
        ...(req.signal ? { signal: req.signal } : {}),
      });
    } catch (error) {
      if (!(error instanceof DeadlineMissed)) throw unreached(where, error);
      if (error.kind === "timeout") throw new HttpFailure("timeout", `${where} did not answer within ${Math.round(timeoutMs / 1000)} s.`);
      throw new HttpFailure("aborted", `The request to ${where} was cancelled.`);
    }
    return this.toResponse(response, req.maxBytes ?? this.maxBytes, where);
  }

  private toResponse(response: RequestUrlResponse, maxBytes: number, where: string): HttpResponse {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(response.headers ?? {})) headers[name.toLowerCase()] = value;
    const declared = Number(headers["content-length"]);
    const received = response.arrayBuffer?.byteLength ?? 0;
    const size = Math.max(Number.isFinite(declared) ? declared : 0, received);
    if (size > maxBytes) {
      throw new HttpFailure("too_large", `${where} sent ${formatBytes(size)}, more than the ${formatBytes(maxBytes)} allowed.`);
    }
    // The raw body lets a page in another charset be decoded by what it declares.
    const bytes = response.arrayBuffer ? new Uint8Array(response.arrayBuffer) : undefined;
    return bytes ? { status: response.status, headers, text: response.text, bytes } : { status: response.status, headers, text: response.text };
  }
}

/**
 * Why requestUrl had no answer for us. A redirect loop was reached, each time: said as the Node
 * path's rule says it (node/same-site-redirects.ts), of the `redirect` kind, not "Could not reach …:
 * net::ERR_TOO_MANY_REDIRECTS".
 * Chromium's words on desktop; iOS's and Android's (OkHttp) on mobile.
 */
function unreached(where: string, error: unknown): HttpFailure {
  const said = errorMessage(error, "unknown network error");
  if (REDIRECT_LOOP.test(said)) return new HttpFailure("redirect", `${where} kept redirecting; the request was given up on.`);
  return new HttpFailure("network", `Could not reach ${where}: ${said}`);
}

const REDIRECT_LOOP = /ERR_TOO_MANY_REDIRECTS|too many (HTTP )?redirects|too many follow-up requests/i;

/** Origin and path only: query strings can carry the user's question or a key. */
function describeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return "an invalid address";
  }
}

function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${(n / (1024 * 1024)).toFixed(1)} MB`;
  if (n >= 1024) return `${Math.round(n / 1024)} KB`;
  return `${n} bytes`;
}
