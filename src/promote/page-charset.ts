// How a fetched page's bytes become text, in the HTML standard's order: a byte-order mark (it is in
// the bytes themselves), then the Content-Type charset, then what the page declares in its first
// bytes (charset-prescan.ts), else UTF-8. As the standard passes over a label it does not know, a
// charset this device cannot decode is passed over for the next source, with a warning.
import type { HttpResponse } from "../ports";
import { getEncoding, latin1, laterMetaEncoding, PRESCAN_BYTES, prescanEncoding } from "./charset-prescan";

export interface DecodedPage {
  html: string;
  /** The charset the text was read as (the Encoding Standard's lower-case name). */
  charset: string;
  warnings: string[];
}

/**
 * The page's text. The mark is not part of it. Only possible when the response carries bytes;
 * otherwise the adapter's text is used as given and characters lost on the way are reported.
 */
export function decodeBody(response: HttpResponse): DecodedPage {
  const fromHeader = headerCharset(response.headers["content-type"] ?? "");
  return response.bytes ? decodeBytes(response.bytes, fromHeader) : describeText(response.text, fromHeader);
}

/** The start of the body as text, for sniffing what kind it is: past a byte-order mark, in the mark's encoding. */
export function bodyStart(response: HttpResponse, length: number): string {
  if (!response.bytes) return response.text.slice(response.text.startsWith("\uFEFF") ? 1 : 0).slice(0, length);
  const mark = byteOrderMark(response.bytes);
  if (!mark) return latin1(response.bytes.subarray(0, length));
  return new TextDecoder(mark.encoding).decode(response.bytes.subarray(mark.length, mark.length + 2 * length)).slice(0, length);
}

function decodeBytes(bytes: Uint8Array, fromHeader: string | null): DecodedPage {
  const mark = byteOrderMark(bytes);
  // TextDecoder drops a mark of its own encoding, and a mark always picks its own encoding here.
  if (mark) return { html: decodeAs(bytes, mark.encoding) ?? "", charset: mark.encoding, warnings: [] };
  const passedOver: string[] = [];
  for (const [label, from] of [[fromHeader, "header"], [prescanEncoding(bytes), "page"]] as const) {
    if (label === null) continue;
    const encoding = getEncoding(label);
    const html = encoding === null ? null : decodeAs(bytes, encoding);
    if (encoding !== null && html !== null) {
      const contradicted = from === "header" ? headerContradicted(bytes, encoding) : null;
      return contradicted ?? { html, charset: encoding, warnings: passedOverWarnings(passedOver, encoding) };
    }
    passedOver.push(label);
  }
  return undeclaredBytes(bytes, passedOver);
}

/**
 * The page read otherwise, with a warning, when its bytes say the server's charset is wrong (a
 * server's default, not the page's: Tomcat's ISO-8859-1, an Apache `AddDefaultCharset UTF-8` over
 * old pages), else null. A browser believes the header and shows mojibake; a note kept it for good,
 * with no word of it: a windows-1251 page served as UTF-8 became "\uFFFD\uFFFD", its title and file
 * name too. Only the bytes and the page's own declaration together overrule the header.
 */
function headerContradicted(bytes: Uint8Array, fromHeader: string): DecodedPage | null {
  if (fromHeader === "utf-8") {
    if (isUtf8(bytes)) return null;
    const declared = prescanEncoding(bytes) ?? laterMetaEncoding(bytes);
    const html = declared !== null && declared !== "utf-8" ? decodeAs(bytes, declared) : null;
    if (declared !== null && html !== null) {
      return { html, charset: declared, warnings: [`The server says the page is in utf-8, but its bytes are not; it was read as ${declared}, the charset the page itself declares.`] };
    }
    const lost = "The server says the page is in utf-8, but its bytes are not, and the page names no other charset; characters shown as \uFFFD could not be read.";
    return { html: decodeAs(bytes, "utf-8") ?? "", charset: "utf-8", warnings: [lost] };
  }
  // A single-byte charset reads any bytes, so only UTF-8's own sequences, and the page's word, tell.
  if (SINGLE_BYTE.test(fromHeader) && prescanEncoding(bytes) === "utf-8" && !isAscii(bytes) && isUtf8(bytes)) {
    return { html: decodeAs(bytes, "utf-8") ?? "", charset: "utf-8", warnings: [`The server says the page is in ${fromHeader}, but it is UTF-8, as the page itself declares; it was read as UTF-8.`] };
  }
  return null;
}

/** Encodings with one byte a character, which decode any bytes at all (as the Encoding Standard names them). */
const SINGLE_BYTE = /^(windows-125\d|iso-8859-\d+|koi8-[ru]|ibm866|macintosh|x-mac-cyrillic|windows-874)$/;

