// The encoding a page declares in its own first bytes, found the way the HTML standard's "prescan
// a byte stream to determine its encoding" finds it
// (https://html.spec.whatwg.org/multipage/parsing.html#prescan-a-byte-stream-to-determine-its-encoding):
// a `<meta charset>`, or a `<meta http-equiv="content-type">` whose content names a charset, read
// tag by tag so that one in a comment, in another tag's attribute or in a `<meta name=…>` does not
// count; failing that, an XML declaration's encoding. Step for step, over the first 4,096 bytes,
// every step moving forward: linear in those bytes.

/**
 * Bytes of a page the prescan reads. The standard advises 1,024, but a browser also takes a later
 * `<meta>` met while parsing `<head>` and reads the page again; this reads once, so it looks as far
 * as the pattern it replaced did (a long inline script or style can push the `<meta>` past 1 kB).
 */
export const PRESCAN_BYTES = 4096;

/**
 * The encoding the standard's "get an encoding" gives for a label (ASCII whitespace trimmed, any
 * case; latin1, iso-8859-1 and ascii are windows-1252): TextDecoder holds the table, so a label
 * counts when this device can decode it. Null for a label it does not know.
 */
export function getEncoding(label: string): string | null {
  try {
    return new TextDecoder(label).encoding;
  } catch {
    // Node's TextDecoder lacks x-user-defined (Chromium's has it); a <meta> naming it still counts.
    return /^[\t\n\f\r ]*x-user-defined[\t\n\f\r ]*$/i.test(label) ? "x-user-defined" : null;
  }
}

/** The encoding the page's first `PRESCAN_BYTES` declare, or null when they declare none this device knows. */
export function prescanEncoding(bytes: Uint8Array): string | null {
  const head = bytes.subarray(0, PRESCAN_BYTES);
  // ASCII "<?x" in UTF-16 with no mark: nothing read as ASCII could find anything else.
  if (startsWith(head, [0x3c, 0, 0x3f, 0, 0x78, 0])) return "utf-16le";
  if (startsWith(head, [0, 0x3c, 0, 0x3f, 0, 0x78])) return "utf-16be";
  return metaEncoding(head) ?? xmlDeclarationEncoding(head);
}

/**
 * The encoding a `<meta>` anywhere in the page declares, read the prescan's way, or null. A browser
 * that meets such a `<meta>` past the bytes it prescanned reads the page again in its encoding;
 * page-charset.ts asks this only when UTF-8 could not read the page. Linear in the bytes too.
 */
export function laterMetaEncoding(bytes: Uint8Array): string | null {
  return metaEncoding(bytes);
}

/** The standard aborts the whole scan when the bytes run out, from wherever it is. */
class RanOutOfBytes extends Error {}

class ByteScan {
  pos = 0;
  constructor(readonly bytes: Uint8Array) {}

  get byte(): number {
    if (this.pos >= this.bytes.length) throw new RanOutOfBytes();
    return this.bytes[this.pos];
  }

  /** Moves to the next `target` byte at or after `from`. */
  seek(target: number, from: number): void {
    const at = this.bytes.indexOf(target, from);
    if (at < 0) throw new RanOutOfBytes();
    this.pos = at;
  }
}

function metaEncoding(bytes: Uint8Array): string | null {
  const scan = new ByteScan(bytes);
  try {
    for (; scan.pos < bytes.length; scan.pos++) {
      const found = atByte(scan);
      if (found) return found;
    }
  } catch (error) {
    if (!(error instanceof RanOutOfBytes)) throw error;
  }
  return null;
}

/** One turn of the standard's loop, at `scan.pos`; it leaves `pos` on the last byte it used. */
function atByte(scan: ByteScan): string | null {
  const { bytes, pos } = scan;
  if (bytes[pos] !== 0x3c) return null;
  const next = bytes[pos + 1];
  if (startsWith(bytes.subarray(pos), [0x3c, 0x21, 0x2d, 0x2d])) {
    // "<!--" ends at the first "-->"; its own dashes count, so "<!-->" is a whole comment.
    scan.seek(0x3e, pos + 4);
    while (bytes[scan.pos - 1] !== 0x2d || bytes[scan.pos - 2] !== 0x2d) scan.seek(0x3e, scan.pos + 1);
    return null;
  }
  if (isMetaStart(bytes, pos)) {
    scan.pos = pos + 5;
    return readMeta(scan);
  }
  const letterAt = next === 0x2f ? pos + 2 : pos + 1;
  if (isAsciiLetter(bytes[letterAt])) {
    // Any other tag: its attributes are read and dropped, so a "<meta" inside one is not a meta.
    scan.pos = letterAt;
    while (!isSpace(scan.byte) && scan.byte !== 0x3e) scan.pos++;
    while (getAttribute(scan)) {
      // nothing to keep
    }
    return null;
  }
  if (next === 0x21 || next === 0x2f || next === 0x3f) scan.seek(0x3e, pos + 1);
  return null;
}

/** "<meta" in any case, then whitespace or "/". */
function isMetaStart(bytes: Uint8Array, pos: number): boolean {
  const word = [0x6d, 0x65, 0x74, 0x61];
  for (let i = 0; i < word.length; i++) if ((bytes[pos + 1 + i] | 0x20) !== word[i]) return false;
  const after = bytes[pos + 5];
  return after !== undefined && (isSpace(after) || after === 0x2f);
}

