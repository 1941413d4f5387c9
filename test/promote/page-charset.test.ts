import { describe, expect, it } from "vitest";
import { PRESCAN_BYTES } from "../../src/promote/charset-prescan";
import { decodeBody, headerCharset } from "../../src/promote/page-charset";
import { fetchPage } from "../../src/promote/page-extract";
import type { HttpResponse } from "../../src/ports";
import { httpAnswering } from "../support/promote-fixtures";

const ascii = (text: string) => Uint8Array.from([...text].map((c) => c.charCodeAt(0)));
const concat = (...parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((p) => [...p]));
const utf8 = (text: string) => new TextEncoder().encode(text);
/** Code units below 0x100 only, which is all these tests need. */
const utf16le = (text: string) => Uint8Array.from([...text].flatMap((c) => [c.charCodeAt(0), 0]));
/** "Да" in windows-1251. */
const DA = Uint8Array.of(0xc4, 0xe0);
/** "日本語" in Shift_JIS. */
const NIHONGO = Uint8Array.of(0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea);

function served(bytes: Uint8Array, contentType?: string): HttpResponse & { bytes: Uint8Array } {
  return { status: 200, headers: contentType === undefined ? {} : { "content-type": contentType }, text: new TextDecoder().decode(bytes), bytes };
}

/** The encoding a page of `head` + "Да" in windows-1251 is read in, served as text/html with no charset. */
function charsetOf(head: string): string {
  return decodeBody(served(concat(ascii(head), DA), "text/html")).charset;
}

describe("decodeBody: the HTML standard's order", () => {
  it("decodes by the charset in Content-Type", () => {
    const decoded = decodeBody(served(concat(ascii("<p>"), DA, ascii("</p>")), "text/html; charset=windows-1251"));
    expect(decoded).toEqual({ html: "<p>Да</p>", charset: "windows-1251", warnings: [] });
  });

  it("decodes by the page's <meta charset>, or its http-equiv form, when the header names none", () => {
    const sjis = concat(ascii('<html><head><meta charset="Shift_JIS"></head><body><p>'), NIHONGO, ascii("</p></body></html>"));
    const decoded = decodeBody(served(sjis, "text/html"));
    expect(decoded.html).toContain("<p>日本語</p>");
    expect(decoded.charset).toBe("shift_jis");
    const cyrillic = concat(ascii('<meta http-equiv="Content-Type" content="text/html; charset=windows-1251"><p>'), DA, ascii("</p>"));
    expect(decodeBody(served(cyrillic, "text/html")).html).toContain("<p>Да</p>");
  });

  it("uses already-decoded text as given and reports characters lost before it arrived", () => {
    const ok = decodeBody({ status: 200, headers: { "content-type": "text/html; charset=windows-1251" }, text: "<p>Привет</p>" });
    expect(ok).toEqual({ html: "<p>Привет</p>", charset: "windows-1251", warnings: [] });
    const mangled = decodeBody({ status: 200, headers: { "content-type": "text/html; charset=windows-1251" }, text: "<p>\uFFFD\uFFFD</p>" });
    expect(mangled.warnings.join(" ")).toContain("were lost");
  });
});

