// API requests that carry a secret, over Node in Obsidian's desktop app. requestUrl follows every
// redirect itself with every header, so a web source, a SearXNG instance or a model server that
// answered 302 to another site handed that site the user's key. Over node:http(s) the redirects
// come back to the CLI's rule (same-site-redirects.ts): followed on the same site, refused to any
// other, nothing sent there.
//
// Behind a system proxy, which Chromium's requestUrl uses and Node does not, a direct connection may
// be impossible. Only then — nothing of the request was sent: the name did not resolve, the
// connection was refused, unreachable or not made within CONNECT_MS (or half the request's time), the TLS handshake failed — is
// the request handed to requestUrl, so a user whose web search worked keeps it. Any answer at all,
// a redirect among them, is the final word: a 3xx never reaches requestUrl, nor does a request whose
// bytes may have reached the server. The address the user configured is connected to as given:
// Ollama on 127.0.0.1 or a model box on the LAN is the user's own choice, not a page's (the fetch
// guard refuses private addresses to page fetches only).
import type { LookupFunction } from "node:net";
import { HttpFailure, stopwatch, type Http, type HttpRequest, type HttpResponse } from "../ports";
import { NotConnected, sendOverNode, transferred, type TransferOptions } from "./page-request";
import { followedOnSameSite } from "./same-site-redirects";

/** How long a direct connection may take before the request goes through requestUrl (a proxy's firewall may drop it silently). */
export const CONNECT_MS = 10_000;

export interface KeyedOverNodeOptions extends TransferOptions {
  /** Used when a request sets no size cap: the one requestUrl's path holds to, so a model's endless answer is cut off here too. */
  defaultMaxBytes: number;
  /** Whether the request carries a secret: only those leave requestUrl. */
  carriesSecret(req: HttpRequest): Promise<boolean>;
  /** Where connections get their addresses (tests); default: the system's lookup. */
  lookup?: LookupFunction;
}

/** `base` for requests without a secret and for page fetches; requests that carry one over Node, redirects on the same site only. */
export function keyedOverNode(base: Http, options: KeyedOverNodeOptions): Http {
  return {
    request: async (req) => {
      if (req.redirect === "manual" || !(await options.carriesSecret(req))) return base.request(req);
      return overNode({ ...req, maxBytes: req.maxBytes ?? options.defaultMaxBytes }, base, options);
    },
  };
}

/** Over Node with redirects on the same site; through `base` only when nothing could be sent. */
async function overNode(req: HttpRequest, base: Http, options: KeyedOverNodeOptions): Promise<HttpResponse> {
  const timeoutMs = req.timeoutMs ?? options.defaultTimeoutMs;
  const connect = { ...(options.lookup ? { lookup: options.lookup } : {}), within: { clock: options.clock, ms: Math.min(CONNECT_MS, Math.ceil(timeoutMs / 2)) } };
  const elapsed = stopwatch(options.clock);
  try {
    return await transferred(req, (controller) => followedOnSameSite(req, (hop) => sendOverNode(hop, req, controller, connect).catch(firstHopOnly(hop.index))), options);
  } catch (error) {
    if (!(error instanceof NotConnected)) throw error;
    // Nothing was sent: requestUrl may try, through the proxy it knows of, in the time left.
    return base.request({ ...req, timeoutMs: Math.max(1, timeoutMs - elapsed()) });
  }
}

/** A redirect's target that cannot be reached is a failure like any other: the chain began with an answer, which requestUrl must never repeat. */
function firstHopOnly(index: number): (error: unknown) => never {
  return (error) => {
    throw index > 0 && error instanceof NotConnected ? new HttpFailure("network", error.message) : error;
  };
}
