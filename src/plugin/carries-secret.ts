// Which requests carry a secret, so that on desktop they leave requestUrl (which follows redirects
// anywhere, headers and all) for Node, where a redirect is followed on the same site only.
//
// Judged two ways, so neither alone has to be complete: by name — a header or query parameter the
// replay log masks as a credential (`authorization`, `x-api-key`, Brave's `x-subscription-token`,
// `api_key`), or a user or password in the address — and by value: a key the plugin holds, anywhere
// in the address, the headers or the body (a key a future source sends in its JSON body, or under a
// header name no list foresaw).
import type { HttpRequest } from "../ports";
import { maskSecretHeaders, maskSecretParams } from "../websearch/replay";

export function carriesSecret(req: HttpRequest, keysHeld: readonly string[]): boolean {
  const headers = req.headers ?? {};
  const masked = maskSecretHeaders(headers);
  if (Object.entries(headers).some(([name, value]) => masked[name] !== value)) return true;
  if (maskSecretParams(req.url) !== req.url) return true;
  const carried = [req.url, decoded(req.url), ...Object.values(headers), req.body ?? ""];
  return keysHeld.some((key) => carried.some((text) => text.includes(key)));
}

/** The address with its escapes undone: a key with `+` or `/` travels in a query as `%2B`, `%2F`. */
function decoded(url: string): string {
  try {
    return decodeURIComponent(url);
  } catch {
    return url;
  }
}