describe("decodeBody: a Content-Type charset this device cannot decode", () => {
  it("is passed over for the page's <meta>, with a warning naming both", () => {
    const bytes = concat(ascii('<meta charset="windows-1251"><p>'), DA, ascii("</p>"));
    const decoded = decodeBody(served(bytes, "text/html; charset=x-no-such-charset"));
    expect(decoded.html).toBe('<meta charset="windows-1251"><p>Да</p>');
    expect(decoded.charset).toBe("windows-1251");
    expect(decoded.warnings).toEqual(['The page declares the charset "x-no-such-charset", which this device cannot decode; it was read as windows-1251.']);
  });

  it("is passed over for the http-equiv form too, and so is a real charset no decoder reads (UTF-7)", () => {
    const bytes = concat(ascii('<meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS"><p>'), NIHONGO);
    const decoded = decodeBody(served(bytes, "text/html; charset=utf-7"));
    expect(decoded.html).toContain("<p>日本語");
    expect(decoded.charset).toBe("shift_jis");
  });

  it("is passed over for the <meta> of text that arrived already decoded, too", () => {
    const decoded = decodeBody({ status: 200, headers: { "content-type": "text/html; charset=x-no-such-charset" }, text: '<meta charset="windows-1251"><p>Да</p>' });
    expect(decoded).toEqual({ html: '<meta charset="windows-1251"><p>Да</p>', charset: "windows-1251", warnings: [] });
  });

  it("leaves UTF-8 when the page declares nothing else", () => {
    const decoded = decodeBody(served(ascii("<p>hello</p>"), "text/html; charset=x-no-such-charset"));
    expect(decoded).toEqual({ html: "<p>hello</p>", charset: "utf-8", warnings: ['The page declares the charset "x-no-such-charset", which this device cannot decode; it was read as utf-8.'] });
  });
});

describe("fetchPage: a body with no Content-Type that starts with a byte-order mark", () => {
  const fetched = async (bytes: Uint8Array, contentType?: string) => fetchPage("https://x.example/a", httpAnswering(async () => served(bytes, contentType)));

  it("is sniffed as HTML past a UTF-8 mark", async () => {
    const bytes = concat(Uint8Array.of(0xef, 0xbb, 0xbf), utf8("<!DOCTYPE html><p>Un café crème</p>"));
    expect(await fetched(bytes)).toMatchObject({ kind: "html", decoded: { html: "<!DOCTYPE html><p>Un café crème</p>", charset: "utf-8" } });
    expect(await fetched(bytes, "application/octet-stream")).toMatchObject({ kind: "html" });
  });

  it("is sniffed as HTML past a UTF-16LE mark, and read as UTF-16LE", async () => {
    const bytes = concat(Uint8Array.of(0xff, 0xfe), utf16le("<html><p>Un café crème</p></html>"));
    expect(await fetched(bytes)).toMatchObject({ kind: "html", decoded: { html: "<html><p>Un café crème</p></html>", charset: "utf-16le" } });
  });

  it("is still a PDF when the mark is followed by %PDF-, and not HTML when followed by JSON", async () => {
    expect(await fetched(concat(Uint8Array.of(0xef, 0xbb, 0xbf), ascii("%PDF-1.7")))).toEqual({ kind: "pdf" });
    expect(await fetched(concat(Uint8Array.of(0xef, 0xbb, 0xbf), ascii('{"a":1}')))).toMatchObject({ kind: "unusable", problem: { kind: "not_html" } });
  });
});

