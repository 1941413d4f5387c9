import { describe, expect, it } from "vitest";
import { fetchAndReadPage, fetchPage, type PageReading, type ReadPage } from "../../src/promote/page-extract";
import { HttpFailure, type HttpResponse } from "../../src/ports";
import { promotedNote } from "../../src/promote/promoted-note";
import { FIXED_NOW, httpAnswering, traceWith, webRow } from "../support/promote-fixtures";

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
const utf8 = (text: string) => new TextEncoder().encode(text);
/** Code units below 0x100 only, which is all these tests need. */
const utf16 = (text: string, order: "le" | "be") => Uint8Array.from([...text].flatMap((c) => (order === "le" ? [c.charCodeAt(0), 0] : [0, c.charCodeAt(0)])));

/** A ReadPage stand-in that hands back the decoded HTML, so tests see what the extractor was given. */
const echoReader: ReadPage = async (html) => reading(html, 100);

function reading(markdown: string, wordCount: number): PageReading {
  return { title: "", author: "", published: "", description: "", site: "", language: "", markdown, wordCount };
}

function withBytes(bytes: Uint8Array, contentType: string): HttpResponse & { bytes: Uint8Array } {
  return { status: 200, headers: { "content-type": contentType }, text: new TextDecoder().decode(bytes), bytes };
}

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

  // requestUrl (mobile) follows a page's redirects itself and gives up on a loop with a `redirect`
  // failure: it was taken for `network`, and the note said the page "could not be reached".
  it("a page whose site kept redirecting is a redirect loop, in the adapter's words, not an unreached page", async () => {
    const said = "https://x.example/a kept redirecting; the request was given up on.";
    const http = httpAnswering(async () => {
      throw new HttpFailure("redirect", said);
    });
    expect(await fetchAndReadPage("https://x.example/a", http, echoReader)).toEqual({ kind: "unusable", problem: { kind: "redirect_loop" }, message: said });
  });

  // The guard follows a page's redirects itself on desktop and in the CLI; past five it gave the loop up as
  // a refusal, and a promotion then saved nothing where mobile kept a note with the page's excerpt.
  it("a page that redirects past the guard's limit is a redirect loop there too, not a refused address", async () => {
    const http = httpAnswering(async (req) => ({ status: 302, headers: { location: `${req.url}x` }, text: "" }));
    expect(await fetchAndReadPage("https://x.example/a", http, echoReader)).toEqual({
      kind: "unusable",
      problem: { kind: "redirect_loop" },
      message: "x.example kept redirecting (more than 5 times); the page was given up on.",
    });
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

describe("fetchPage: the charset a page is read in (the HTML standard's order)", () => {
  const served = (bytes: Uint8Array, contentType: string) => httpAnswering(async () => withBytes(bytes, contentType));
  const decodedAs = async (bytes: Uint8Array, contentType: string) => {
    const fetched = await fetchPage("https://x.example/a", served(bytes, contentType));
    if (fetched.kind !== "html") throw new Error(`expected html, got ${fetched.kind}`);
    return fetched.decoded;
  };

  it("reads a page whose <meta> says UTF-16 (any form) as UTF-8: a meta found by reading ASCII cannot be UTF-16", async () => {
    for (const label of ["utf-16", "UTF-16LE", "utf-16be"]) {
      const bytes = utf8(`<html><head><meta charset="${label}"></head><body><p>Un café crème</p></body></html>`);
      const decoded = await decodedAs(bytes, "text/html");
      expect(decoded.html, label).toContain("<p>Un café crème</p>");
      expect(decoded.charset, label).toBe("utf-8");
    }
  });

  it("reads a page whose <meta> says x-user-defined as windows-1252", async () => {
    const bytes = concat(ascii('<meta charset="x-user-defined"><p>caf'), Uint8Array.of(0xe9), ascii("</p>"));
    expect(await decodedAs(bytes, "text/html")).toEqual({ html: '<meta charset="x-user-defined"><p>café</p>', charset: "windows-1252", warnings: [] });
  });

  it("lets a UTF-8 byte-order mark win over the Content-Type header, and drops the mark", async () => {
    const bytes = concat(Uint8Array.of(0xef, 0xbb, 0xbf), utf8("<p>Un café crème</p>"));
    expect(await decodedAs(bytes, "text/html; charset=iso-8859-1")).toEqual({ html: "<p>Un café crème</p>", charset: "utf-8", warnings: [] });
  });

  it("lets a UTF-16 byte-order mark, either order, win over the header and the <meta>, and drops the mark", async () => {
    const page = '<meta charset="windows-1251"><p>Un café crème</p>';
    const le = concat(Uint8Array.of(0xff, 0xfe), utf16(page, "le"));
    const be = concat(Uint8Array.of(0xfe, 0xff), utf16(page, "be"));
    expect(await decodedAs(le, "text/html; charset=iso-8859-1")).toEqual({ html: page, charset: "utf-16le", warnings: [] });
    expect(await decodedAs(be, "text/html; charset=iso-8859-1")).toEqual({ html: page, charset: "utf-16be", warnings: [] });
  });

  it("lets the Content-Type header win over the page's <meta>", async () => {
    const bytes = concat(ascii('<meta charset="Shift_JIS"><p>'), cp1251("Да"), ascii("</p>"));
    expect(await decodedAs(bytes, "text/html; charset=windows-1251")).toMatchObject({ html: '<meta charset="Shift_JIS"><p>Да</p>', charset: "windows-1251" });
  });

  it("drops a UTF-8 mark from text that arrived already decoded, and calls it UTF-8", async () => {
    const http = httpAnswering(async () => ({ status: 200, headers: { "content-type": "text/html; charset=iso-8859-1" }, text: "\uFEFF<p>Un café crème</p>" }));
    const fetched = await fetchPage("https://x.example/a", http);
    expect(fetched).toMatchObject({ kind: "html", decoded: { html: "<p>Un café crème</p>", charset: "utf-8", warnings: [] } });
  });
});

describe("fetchAndReadPage: an address that now leads elsewhere", () => {
  const article = "https://news.example.com/2024/05/crdts-in-practice";
  const words = `<main><p>${"Enough words of a page to count as one of its own here. ".repeat(6)}</p></main>`;
  /** Answers `redirects[path]` with a 302 to it, anything else with the page. */
  const redirecting = (redirects: Record<string, string>) =>
    httpAnswering(async (req): Promise<HttpResponse> => {
      const to = redirects[new URL(req.url).pathname];
      return to ? { status: 302, headers: { location: to }, text: "" } : { status: 200, headers: { "content-type": "text/html" }, text: `<html><body>${words}</body></html>` };
    });

  it("keeps no sign-in page as the page's text: a login path, or a host that signs people in", async () => {
    for (const to of ["/login?next=/2024/05/crdts-in-practice", "/users/sign_in", "https://accounts.example.com/ServiceLogin?continue=x"]) {
      const outcome = await fetchAndReadPage(article, redirecting({ "/2024/05/crdts-in-practice": to }), echoReader);
      expect(outcome, to).toMatchObject({ kind: "unusable", problem: { kind: "redirected", to: "sign_in_page" } });
      if (outcome.kind === "unusable") expect(outcome.message).toMatch(/^The address now leads to a sign-in page \(https:\/\/[^?]+\), not to the page itself\.$/);
    }
  });

  it("keeps no front page as the page's text when the page is gone", async () => {
    const outcome = await fetchAndReadPage(article, redirecting({ "/2024/05/crdts-in-practice": "https://www.news.example.com/" }), echoReader);
    expect(outcome).toMatchObject({ kind: "unusable", problem: { kind: "redirected", to: "front_page" } });
    if (outcome.kind === "unusable") expect(outcome.message).toContain("the site's front page (https://www.news.example.com/)");
    for (const to of ["/index.html", "/home", "https://news.example.com/default.aspx"]) {
      expect(await fetchAndReadPage(article, redirecting({ "/2024/05/crdts-in-practice": to }), echoReader), to).toMatchObject({ kind: "unusable", problem: { kind: "redirected", to: "front_page" } });
    }
  });

  it("keeps no \"not found\" page as the page's text, and says so", async () => {
    for (const to of ["/404", "/404.html", "/errors/page-not-found", "https://news.example.com/not-found?from=x"]) {
      const outcome = await fetchAndReadPage(article, redirecting({ "/2024/05/crdts-in-practice": to }), echoReader);
      expect(outcome, to).toMatchObject({ kind: "unusable", problem: { kind: "redirected", to: "not_found_page" } });
      if (outcome.kind === "unusable") expect(outcome.message).toMatch(/^The address now leads to a "not found" page \(https:\/\/news\.example\.com\/[^?]+\); the page itself seems to be gone\.$/);
    }
  });

  it("says so when the text came from another site than the address named", async () => {
    const moved = await fetchAndReadPage(article, redirecting({ "/2024/05/crdts-in-practice": "https://crdts.example.org/in-practice?ref=x" }), echoReader);
    expect(moved).toMatchObject({ kind: "extracted", warnings: ["The address led to another site (https://crdts.example.org/in-practice); the text is that page's."] });
    const www = await fetchAndReadPage(article, redirecting({ "/2024/05/crdts-in-practice": "https://www.news.example.com/2024/05/crdts-in-practice/" }), echoReader);
    expect(www).toMatchObject({ kind: "extracted", warnings: [] });
  });

  it("still reads a page that moved: another path, https, www., a slash, or a new site", async () => {
    const moves = ["/2024/crdts-in-practice", "https://www.news.example.com/2024/05/crdts-in-practice/", "https://crdts.example.org/in-practice", "/auth-explained"];
    for (const to of moves) {
      const outcome = await fetchAndReadPage(article, redirecting({ "/2024/05/crdts-in-practice": to }), echoReader);
      expect(outcome.kind, to).toBe("extracted");
    }
    const home = await fetchAndReadPage("https://news.example.com/", redirecting({}), echoReader);
    expect(home.kind).toBe("extracted");
  });

  it("reads a page about signing in that was asked for as it is", async () => {
    const outcome = await fetchAndReadPage("https://docs.example.com/guide/login", redirecting({ "/guide/login": "/guide/login/" }), echoReader);
    expect(outcome.kind).toBe("extracted");
  });
});

describe("fetchPage: a body that is no page, whatever its content type says", () => {
  const PNG = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52);
  const JPEG = Uint8Array.of(0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46);
  /** Bytes that look like nothing in particular, as a compressed or encrypted file does. */
  const noise = Uint8Array.from({ length: 4000 }, (_, i) => ((i * 2654435761) >>> 13) & 0xff);
  /** Turndown and Defuddle made "words" of such bytes: this reader keeps whatever it is handed. */
  const anyText: ReadPage = async (html) => reading(html, 500);
  const served = (bytes: Uint8Array, contentType: string) => httpAnswering(async () => withBytes(concat(bytes, noise), contentType));

  it("is not read as HTML or text when it is an image, an archive or other binary data", async () => {
    const cases: Array<[Uint8Array, string, string]> = [
      [PNG, "text/html", "an image (PNG)"],
      [JPEG, "text/html; charset=utf-8", "an image (JPEG)"],
      [ascii("GIF89a"), "", "an image (GIF)"],
      [Uint8Array.of(0x50, 0x4b, 0x03, 0x04), "text/plain", "a ZIP archive"],
      [new Uint8Array(0), "text/html", "binary data"],
    ];
    for (const [start, type, what] of cases) {
      const outcome = await fetchAndReadPage("https://x.example/a", served(start, type), anyText);
      expect(outcome, what).toEqual({ kind: "unusable", problem: { kind: "not_html" }, message: `The page is ${what}, not HTML.` });
    }
  });

  it("is caught when the adapter handed over text it already decoded, too", async () => {
    const http = httpAnswering(async () => ({ status: 200, headers: { "content-type": "text/html" }, text: new TextDecoder().decode(concat(PNG, noise)) }));
    expect(await fetchAndReadPage("https://x.example/a", http, anyText)).toMatchObject({ kind: "unusable", problem: { kind: "not_html" } });
  });

  it("leaves a page in UTF-16 without a mark, and one with a form feed or an escape, to the reader", async () => {
    const page = '<?xml version="1.0" encoding="utf-16"?><html><body><p>Заметки</p></body></html>';
    const le = Uint8Array.from([...page].flatMap((c) => [c.charCodeAt(0) & 0xff, c.charCodeAt(0) >> 8]));
    expect(await fetchAndReadPage("https://x.example/a", httpAnswering(async () => withBytes(le, "text/html; charset=utf-16le")), echoReader)).toMatchObject({ kind: "extracted", charset: "utf-16le" });
    expect(await fetchAndReadPage("https://x.example/a", httpAnswering(async () => withBytes(le, "text/html")), echoReader)).toMatchObject({ kind: "extracted", charset: "utf-16le" });
    const odd = ascii("<html><body>\f<p>caf\x1b$B</p></body></html>");
    expect(await fetchAndReadPage("https://x.example/a", httpAnswering(async () => withBytes(odd, "text/html")), echoReader)).toMatchObject({ kind: "extracted" });
  });

  it("says what the page is, and leaves what the note keeps to the note", async () => {
    for (const hasExcerpt of [true, false]) {
      const row = webRow("brave", "https://x.example/a", "A picture", hasExcerpt ? "What the provider said." : null);
      const outcome = await fetchAndReadPage(row.url, served(PNG, "text/html"), anyText);
      if (outcome.kind !== "unusable") throw new Error(`expected unusable, got ${outcome.kind}`);
      const { note, summary } = promotedNote({ row, trace: traceWith("q", [row]), tracePath: null, outcome, retrievedAt: FIXED_NOW });
      const said = [...note.notes, summary].join(" ");
      expect(said, String(hasExcerpt)).toContain("The page is an image (PNG), not HTML.");
      expect(said, String(hasExcerpt)).toContain(hasExcerpt ? "Only the provider's excerpt above was kept." : "Only the link was kept.");
      if (!hasExcerpt) expect(said).not.toMatch(/excerpt was kept/);
    }
  });
});
