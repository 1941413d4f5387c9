// The one outbound-fetch guard (DESIGN invariant 7), shared by page reading and promotion: a page
// is fetched only from a public http(s) address. Refused: other schemes, addresses carrying a
// user name or password, loopback, private, link-local, unique-local, unspecified, multicast and
// reserved addresses (literal, in any spelling a URL parser accepts), names that stay on the
// local network (`localhost`, `.local`, a name without a dot), and — where the platform can look
// names up (the CLI and the desktop app, through `resolve`) — names that resolve to any such
// address. Redirects are followed here, one hop at a time, each hop checked again, at most five,
// all of it (lookups included) within the one time limit. Where names are looked up, the addresses
// a name was checked at are the only ones its connection uses (node/pinned-dns.ts pins them), so a
// second lookup cannot answer 127.0.0.1 (DNS rebinding); on mobile no names are looked up at all.
//
// A page is never sent cookies or keys: the request carries one `accept` header and nothing else.
// Where the Http adapter follows redirects itself (Obsidian's requestUrl), only the first address
// can be checked; adapters that honour `redirect: "manual"` (fetch, replay) hand every hop back.
import { DeadlineMissed, describeMs, withDeadline } from "../deadline";
import { HttpFailure, stopwatch, systemClock, type Clock, type Http, type HttpResponse } from "../ports";
import { BLOCKED_RANGE_WORDS, literalAddressRange, type BlockedRange } from "./address-ranges";
import { hostOf } from "../text/urls";

/** Every address a host name resolves to (IPv4 and IPv6). The CLI fills it with node:dns. */
export type ResolveHost = (host: string, signal?: AbortSignal) => Promise<string[]>;

export interface FetchGuardOptions {
  /** Looks names up. Without it (the plugin) only literal addresses and local names are checked. */
  resolve?: ResolveHost;
  /**
   * Origins (`http://127.0.0.1:41234`) fetched although the rules refuse them. Only tests set this,
   * for a server of their own; production code never does, and the default refuses them all.
   */
  allowedOrigins?: readonly string[];
}

/** Redirects followed before a page is given up on. */
export const MAX_REDIRECTS = 5;

/** Why the guard would not fetch an address. */
export type FetchRefusal =
  | { kind: "not_a_url"; url: string }
  | { kind: "scheme"; scheme: string }
  | { kind: "credentials" }
  | { kind: "blocked_address"; host: string; address: string; range: BlockedRange; how: "literal" | "local_name" | "resolved" };

export interface FetchRefused {
  kind: "refused";
  refusal: FetchRefusal;
  /** 0: the address asked for; n: the address the n-th redirect pointed at. */
  hop: number;
  /** The address that was refused. */
  url: string;
  message: string;
}

export interface FetchAnswered {
  kind: "answered";
  response: HttpResponse;
  /** Where the page finally came from, after redirects. */
  url: string;
  redirects: number;
}

export interface GuardedGetRequest {
  url: string;
  /** The one header a page is sent. */
  accept: string;
  /**
   * For the whole fetch: every hop and every name lookup gets what is left of it, so a chain of
   * slow redirects cannot stretch one page's limit five-fold.
   */
  timeoutMs: number;
  maxBytes: number;
  signal?: AbortSignal;
  /** Tells how much of `timeoutMs` is left (default: the system clock). */
  clock?: Clock;
}

/**
 * GET `url` through the guard, following redirects itself. Http failures are thrown as they come, and
 * a site that keeps redirecting is one (`redirect`): it answered, each time, and nothing was refused —
 * as requestUrl's loop on mobile is said. Called a refusal, it cost a promotion its note on desktop
 * and in the CLI ("Nothing was saved") where mobile kept one with the excerpt (`redirect_loop`).
 */
export async function guardedGet(request: GuardedGetRequest, http: Http, guard: FetchGuardOptions = {}): Promise<FetchAnswered | FetchRefused> {
  const clock = request.clock ?? systemClock;
  const timeLeft = timeLimit(request, clock);
  let current = request.url;
  for (let hop = 0; ; hop++) {
    const target = await timeLeft.race(() => checkFetchTarget(current, guard, request.signal), current, hop);
    if (!target.ok) return refused(target.refusal, hop, current);
    const response = await http.request({
      method: "GET",
      url: target.url.href,
      headers: { accept: request.accept },
      redirect: "manual",
      timeoutMs: timeLeft.ms(current, hop),
      maxBytes: request.maxBytes,
      ...(request.signal ? { signal: request.signal } : {}),
    }).catch((error: unknown) => {
      // The Http names the time this hop had left; the user set the limit for the whole page.
      throw error instanceof HttpFailure && error.kind === "timeout" ? timeLeft.spent(current, hop) : error;
    });
    const location = redirectLocation(response.status, response.headers["location"]);
    if (location === null) return { kind: "answered", response, url: target.url.href, redirects: hop };
    if (hop >= MAX_REDIRECTS) throw new HttpFailure("redirect", `${hostOf(target.url.href, "The site")} kept redirecting (more than ${MAX_REDIRECTS} times); the page was given up on.`);
    current = resolveLocation(location, target.url);
  }
}

/**
 * What is left of one fetch's time limit, for each hop's lookup and request. Counted on the clock's
 * monotonic reading: on the wall clock, one set back mid-redirect gave the later hops an hour more,
 * and one stepped forward failed the next hop at once.
 */
