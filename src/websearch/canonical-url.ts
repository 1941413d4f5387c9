// One spelling per page, so the same article found by two providers (or already saved in the
// vault as a note's `source`) is recognised as one. Conservative on purpose: only changes that
// cannot point at a different page are made; meaningful query strings are kept.
import { httpUrl } from "../text/urls";

/** Query parameters that only say where a click came from. Compared lower-cased. */
const trackingParams = new Set([
  "fbclid",
  "gclid",
  "dclid",
  "gbraid",
  "wbraid",
  "msclkid",
  "yclid",
  "twclid",
  "igshid",
  "mc_cid",
  "mc_eid",
  "_hsenc",
  "_hsmi",
  "ref",
  "ref_src",
  "ref_url",
  "referrer",
  "spm",
  "_ga",
  "_gl",
  "oly_anon_id",
  "oly_enc_id",
  "vero_id",
]);

const trackingPrefixes = ["utm_", "pk_", "mtm_"];

function isTrackingParam(rawKey: string): boolean {
  let key: string;
  try {
    key = decodeURIComponent(rawKey.replace(/\+/g, " ")).toLowerCase();
  } catch {
    key = rawKey.toLowerCase();
  }
  return trackingParams.has(key) || trackingPrefixes.some((prefix) => key.startsWith(prefix));
}

/** Characters an escape stands for that are always the same written plainly: `%7E` is `~`. */
const UNRESERVED = /[A-Za-z0-9\-._~]/;

/**
 * In a path, also the punctuation that names no part of it: `%2C` is `,` and `%27` is `'` to every
 * server. Wikipedia's own address for "Washington, D.C." has `%2C` where Brave's and a clipped
 * note's have `,`: two rows of one page, and the vault's copy not recognised. `/`, `?`, `#`, `%` and
 * `;` (a path parameter to some servers) stay escaped; a query's `%26` is never `&`.
 */
