// Following an API's redirects with everything the request carries — a key in its headers or its
// address among it — but only on the same site: the CLI's rule (over Node's fetch) and the desktop
// plugin's (over node:http, api-request.ts), from this one loop. Left to the transport, a redirect
// to another site went there with the key: fetch drops only `authorization` on the way (a provider's
// key rides in `x-api-key` or Brave's token), Obsidian's requestUrl drops nothing.
import { HttpFailure, type HttpRequest, type HttpResponse } from "../ports";
import { redirectLocation } from "../promote/fetch-guard";
import { hostOf } from "../text/urls";

/** Redirects followed before a request is given up on. */
export const MAX_REDIRECTS = 5;

/** One request of the chain, as the loop asks the transport to send it. */
export interface Hop {
  url: string;
  method: HttpRequest["method"];
  body?: string;
  /** 0 for the address asked, 1 for the first redirect's, and so on. */
  index: number;
}

/** A transport's answer to one hop: its status and Location, before its body is read. */
export interface HopAnswer {
  status: number;
  location: string | null;
  /** Reads the body (under the request's cap): this answer is the one the caller gets. */
  read(): Promise<HttpResponse>;
  /** Lets the body go unread: the answer was a redirect that is followed or refused. */
  discard(): Promise<void>;
}

/**
 * `req` sent through `send`, its redirects followed on the same site with its method, headers and
 * body (303, or 301/302 after a POST: a GET without a body, as browsers do); a redirect to another
 * site fails without sending anything there, and so do more than five: an `HttpFailure` of the
 * `redirect` kind. A request that follows redirects itself
 * (`redirect: "manual"`, the fetch guard's) gets its first answer as it is.
 */
export async function followedOnSameSite(req: HttpRequest, send: (hop: Hop) => Promise<HopAnswer>): Promise<HttpResponse> {
  let hop: Hop = { url: req.url, method: req.method, index: 0, ...(req.body !== undefined ? { body: req.body } : {}) };
  for (;;) {
    const answer = await send(hop);
    const next = req.redirect === "manual" ? null : redirectTarget(answer, hop.url);
    if (next === null) return answer.read();
    await answer.discard();
    if (hop.index >= MAX_REDIRECTS) throw redirectLoop(req.url);
    if (!sameSite(hop.url, next)) {
      throw new HttpFailure("redirect", `${new URL(hop.url).host} redirected to another site (${next.host}); the request was not sent there, so nothing it carried (a key among it) left for a site you did not name.`);
    }
    const asGet = answer.status === 303 || ((answer.status === 301 || answer.status === 302) && hop.method === "POST");
    hop = asGet ? { url: next.href, method: "GET", index: hop.index + 1 } : { ...hop, url: next.href, index: hop.index + 1 };
  }
}

/**
 * A server that answered every time, with a redirect: the words say what it did, as the plugin's
 * requestUrl says Chromium's loop (request-url-http.ts), and its kind that it was reached (`redirect`):
 * as `network`, "Could not reach SearXNG:" stood before the words of a server reached six times.
 */
function redirectLoop(url: string): HttpFailure {
  return new HttpFailure("redirect", `${hostOf(url, "The server")} kept redirecting (more than ${MAX_REDIRECTS} times); the request was given up on.`);
}

function redirectTarget(answer: HopAnswer, from: string): URL | null {
  const location = redirectLocation(answer.status, answer.location);
  if (location === null) return null;
  try {
    return new URL(location, from);
  } catch {
    return null;
  }
}

/** Where a request may follow a redirect with all it carries: the same host and port, or the same host from http up to https. */
export function sameSite(from: string, to: URL): boolean {
  const origin = new URL(from);
  if (to.protocol !== "http:" && to.protocol !== "https:") return false;
  if (to.username !== "" || to.password !== "") return false;
  if (to.hostname !== origin.hostname) return false;
  if (to.protocol === origin.protocol) return to.port === origin.port;
  // http → https on the same host (an upgrade), at the default ports.
  return origin.protocol === "http:" && to.protocol === "https:" && origin.port === "" && to.port === "";
}