function timeLimit(request: GuardedGetRequest, clock: Clock) {
  const elapsed = stopwatch(clock);
  const spent = (url: string, hop: number): HttpFailure => {
    const host = hostOf(url, "the address");
    const within = describeMs(request.timeoutMs);
    return new HttpFailure("timeout", hop === 0 ? `No answer from ${host} within ${within}.` : `The page did not arrive within ${within}: it redirected ${hop} time${hop === 1 ? "" : "s"}, the last to ${host}.`);
  };
  const ms = (url: string, hop: number): number => {
    const left = request.timeoutMs - elapsed();
    if (left <= 0) throw spent(url, hop);
    return left;
  };
  return {
    ms,
    spent,
    /** `work` (a name lookup, which cannot be stopped) raced against what is left, and the caller's signal. */
    async race<T>(work: () => Promise<T>, url: string, hop: number): Promise<T> {
      const left = ms(url, hop);
      try {
        return await withDeadline(work(), { clock, ms: left, ...(request.signal ? { signal: request.signal } : {}) });
      } catch (error) {
        if (!(error instanceof DeadlineMissed)) throw error;
        throw error.kind === "timeout" ? spent(url, hop) : new HttpFailure("aborted", "The request was cancelled.");
      }
    },
  };
}


/** Whether the guard lets `url` be fetched, and the parsed URL that is then fetched as checked. */
export async function checkFetchTarget(url: string, guard: FetchGuardOptions = {}, signal?: AbortSignal): Promise<{ ok: true; url: URL } | { ok: false; refusal: FetchRefusal }> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, refusal: { kind: "not_a_url", url } };
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return { ok: false, refusal: { kind: "scheme", scheme: parsed.protocol.replace(/:$/, "") } };
  if (parsed.username !== "" || parsed.password !== "") return { ok: false, refusal: { kind: "credentials" } };
  if (guard.allowedOrigins?.includes(parsed.origin)) return { ok: true, url: parsed };
  const blocked = blockedHost(parsed.hostname) ?? (guard.resolve ? await blockedResolution(parsed.hostname, guard.resolve, signal) : null);
  return blocked ? { ok: false, refusal: blocked } : { ok: true, url: parsed };
}

/** A literal address or a local-only name that is refused without a lookup. */
function blockedHost(hostname: string): FetchRefusal | null {
  const host = hostname.replace(/\.$/, "");
  const literal = literalAddressRange(host);
  if (literal !== null) return literal.range ? { kind: "blocked_address", host, address: literal.address, range: literal.range, how: "literal" } : null;
  const local = localNameRange(host);
  return local ? { kind: "blocked_address", host, address: host, range: local, how: "local_name" } : null;
}

/** Names that never leave the local network: RFC 6761 `localhost`, mDNS `.local`, private-use names. */
function localNameRange(host: string): BlockedRange | null {
  if (host === "" || host === "localhost" || host.endsWith(".localhost")) return "loopback";
  if (host.endsWith(".local")) return "link_local";
  if (host.endsWith(".home.arpa") || host.endsWith(".internal") || !host.includes(".")) return "private";
  return null;
}

async function blockedResolution(hostname: string, resolve: ResolveHost, signal?: AbortSignal): Promise<FetchRefusal | null> {
  const host = hostname.replace(/\.$/, "");
  if (literalAddressRange(host) !== null) return null;
  for (const address of await resolve(host, signal)) {
    const literal = literalAddressRange(address);
    if (literal?.range) return { kind: "blocked_address", host, address: literal.address, range: literal.range, how: "resolved" };
  }
  return null;
}

/** Where an answer redirects to, as its Location says; null when it is no redirect (or names no place). */
export function redirectLocation(status: number, location: string | null | undefined): string | null {
  if (![301, 302, 303, 307, 308].includes(status)) return null;
  return location && location.trim() !== "" ? location.trim() : null;
}

/** A relative Location is resolved against the address that sent it; a broken one is checked (and refused) as given. */
function resolveLocation(location: string, base: URL): string {
  try {
    return new URL(location, base).href;
  } catch {
    return location;
  }
}

function refused(refusal: FetchRefusal, hop: number, url: string): FetchRefused {
  return { kind: "refused", refusal, hop, url, message: refusalMessage(refusal, hop) };
}

/** The refusal in words: what was refused and why. */
export function refusalMessage(refusal: FetchRefusal, hop = 0): string {
  const where = hop > 0 ? "The page redirected to an address that" : "The address";
  switch (refusal.kind) {
    case "not_a_url":
      return `${where} is not a valid web address (${refusal.url.slice(0, 200)}).`;
    case "scheme":
      return `${where} is a ${refusal.scheme}: address; only http and https pages are fetched.`;
    case "credentials":
      return `${where} carries a user name or password; pages are fetched without credentials.`;
    case "blocked_address": {
      const target = refusal.how === "resolved" ? `${refusal.host}, which resolves to ${refusal.address}, ${BLOCKED_RANGE_WORDS[refusal.range]}` : `${refusal.host}, ${BLOCKED_RANGE_WORDS[refusal.range]}`;
      return `${hop > 0 ? "The page redirected to" : "The address is"} ${target}; pages on this device or a local network are never fetched.`;
    }
  }
}
