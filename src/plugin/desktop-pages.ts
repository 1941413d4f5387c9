// On desktop, two kinds of request go over Node, as the CLI's do, because requestUrl follows
// redirects itself — anywhere, with every header — and looks names up itself:
// - page fetches, so the fetch guard holds there in full (DESIGN invariant 7): the guard looks each
//   name up, pins the addresses it checked, and follows every redirect itself, checking each hop
//   (node/page-request.ts, node/pinned-dns.ts);
// - API requests that carry a secret (carries-secret.ts), so a key goes only to its own site: a
//   redirect is followed on the same site, never to another (node/api-request.ts). Where Node cannot
//   connect at all (a system proxy it does not know), and only then, requestUrl sends them.
// Everything else (keyless web sources, keyless models) stays on requestUrl. On mobile, where there
// is no Node, everything stays on requestUrl: a page's first address is the only one checked, and a
// keyed service that redirects to another site takes the key there.
import { Platform } from "obsidian";
import { whenAborted } from "../deadline";
import { HttpFailure, type Clock, type Http, type HttpRequest } from "../ports";
import type { FetchGuardOptions } from "../promote/fetch-guard";
import { carriesSecret } from "./carries-secret";
import { DEFAULT_MAX_BYTES } from "./request-url-http";

/** The Http a run and a promotion use, and the fetch guard that goes with it. */
export interface PageAccess {
  http: Http;
  /** Set where names can be looked up (desktop); absent on mobile. */
  fetchGuard?: FetchGuardOptions;
  /** Where page fetches (and requests carrying a key) go: over Node (desktop) or requestUrl (mobile, or Node not reachable). */
  pages: "node" | "request_url";
}

export interface PageAccessOptions {
  /** Used when a page request names no timeout (default 30 s, as requestUrl's). */
  defaultTimeoutMs?: number;
  /** Every key the plugin holds now (`keys-held.ts`): a request that carries one goes over Node. */
  keysHeld?: () => Promise<string[]>;
  /** Loads the Node adapters (tests give a stand-in that fails); default: the bundled ones. */
  loadNode?: () => Promise<NodeAdapters>;
}

type NodeAdapters = typeof import("../node/page-request") & typeof import("../node/pinned-dns") & typeof import("../node/api-request");

/** `base` for everything; on desktop, page fetches and requests carrying a key over Node. */
export async function pageAccess(base: Http, clock: Clock, options: PageAccessOptions = {}): Promise<PageAccess> {
  if (!Platform.isDesktopApp) return { http: base, pages: "request_url" };
  // Never a rejection: every request of the plugin waits on this (httpOnceSettled), and would fail with it.
  try {
    const node = await (options.loadNode ?? loadNodeAdapters)();
    const transfer = { clock, defaultTimeoutMs: options.defaultTimeoutMs ?? 30_000 };
    const keyed = node.keyedOverNode(base, { ...transfer, defaultMaxBytes: DEFAULT_MAX_BYTES, carriesSecret: keyCarriedBy(options.keysHeld) });
    const dns = node.pinnedDns(node.systemLookup, clock);
    return { http: node.pagesOverNode(keyed, dns, transfer), fetchGuard: { resolve: dns.resolve }, pages: "node" };
  } catch (error) {
    console.warn("Vault Research: pages and keyed requests go through requestUrl, which follows redirects unchecked, keys and all; the Node adapters did not load or could not be set up.", error);
    return { http: base, pages: "request_url" };
  }
}

/** Keys unreadable at the moment: the request is taken to carry one (Node costs it nothing but the proxy's fallback). */
function keyCarriedBy(keysHeld: (() => Promise<string[]>) | undefined): (req: HttpRequest) => Promise<boolean> {
  return async (req) => {
    const held = await (keysHeld ?? (async () => []))().catch(() => null);
    return held === null || carriesSecret(req, held);
  };
}

/**
 * The Http everything uses, ready at once: each request waits for the access `pageAccess` settles on
 * — or for its own signal: a run stopped meanwhile is not left waiting on an access that never comes.
 */
export function httpOnceSettled(access: Promise<Pick<PageAccess, "http">>): Http {
  return {
    request: async (req) => {
      if (!req.signal) return (await access).http.request(req);
      const signal = req.signal;
      let stopWaiting = (): void => undefined;
      const cancelled = new Promise<never>((_, reject) => {
        stopWaiting = whenAborted(signal, () => reject(new HttpFailure("aborted", "The request was cancelled.")));
      });
      let settled: Pick<PageAccess, "http">;
      try {
        settled = await Promise.race([access, cancelled]);
      } finally {
        stopWaiting();
      }
      return settled.http.request(req);
    },
  };
}

/** Called only on desktop: the bundle loads these modules, and Node's built-ins with them, nowhere else. */
async function loadNodeAdapters(): Promise<NodeAdapters> {
  const [pages, dns, api] = await Promise.all([import("../node/page-request"), import("../node/pinned-dns"), import("../node/api-request")]);
  return { ...pages, ...dns, ...api };
}
