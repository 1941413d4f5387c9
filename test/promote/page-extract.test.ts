import { describe, expect, it } from "vitest";
import { decodeBody, fetchAndReadPage, type PageReading, type ReadPage } from "../../src/promote/page-extract";
import { HttpFailure, type HttpResponse } from "../../src/ports";
import { httpAnswering } from "../support/promote-fixtures";

/** windows-1251 puts А…я at 0xC0…0xFF. */
function cp1251(text: string): Uint8Array {
  return Uint8Array.from([...text].map((ch) => {
    const code = ch.codePointAt(0)!;
    if (code >= 0x410 && code <= 0x44f) return 0xc0 + (code - 0x410);
    if (code < 0x80) return code;
    throw new Error(`not in the test table: ${ch}`);
  }));
}

const ascii = (text: string) => Uint8Array.from([...text].map((c) => c.charCodeAt(0)));
const concat = (...parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((p) => [...p]));

/** A ReadPage stand-in that hands back the decoded HTML, so tests see what the extractor was given. */
const echoReader: ReadPage = async (html) => reading(html, 100);

function reading(markdown: string, wordCount: number): PageReading {
  return { title: "", author: "", published: "", description: "", site: "", language: "", markdown, wordCount };
}

function withBytes(bytes: Uint8Array, contentType: string): HttpResponse & { bytes: Uint8Array } {
  return { status: 200, headers: { "content-type": contentType }, text: new TextDecoder().decode(bytes), bytes };
}

describe("decodeBody", () => {
  it("decodes windows-1251 bytes by the charset in Content-Type", () => {
    const bytes = concat(ascii("<p>"), cp1251("Привет мир"), ascii("</p>"));
    const decoded = decodeBody(withBytes(bytes, "text/html; charset=windows-1251"));
    expect(decoded.html).toBe("<p>Привет мир</p>");
    expect(decoded.charset).toBe("windows-1251");
  });

  it("decodes Shift_JIS bytes by the page's <meta charset> when the header names none", () => {
    const nihongo = Uint8Array.from([0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea]);
    const bytes = concat(ascii('<html><head><meta charset="Shift_JIS"></head><body><p>'), nihongo, ascii("</p></body></html>"));
    const decoded = decodeBody(withBytes(bytes, "text/html"));
    expect(decoded.html).toContain("<p>日本語</p>");
    expect(decoded.charset).toBe("shift_jis");
  });

  it("reads the http-equiv form of the meta charset too", () => {
    const bytes = concat(ascii('<meta http-equiv="Content-Type" content="text/html; charset=windows-1251"><p>'), cp1251("Да"), ascii("</p>"));
    expect(decodeBody(withBytes(bytes, "text/html")).html).toContain("<p>Да</p>");
  });

  it("falls back to UTF-8 with a warning for a charset it cannot decode", () => {
    const decoded = decodeBody(withBytes(ascii("<p>hello</p>"), "text/html; charset=x-no-such-charset"));
    expect(decoded.html).toBe("<p>hello</p>");
    expect(decoded.warnings.join(" ")).toContain("x-no-such-charset");
  });

  it("uses already-decoded text as given and reports characters lost before it arrived", () => {
    const ok = decodeBody({ status: 200, headers: { "content-type": "text/html; charset=windows-1251" }, text: "<p>Привет</p>" });
    expect(ok).toEqual({ html: "<p>Привет</p>", charset: "windows-1251", warnings: [] });
    const mangled = decodeBody({ status: 200, headers: { "content-type": "text/html; charset=windows-1251" }, text: "<p>\uFFFD\uFFFD</p>" });
    expect(mangled.warnings.join(" ")).toContain("were lost");
  });
});

describe("fetchAndReadPage", () => {
  const page = (response: Partial<HttpResponse> & { bytes?: Uint8Array }) =>
    httpAnswering(async () => ({ status: 200, headers: { "content-type": "text/html" }, text: "", ...response }));

  it("hands the extractor the page decoded from its bytes", async () => {
    const bytes = concat(ascii("<p>"), cp1251("Заметки"), ascii("</p>"));
    const outcome = await fetchAndReadPage("https://ru.example.org/a", page(withBytes(bytes, "text/html; charset=windows-1251")), echoReader);
    expect(outcome).toMatchObject({ kind: "extracted", charset: "windows-1251", reading: { markdown: "<p>Заметки</p>" } });
  });

  it("names the status code of an error response", async () => {
    const outcome = await fetchAndReadPage("https://x.example/a", page({ status: 451, text: "<p>blocked</p>" }), echoReader);
    expect(outcome).toMatchObject({ kind: "unusable", problem: { kind: "http_error", status: 451 } });
  });

  it("turns each Http failure into its reason, and a cancel into cancelled", async () => {
    for (const kind of ["timeout", "too_large", "network", "replay_miss"] as const) {
      const http = httpAnswering(async () => {
        throw new HttpFailure(kind, `failed: ${kind}`);
      });
      expect(await fetchAndReadPage("https://x.example/a", http, echoReader)).toMatchObject({ kind: "unusable", problem: { kind } });
    }
    const cancelled = httpAnswering(async () => {
      throw new HttpFailure("aborted", "cancelled");
    });
    expect(await fetchAndReadPage("https://x.example/a", cancelled, echoReader)).toEqual({ kind: "cancelled" });
  });

  it("treats a PDF as a PDF whether the header or the bytes say so", async () => {
    expect(await fetchAndReadPage("https://x.example/a", page({ headers: { "content-type": "application/pdf" }, text: "%PDF-1.4" }), echoReader)).toEqual({ kind: "pdf" });
    expect(await fetchAndReadPage("https://x.example/a", page({ headers: {}, text: "%PDF-1.4 ..." }), echoReader)).toEqual({ kind: "pdf" });
  });

  it("does not hand JSON, images or plain text to the HTML extractor", async () => {
    const outcome = await fetchAndReadPage("https://x.example/a", page({ headers: { "content-type": "application/json" }, text: "{}" }), echoReader);
    expect(outcome).toMatchObject({ kind: "unusable", problem: { kind: "not_html" } });
  });

  it("sniffs HTML when the server sends no content type", async () => {
    const outcome = await fetchAndReadPage("https://x.example/a", page({ headers: {}, text: "<!DOCTYPE html><html><body>hi</body></html>" }), echoReader);
    expect(outcome.kind).toBe("extracted");
  });

  it("calls a page with almost no words of its own unreadable, and an extractor crash a failed extraction", async () => {
    const thin = await fetchAndReadPage("https://x.example/a", page({ text: "<div id=root></div>" }), async () => reading("Loading…", 1));
    expect(thin).toMatchObject({ kind: "unusable", problem: { kind: "no_readable_text" } });
    const crash = await fetchAndReadPage("https://x.example/a", page({ text: "<p>x</p>" }), async () => {
      throw new Error("boom");
    });
    expect(crash).toMatchObject({ kind: "unusable", problem: { kind: "extract_failed" } });
  });
});