describe("decodeBody: the <meta> found as the HTML standard's prescan finds it", () => {
  it("ignores a <meta> inside a comment", () => {
    expect(charsetOf('<!-- <meta charset="shift_jis"> --><meta charset="windows-1251"><p>')).toBe("windows-1251");
    // "<!-->" is a whole comment: the meta after it counts.
    expect(charsetOf('<!--><meta charset="windows-1251"><p>')).toBe("windows-1251");
  });

  it("ignores charset= in the content of a <meta> that is not http-equiv=content-type", () => {
    expect(charsetOf('<meta name="description" content="On charset=shift_jis pages"><p>')).toBe("utf-8");
    expect(charsetOf('<meta http-equiv="refresh" content="0; url=/?charset=shift_jis"><p>')).toBe("utf-8");
    // The first of two http-equiv attributes is the one that counts.
    expect(charsetOf('<meta http-equiv=refresh http-equiv=Content-Type content="text/html;charset=shift_jis"><p>')).toBe("utf-8");
  });

  it("reads http-equiv and content in either order, quoted or not", () => {
    expect(charsetOf('<meta content="text/html; charset=windows-1251" http-equiv="Content-Type"><p>')).toBe("windows-1251");
    expect(charsetOf("<meta http-equiv=Content-Type content=text/html;charset=windows-1251><p>")).toBe("windows-1251");
    expect(charsetOf(`<meta http-equiv="content-type" content="text/html;charset='windows-1251'"><p>`)).toBe("windows-1251");
  });

  it("ignores a <meta> written inside another tag's attribute, and a tag that only starts with meta", () => {
    expect(charsetOf(`<div title='<meta charset="shift_jis">'><meta charset="windows-1251"><p>`)).toBe("windows-1251");
    expect(charsetOf('<metadata charset="shift_jis"><p>')).toBe("utf-8");
    expect(charsetOf('<meta data-charset="shift_jis"><p>')).toBe("utf-8");
  });

  it("passes over a label no decoder knows and takes the next <meta>", () => {
    expect(charsetOf('<meta charset="x-no-such-charset"><meta charset="windows-1251"><p>')).toBe("windows-1251");
  });

  it("reads only the prescan's bytes, and a <meta> must end within them, while the page is UTF-8", () => {
    const meta = '<meta charset="windows-1251">';
    const utf8Page = (head: string) => decodeBody(served(concat(ascii(head), utf8("<p>Да</p>")), "text/html"));
    expect(utf8Page(" ".repeat(PRESCAN_BYTES - meta.length) + meta).charset).toBe("windows-1251");
    const past = utf8Page(" ".repeat(PRESCAN_BYTES + 1 - meta.length) + meta);
    expect(past).toMatchObject({ charset: "utf-8", warnings: [] });
    expect(past.html).toContain("<p>Да</p>");
    expect(charsetOf('<meta charset="windows-1251"')).toBe("utf-8");
  });

  it("takes a <meta> past the prescan's bytes when UTF-8 cannot read the page, as a browser reads it again", () => {
    const late = (meta: string) => concat(ascii(`<!doctype html><!--${"c".repeat(5000)}--><html><head>${meta}</head><body><p>`), NIHONGO, ascii("</p></body></html>"));
    const decoded = decodeBody(served(late('<meta charset="Shift_JIS">'), "text/html"));
    expect(decoded).toMatchObject({ charset: "shift_jis", warnings: [] });
    expect(decoded.html).toContain("<p>日本語</p>");
    const charsetOfLate = (meta: string) => decodeBody(served(concat(ascii(" ".repeat(PRESCAN_BYTES)), ascii(meta), DA), "text/html")).charset;
    expect(charsetOfLate('<meta http-equiv="Content-Type" content="text/html; charset=windows-1251">')).toBe("windows-1251");
  });

  it("says characters were lost when the page names no charset and is not UTF-8", () => {
    const decoded = decodeBody(served(concat(ascii("<p>"), NIHONGO, ascii("</p>")), "text/html"));
    expect(decoded.charset).toBe("utf-8");
    expect(decoded.warnings).toEqual(["The page does not say which charset it is in, and it is not UTF-8; characters shown as \uFFFD could not be read."]);
  });

  it("takes the encoding of an XML declaration when no <meta> names one", () => {
    expect(charsetOf('<?xml version="1.0" encoding="windows-1251"?><p>')).toBe("windows-1251");
    expect(charsetOf('<?xml version="1.0" encoding="windows-1251"?><meta charset="shift_jis"><p>')).toBe("shift_jis");
  });

  it("reads a UTF-16 page without a mark by its XML declaration's first bytes", () => {
    const page = '<?xml version="1.0"?><p>café</p>';
    const decoded = decodeBody(served(utf16le(page), "text/html"));
    expect(decoded).toEqual({ html: page, charset: "utf-16le", warnings: [] });
  });
});

describe("decodeBody: labels", () => {
  it("trims ASCII whitespace from a label and ignores its case", () => {
    expect(charsetOf('<meta charset=" WINDOWS-1251\t"><p>')).toBe("windows-1251");
    expect(decodeBody(served(DA, "text/html; charset=Windows-1251")).html).toBe("Да");
  });

  it("reads latin1, iso-8859-1 and ascii as windows-1252, as browsers do (0x80 is the euro sign)", () => {
    for (const label of ["latin1", "ISO-8859-1", "ascii"]) {
      const decoded = decodeBody(served(Uint8Array.of(0x80, 0x20, 0xe9), `text/html; charset=${label}`));
      expect(decoded, label).toEqual({ html: "€ é", charset: "windows-1252", warnings: [] });
    }
  });
});