/** A meta's attributes, from just after "<meta": the encoding it declares, or null to go on scanning. */
function readMeta(scan: ByteScan): string | null {
  const seen = new Set<string>();
  let gotPragma = false;
  let needPragma: boolean | null = null;
  // Unset, an encoding, or (null) a label no decoder here knows: a content charset fills only the unset.
  let charset: string | null | undefined;
  for (let attribute = getAttribute(scan); attribute; attribute = getAttribute(scan)) {
    // The first of two same-named attributes is the one that counts.
    if (seen.has(attribute.name)) continue;
    seen.add(attribute.name);
    if (attribute.name === "http-equiv") {
      if (attribute.value === "content-type") gotPragma = true;
    } else if (attribute.name === "content") {
      const fromContent = charsetInContent(attribute.value);
      if (fromContent !== null && charset === undefined) {
        charset = fromContent;
        needPragma = true;
      }
    } else if (attribute.name === "charset") {
      charset = getEncoding(attribute.value);
      needPragma = false;
    }
  }
  if (needPragma === null || (needPragma && !gotPragma) || !charset) return null;
  // A meta found by reading ASCII cannot be in UTF-16; x-user-defined is a browser's name for bytes as they are.
  if (charset === "utf-16le" || charset === "utf-16be") return "utf-8";
  if (charset === "x-user-defined") return "windows-1252";
  return charset;
}

interface Attribute {
  /** ASCII letters lower-cased. */
  name: string;
  /** ASCII letters lower-cased, quotes taken off. */
  value: string;
}

/** The standard's "get an attribute": the next one in the tag, or null at its ">". */
function getAttribute(scan: ByteScan): Attribute | null {
  while (isSpace(scan.byte) || scan.byte === 0x2f) scan.pos++;
  if (scan.byte === 0x3e) return null;
  let name = "";
  for (;;) {
    const b = scan.byte;
    if (b === 0x3d && name !== "") {
      scan.pos++;
      return { name, value: attributeValue(scan) };
    }
    if (isSpace(b)) break;
    if (b === 0x2f || b === 0x3e) return { name, value: "" };
    name += lowerAscii(b);
    scan.pos++;
  }
  while (isSpace(scan.byte)) scan.pos++;
  if (scan.byte !== 0x3d) return { name, value: "" };
  scan.pos++;
  return { name, value: attributeValue(scan) };
}

/** From just after "=": a quoted value, or one that ends at whitespace or ">". */
function attributeValue(scan: ByteScan): string {
  while (isSpace(scan.byte)) scan.pos++;
  const first = scan.byte;
  let value = "";
  if (first === 0x22 || first === 0x27) {
    for (scan.pos++; scan.byte !== first; scan.pos++) value += lowerAscii(scan.byte);
    scan.pos++;
    return value;
  }
  if (first === 0x3e) return "";
  for (; !isSpace(scan.byte) && scan.byte !== 0x3e; scan.pos++) value += lowerAscii(scan.byte);
  return value;
}

/** The standard's "extracting a character encoding from a meta element", over a lower-cased content value. */
function charsetInContent(content: string): string | null {
  let from = 0;
  for (;;) {
    const at = content.indexOf("charset", from);
    if (at < 0) return null;
    let i = at + "charset".length;
    while (isSpace(content.charCodeAt(i))) i++;
    if (content[i] !== "=") {
      from = i;
      continue;
    }
    i++;
    while (isSpace(content.charCodeAt(i))) i++;
    const first = content[i];
    if (first === undefined) return null;
    if (first === '"' || first === "'") {
      const close = content.indexOf(first, i + 1);
      return close < 0 ? null : getEncoding(content.slice(i + 1, close));
    }
    let end = i;
    while (end < content.length && !isSpace(content.charCodeAt(end)) && content[end] !== ";") end++;
    return getEncoding(content.slice(i, end));
  }
}

/**
 * The standard's "get an XML encoding": `<?xml … encoding="…"` at the very start, all before the
 * declaration's first ">", the label quoted and without whitespace or control bytes.
 */
function xmlDeclarationEncoding(bytes: Uint8Array): string | null {
  if (!startsWith(bytes, [0x3c, 0x3f, 0x78, 0x6d, 0x6c])) return null;
  const end = bytes.indexOf(0x3e);
  if (end < 0) return null;
  const declaration = latin1(bytes.subarray(0, end));
  const at = declaration.indexOf("encoding");
  if (at < 0) return null;
  let i = at + "encoding".length;
  while (declaration.charCodeAt(i) <= 0x20) i++;
  if (declaration[i] !== "=") return null;
  i++;
  while (declaration.charCodeAt(i) <= 0x20) i++;
  const quote = declaration[i];
  if (quote !== '"' && quote !== "'") return null;
  const close = declaration.indexOf(quote, i + 1);
  if (close < 0) return null;
  const label = declaration.slice(i + 1, close);
  if ([...label].some((c) => c.charCodeAt(0) <= 0x20)) return null;
  const encoding = getEncoding(label);
  return encoding === "utf-16le" || encoding === "utf-16be" ? "utf-8" : encoding;
}

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return prefix.every((b, i) => bytes[i] === b);
}

/** The whitespace of the standard's byte steps: tab, line feed, form feed, carriage return, space. */
function isSpace(b: number): boolean {
  return b === 0x09 || b === 0x0a || b === 0x0c || b === 0x0d || b === 0x20;
}

function isAsciiLetter(b: number | undefined): boolean {
  return b !== undefined && ((b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a));
}

function lowerAscii(b: number): string {
  return String.fromCharCode(b >= 0x41 && b <= 0x5a ? b + 0x20 : b);
}

/** Bytes as the code points of the same value: only their ASCII matters here. */
export function latin1(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) out += String.fromCharCode(b);
  return out;
}
