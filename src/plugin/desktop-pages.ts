// Page fetches on desktop go over Node, as the CLI's do, so the fetch guard holds there in full
// (DESIGN invariant 7): requestUrl follows redirects itself and looks names up itself, so through
// it only the first address of a page can be checked. Obsidian's desktop app runs on Node, so
// there the guard looks each name up, pins the addresses it checked, and follows every redirect
// itself, checking each hop (node/page-request.ts, node/pinned-dns.ts). Everything else (web
// sources, models, embeddings) stays on requestUrl. On mobile, where there is no Node, pages stay
// on requestUrl too and only their first address is checked, as before.
import { Platform } from "obsidian";
import type { Clock, Http } from "../ports";
import type { FetchGuardOptions } from "../promote/fetch-guard";

/** The Http a run and a promotion use, and the fetch guard that goes with it. */
export interface PageAccess {
  http: Http;
  /** Set where names can be looked up (desktop); absent on mobile. */
  fetchGuard?: FetchGuardOptions;
  /** Where page fetches go: over Node (desktop) or requestUrl (mobile, or Node not reachable). */
  pages: "node" | "request_url";
}

export interface PageAccessOptions {
  /** Used when a page request names no timeout (default 30 s, as requestUrl's). */
  defaultTimeoutMs?: number;
  /** Loads the Node adapters (tests give a stand-in that fails); default: the bundled ones. */
  loadNode?: () => Promise<NodeAdapters>;
}

type NodeAdapters = typeof import("../node/page-request") & typeof import("../node/pinned-dns");

/** `base` for everything; on desktop, page fetches over Node with names looked up and pinned. */
export async function pageAccess(base: Http, clock: Clock, options: PageAccessOptions = {}): Promise<PageAccess> {
  if (!Platform.isDesktopApp) return { http: base, pages: "request_url" };
  const node = await (options.loadNode ?? loadNodeAdapters)().catch((error: unknown) => {
    console.warn("Vault Research: pages are fetched through requestUrl, which follows redirects unchecked; the Node adapters did not load.", error);
    return null;
  });
  if (!node) return { http: base, pages: "request_url" };
  const dns = node.pinnedDns(node.systemLookup, clock);
  const http = node.pagesOverNode(base, dns, { clock, defaultTimeoutMs: options.defaultTimeoutMs ?? 30_000 });
  return { http, fetchGuard: { resolve: dns.resolve }, pages: "node" };
}

/** Called only on desktop: the bundle loads these modules, and Node's built-ins with them, nowhere else. */
async function loadNodeAdapters(): Promise<NodeAdapters> {
  const [pages, dns] = await Promise.all([import("../node/page-request"), import("../node/pinned-dns")]);
  return { ...pages, ...dns };
}
