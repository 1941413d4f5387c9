// Two URL rules that messages and spec parsers share: how a server is named in a sentence (its
// origin, never its path or query, which may hold a key), and what counts as an http(s) address.

/** `https://api.example.com/v1/x?key=…` → `https://api.example.com`; text that is no URL as given. */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/** `text` parsed as an http: or https: URL, or null when it is no such URL. */
export function httpUrl(text: string): URL | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  return url.protocol === "http:" || url.protocol === "https:" ? url : null;
}

/** `https://api.example.com:8443/x` → `api.example.com:8443`, how a message names the server; `fallback` for text that is no URL. */
export function hostOf(url: string, fallback: string): string {
  try {
    return new URL(url).host;
  } catch {
    return fallback;
  }
}

/** Whether `text` parses as an http: or https: URL. */
export function isHttpUrl(text: string): boolean {
  return httpUrl(text) !== null;
}

/** A user name or password as an address holds it, as typed: `%40` is an `@`; a lone `%` stays itself. */
export function decodedUrlPart(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