const PLAIN_IN_PATH = /[A-Za-z0-9\-._~!$&'()*+,:@=]/;

/** `%2f` and `%2F` are the same byte; `%7E` and `~` the same character (`plain`: which are). */
function normalizeEscapes(part: string, plain: RegExp = UNRESERVED): string {
  return (
    part
      .replace(/%([0-9a-fA-F]{2})/g, (_match, hex: string) => {
        const char = String.fromCharCode(parseInt(hex, 16));
        return plain.test(char) ? char : `%${hex.toUpperCase()}`;
      })
      // Brackets escaped, as the URL standard allows: a canonical address is written into a source
      // note's `source` property, where `[[…]]` from a page's address would read as a link.
      .replace(/\[/g, "%5B")
      .replace(/\]/g, "%5D")
  );
}

/**
 * The canonical form of an http(s) URL, or null when it is not one.
 *
 * Lower-cases the host and drops its trailing dot, default ports, credentials, the fragment,
 * trailing slashes (except the root `/`), tracking parameters (`utm_*`, `fbclid`, `gclid`, `ref`…)
 * and empty query parts; sorts the remaining parameters by name; normalises percent-escapes (in the
 * path, punctuation such as `%2C` is written plainly too).
 */
export function canonicalizeUrl(input: string): string | null {
  if (typeof input !== "string") return null;
  const url = httpUrl(input.trim());
  if (!url) return null;
  const hostname = url.hostname.toLowerCase().replace(/\.+$/, "");
  if (hostname === "") return null;
  const host = url.port ? `${hostname}:${url.port}` : hostname;

  let path = normalizeEscapes(url.pathname, PLAIN_IN_PATH).replace(/\/+$/, "");
  if (path === "") path = "/";

  const params = url.search
    .replace(/^\?/, "")
    .split("&")
    .filter((part) => part !== "" && part !== "=")
    .map((part) => normalizeEscapes(part))
    .filter((part) => !isTrackingParam(part.split("=")[0]))
    .map((part, index) => ({ part, key: part.split("=")[0], index }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.index - b.index))
    .map(({ part }) => part);
  const search = params.length > 0 ? `?${params.join("&")}` : "";

  return `${url.protocol}//${host}${path}${search}`;
}

/** Host labels that name another door to the same site: its web, mobile and AMP editions. */
const editionLabels = new Set(["www", "m", "mobile", "amp"]);

/** The AMP cache's copy of a page, `example-com.cdn.ampproject.org/c/s/example.com/post`: `s` is https. */
const ampCachePath = /^\/[cvi]\/(s\/)?(?=[^/])/;

/** The page an AMP cache address holds, canonical; null when it is no such copy. */
function outOfAmpCache(url: URL): URL | null {
  if (!url.hostname.endsWith(".cdn.ampproject.org")) return null;
  const prefix = ampCachePath.exec(url.pathname);
  if (!prefix) return null;
  const inner = canonicalizeUrl(`${prefix[1] ? "https" : "http"}://${url.pathname.slice(prefix[0].length)}${url.search}`);
  return inner ? new URL(inner) : null;
}

/**
 * The path of the page whose AMP copy this is (`/why-crdts-matter/amp` → `/why-crdts-matter`), or
 * null. Only when what comes before `/amp` names an article: a slug of three words or more, a
 * number (`/archives/4821`), or a path under a year (`/2024/05/post`). A path that really ends in
 * "amp" — a repository or package of that name (`github.com/acme/amp`), a shop's amplifiers
 * (`/guitar/amp`) — is a page of its own, and its parent another one.
 */
function ampCopyOf(path: string): string | null {
  const match = /^(\/.+)\/amp$/.exec(path);
  if (!match) return null;
  const before = match[1];
  const last = before.slice(before.lastIndexOf("/") + 1);
  const article = /^\d{3,}$/.test(last) || last.split(/[-_]/).filter(Boolean).length >= 3 || /\/(?:19|20)\d\d\//.test(`${before}/`);
  return article ? before : null;
}

/** `?amp`, `?amp=1`: the AMP edition asked for. `?amp=2` (a current, to a calculator) is a value like any. */
const isAmpFlag = (part: string): boolean => /^amp(?:=(?:1|true)?)?$/i.test(part);

/** An address read as one edition of a page: the page's key (`samePageKey`) and what marks it as a lesser door to it. */
interface Edition {
  key: string;
  /** AMP copies 2, mobile hosts 1, plain http 1: a row keeps the address with the fewest. */
  drawbacks: number;
}

function editionOf(canonical: string): Edition {
  const given = new URL(canonical);
  const cached = outOfAmpCache(given);
  const url = cached ?? given;
  let drawbacks = (cached ? 2 : 0) + (url.protocol === "http:" ? 1 : 0);
  const labels = url.hostname.split(".");
  const site = labels.slice(-2);
  const doors = labels.slice(0, -2).filter((label) => editionLabels.has(label));
  if (doors.includes("amp")) drawbacks += 2;
  if (doors.includes("m") || doors.includes("mobile")) drawbacks += 1;
  const editionless = [...labels.slice(0, -2).filter((label) => !editionLabels.has(label)), ...site].join(".");
  const host = url.port ? `${editionless}:${url.port}` : editionless;
  const ampPath = ampCopyOf(url.pathname);
  if (ampPath !== null) drawbacks += 2;
  const parts = url.search.replace(/^\?/, "").split("&").filter((part) => part !== "");
  const params = parts.filter((part) => !isAmpFlag(part));
  if (params.length < parts.length) drawbacks += 2;
  return { key: `//${host}${ampPath ?? url.pathname}${params.length > 0 ? `?${params.join("&")}` : ""}`, drawbacks };
}

/**
 * What two results must share to be one page in a run's merged list: the canonical URL without its
 * scheme, without the edition labels of its host (`www.`, `m.`, `mobile.`, `amp.` — never the site's
 * own two last labels), out of the AMP cache, without the `/amp` an article's AMP copy ends in
 * (`ampCopyOf`) or an `amp` flag (`?amp`, `?amp=1`).
 * Looser than `canonicalizeUrl`, on purpose and only for merging: the row keeps its first finder's
 * label (and the better address of the two, `isLesserAddress`), and a page met as `http://www.…` and
 * `https://…` is one row that both sources found, not two that spend the run's count. Null when it
 * is no http(s) URL.
 */
export function samePageKey(input: string): string | null {
  const canonical = canonicalizeUrl(input);
  return canonical ? editionOf(canonical).key : null;
}

/**
 * Whether `address` is a lesser door than `other` to what `samePageKey` reads as one page: an AMP
 * copy, a mobile edition or plain http where `other` is the page's own address, or one that carries
 * click tracking (`utm_*`, `fbclid`…) where `other` does not. A reader clicking the row, and a note
 * promoted from it, get the page itself: one source's `?utm_source=…&fbclid=…` no longer won over
 * another's clean address to the same page, to be clicked and kept in the vault's `source`.
 */
export function isLesserAddress(address: string, other: string): boolean {
  const a = canonicalizeUrl(address);
  const b = canonicalizeUrl(other);
  return a !== null && b !== null && editionOf(a).drawbacks + trackingDrawback(address) > editionOf(b).drawbacks + trackingDrawback(other);
}

/** 1 when the address as sent carries a tracking parameter (which its canonical form has dropped). */
function trackingDrawback(address: string): number {
  const query = /\?([^#]*)/.exec(address)?.[1] ?? "";
  return query.split("&").some((part) => part !== "" && isTrackingParam(part.split("=")[0])) ? 1 : 0;
}

/** Host without `www.` for display ("automerge.org"), or "" when the URL cannot be parsed. */
export function displayDomain(input: string): string {
  try {
    return new URL(input).hostname.toLowerCase().replace(/\.+$/, "").replace(/^www\./, "");
  } catch {
    return "";
  }
}

/**
 * Whether the URL parser reads `text` otherwise than it is written: it drops tabs and line breaks,
 * encodes spaces and other controls, and reads a backslash as a slash. A loop over codes, as
 * text/control-chars.ts does, not a regex over a control range.
 */
function rereadByParser(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code <= 0x20 || code === 0x7f || code === 0x5c) return true;
  }
  return false;
}

/**
 * The address a result links to: as the provider sent it, unless it carries credentials
 * (`https://trusted.example@evil.example/` shows one site and opens another, and a page fetch
 * refuses it) or characters the URL parser would drop or read otherwise — then as the parser reads
 * it, without the credentials. Null when it is no http(s) URL. Canonical URLs (above) compare pages;
 * this is what a reader clicks, so it stays as close to what was sent as is safe.
 */
export function linkUrl(input: string): string | null {
  if (typeof input !== "string") return null;
  const url = httpUrl(input);
  if (!url) return null;
  if (url.username === "" && url.password === "" && !rereadByParser(input)) return input;
  url.username = "";
  url.password = "";
  return url.href;
}

/**
 * The longest address a result may have: what browsers and search engines accept. A longer one is
 * unusable: a trace keeps every row whole, and a row must stay promotable from the address it shows.
 */
export const MAX_URL_CHARS = 2048;

/**
 * The first `limit` items whose URL canonicalises and was not seen before, each with the address to
 * link to (`linkUrl`), its canonical URL and position (1-based `rank`). Items with an unusable URL (or one over `MAX_URL_CHARS`) are
 * skipped and counted in one warning, so a provider's odd answer is visible rather than silently shorter.
 */
export function distinctByCanonicalUrl<T>(items: readonly T[], urlOf: (item: T) => string, limit: number, warnings: string[]): { item: T; url: string; canonicalUrl: string; rank: number }[] {
  const out: { item: T; url: string; canonicalUrl: string; rank: number }[] = [];
  const seen = new Set<string>();
  let unusable = 0;
  for (const item of items) {
    if (out.length >= limit) break;
    const sent = urlOf(item);
    const url = sent.length > MAX_URL_CHARS ? null : linkUrl(sent);
    const canonicalUrl = url === null ? null : canonicalizeUrl(url);
    if (url === null || !canonicalUrl) {
      unusable++;
      continue;
    }
    if (seen.has(canonicalUrl)) continue;
    seen.add(canonicalUrl);
    out.push({ item, url, canonicalUrl, rank: out.length + 1 });
  }
  if (unusable > 0) warnings.push(`${unusable} result${unusable === 1 ? "" : "s"} with an unusable URL skipped`);
  return out;
}