describe("headerCharset", () => {
  it("reads the charset parameter as MIME reads parameters", () => {
    expect(headerCharset("text/html; charset=windows-1251")).toBe("windows-1251");
    expect(headerCharset('text/html;CHARSET="koi8-r"')).toBe("koi8-r");
    expect(headerCharset("text/html; q=1;  charset=shift_jis ; x=y")).toBe("shift_jis");
    expect(headerCharset('text/html; note="say charset=koi8-r"; charset=utf-8')).toBe("utf-8");
    expect(headerCharset("text/html; mycharset=koi8-r")).toBeNull();
    expect(headerCharset("text/html; charset =koi8-r")).toBeNull();
    expect(headerCharset('text/html; charset="utf-8"; charset=koi8-r')).toBe("utf-8");
    expect(headerCharset("text/html")).toBeNull();
    expect(headerCharset("text/html; charset=")).toBeNull();
    expect(headerCharset("charset=koi8-r")).toBeNull();
  });
});

describe("decodeBody: a Content-Type charset the page's own bytes contradict (a server default, a lying header)", () => {
  it("reads a windows-1251 page served as UTF-8 by the charset the page declares, and says the header was wrong", () => {
    const bytes = concat(ascii('<html><head><meta charset="windows-1251"></head><body><p>'), DA, ascii("</p></body></html>"));
    const decoded = decodeBody(served(bytes, "text/html; charset=utf-8"));
    expect(decoded.html).toContain("<p>Да</p>");
    expect(decoded.charset).toBe("windows-1251");
    expect(decoded.warnings).toEqual(["The server says the page is in utf-8, but its bytes are not; it was read as windows-1251, the charset the page itself declares."]);
  });

  it("reads a UTF-8 page served as ISO-8859-1 (a server's default) as UTF-8 when the page declares UTF-8", () => {
    const bytes = concat(ascii('<html><head><meta charset="utf-8"></head><body><p>'), utf8("Привет, café"), ascii("</p></body></html>"));
    const decoded = decodeBody(served(bytes, "text/html; charset=ISO-8859-1"));
    expect(decoded.html).toContain("<p>Привет, café</p>");
    expect(decoded.charset).toBe("utf-8");
    expect(decoded.warnings).toEqual(["The server says the page is in windows-1252, but it is UTF-8, as the page itself declares; it was read as UTF-8."]);
  });

  it("says characters were lost when a page served as UTF-8 is not UTF-8 and declares nothing else", () => {
    const decoded = decodeBody(served(concat(ascii("<p>"), NIHONGO, ascii("</p>")), "text/html; charset=utf-8"));
    expect(decoded.charset).toBe("utf-8");
    expect(decoded.html).toContain("\uFFFD");
    expect(decoded.warnings).toEqual(["The server says the page is in utf-8, but its bytes are not, and the page names no other charset; characters shown as \uFFFD could not be read."]);
  });

  it("keeps the header's charset when the bytes agree with it, or when the page's own declaration does not fit them either", () => {
    const cyrillic = concat(ascii('<meta charset="utf-8"><p>'), DA, ascii("</p>"));
    expect(decodeBody(served(cyrillic, "text/html; charset=windows-1251"))).toEqual({ html: '<meta charset="utf-8"><p>Да</p>', charset: "windows-1251", warnings: [] });
    const plain = concat(ascii('<meta charset="windows-1251"><p>'), utf8("Да"), ascii("</p>"));
    expect(decodeBody(served(plain, "text/html; charset=utf-8"))).toEqual({ html: '<meta charset="windows-1251"><p>Да</p>', charset: "utf-8", warnings: [] });
    const ascii7 = ascii('<meta charset="utf-8"><p>plain</p>');
    expect(decodeBody(served(ascii7, "text/html; charset=windows-1252"))).toMatchObject({ charset: "windows-1252", warnings: [] });
  });
});
