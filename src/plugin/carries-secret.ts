// Which requests carry a secret, so that on desktop they leave requestUrl (which follows redirects
// anywhere, headers and all) for Node, where a redirect is followed on the same site only.
//
// Judged two ways, so neither alone has to be complete: by name — a header or query parameter the
// replay log masks as a credential (`authorization`, `x-api-key`, Brave's `x-subscription-token`,
// `api_key`), or a user or password in the address — and by value: a key the plugin holds, anywhere
// in the address, the headers or the body (a key a future source sends in its JSON body, or under a
// header name no list foresaw), in every form the secret scrubber knows — percent-encoded (a form
// body, an address with a stray `%` elsewhere), base64 (a Basic credential), JSON-escaped, in another
// case. A form only the scrubber knew would have kept that request on requestUrl, key and all.
import type { HttpRequest } from "../ports";
import { secretScrubber, type SecretScrubber } from "../text/secret-scrub";
import { maskSecretHeaders, maskSecretParams } from "../websearch/replay";

export function carriesSecret(req: HttpRequest, keysHeld: readonly string[]): boolean {
  const headers = req.headers ?? {};
  const masked = maskSecretHeaders(headers);
  if (Object.entries(headers).some(([name, value]) => masked[name] !== value)) return true;
  if (maskSecretParams(req.url) !== req.url) return true;
  const scrubber = scrubberFor(keysHeld);
  if (scrubber.empty) return false;
  return [req.url, ...Object.keys(headers), ...Object.values(headers), req.body ?? ""].some((text) => scrubber.text(text) !== text);
}

/** The last keys' scrubber: every request asks, and the keys held change only when the user edits one. */
let last: { keys: string; scrubber: SecretScrubber } | null = null;

function scrubberFor(keysHeld: readonly string[]): SecretScrubber {
  // A separator no key holds (keys are trimmed text), so two lists never read as one.
  const keys = keysHeld.join("\u0000");
  if (last?.keys !== keys) last = { keys, scrubber: secretScrubber(keysHeld) };
  return last.scrubber;
}