function isUtf8(bytes: Uint8Array): boolean {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

function isAscii(bytes: Uint8Array): boolean {
  return bytes.every((byte) => byte < 0x80);
}

/**
 * A page whose header and first bytes name no charset this device reads: UTF-8, unless UTF-8
 * cannot read it and a `<meta>` further on names another (a long inline script or comment before
 * it; a browser reads the page again when it meets one). Read as UTF-8 without a word, a Shift_JIS
 * page whose `<meta>` stood at 5 kB became a note of replacement characters that said nothing was wrong.
 */
function undeclaredBytes(bytes: Uint8Array, passedOver: string[]): DecodedPage {
  const html = decodeAs(bytes, "utf-8") ?? "";
  if (!html.includes("\uFFFD")) return { html, charset: "utf-8", warnings: passedOverWarnings(passedOver, "utf-8") };
  const later = laterMetaEncoding(bytes);
  const laterHtml = later !== null && later !== "utf-8" ? decodeAs(bytes, later) : null;
  if (later !== null && laterHtml !== null) return { html: laterHtml, charset: later, warnings: passedOverWarnings(passedOver, later) };
  const lost = "The page does not say which charset it is in, and it is not UTF-8; characters shown as \uFFFD could not be read.";
  return { html, charset: "utf-8", warnings: [...passedOverWarnings(passedOver, "utf-8"), lost] };
}

function passedOverWarnings(labels: string[], readAs: string): string[] {
  return labels.map((label) => `The page declares the charset "${label}", which this device cannot decode; it was read as ${readAs}.`);
}

/** Text the adapter already decoded as UTF-8: what the page declares is only reported. */
function describeText(text: string, fromHeader: string | null): DecodedPage {
  // Text that still starts with a UTF-8 mark was decoded as UTF-8, which the mark says is right.
  if (text.startsWith("\uFEFF")) return { html: text.slice(1), charset: "utf-8", warnings: [] };
  const head = new TextEncoder().encode(text.slice(0, PRESCAN_BYTES)).subarray(0, PRESCAN_BYTES);
  const charset = (fromHeader !== null ? getEncoding(fromHeader) : null) ?? prescanEncoding(head) ?? "utf-8";
  const warnings: string[] = [];
  if (charset !== "utf-8" && text.includes("\uFFFD")) {
    warnings.push(`The page is in ${charset} but arrived decoded as UTF-8; characters shown as \uFFFD were lost on the way.`);
  }
  return { html: text, charset, warnings };
}

/** The bytes as text in `encoding`, or null when this device cannot decode it. */
function decodeAs(bytes: Uint8Array, encoding: string): string | null {
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(encoding);
  } catch {
    return null;
  }
  // The same text as decode(bytes), but Node 20.18.3+ and 22.13+ decode windows-1252 (and so latin1
  // and ascii) as ISO-8859-1 unless streaming, which turns 0x80–0x9F (€, curly quotes, dashes) into
  // control characters (nodejs/node#60888).
  return decoder.decode(bytes, { stream: true }) + decoder.decode();
}

/**
 * The `charset` parameter of a Content-Type, read as the MIME standard reads parameters: `;`-separated
 * `name=value` pairs, the name exactly `charset` (any case, no space before `=`), the value quoted or
 * not. A "charset=" inside another parameter's quoted value is not it; the first charset counts.
 */
export function headerCharset(contentType: string): string | null {
  let at = contentType.indexOf(";");
  while (at >= 0 && at < contentType.length) {
    at++;
    while (at < contentType.length && /[\t\n\r ]/.test(contentType[at])) at++;
    const equals = contentType.indexOf("=", at);
    const semicolon = contentType.indexOf(";", at);
    if (equals < 0) return null;
    if (semicolon >= 0 && semicolon < equals) {
      at = semicolon;
      continue;
    }
    const name = contentType.slice(at, equals).toLowerCase();
    let value: string;
    if (contentType[equals + 1] === '"') {
      // A quoted value runs to its closing quote; a backslash takes the next character as it is.
      let end = equals + 2;
      value = "";
      while (end < contentType.length && contentType[end] !== '"') {
        if (contentType[end] === "\\" && end + 1 < contentType.length) end++;
        value += contentType[end++];
      }
      at = contentType.indexOf(";", end);
    } else {
      const stop = contentType.indexOf(";", equals);
      value = contentType.slice(equals + 1, stop < 0 ? undefined : stop).trim();
      at = stop;
    }
    if (name === "charset" && value !== "") return value;
  }
  return null;
}

function byteOrderMark(bytes: Uint8Array): { encoding: string; length: number } | null {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { encoding: "utf-8", length: 3 };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { encoding: "utf-16le", length: 2 };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { encoding: "utf-16be", length: 2 };
  return null;
}
