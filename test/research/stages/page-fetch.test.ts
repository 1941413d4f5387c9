import { describe, expect, it } from "vitest";
import { nodePageReader } from "../../../src/cli/dom-parser";
import { HttpFailure, type Http, type HttpRequest, type HttpResponse } from "../../../src/ports";
import { fetchAndReadPage } from "../../../src/promote/page-extract";
import { PageCache } from "../../../src/research/page-cache";
import { PAGE_READ_LIMITS, readPageText, type PageFetchDeps } from "../../../src/research/stages/page-fetch";
import { fakeClock, type FakeClock } from "../../support/fake-clock";
import { anyString, stringContaining } from "../../support/typed-matchers";

const ARTICLE = `<!doctype html><html><head><title>Guide</title><meta name="author" content="Ana"></head><body><nav>Home · Docs</nav><article><h1>Guide</h1><p>${"The relay keeps encrypted blobs for thirty days and then deletes them for good. ".repeat(4)}</p></article></body></html>`;

function answering(table: Record<string, Partial<HttpResponse> | (() => Promise<HttpResponse>)>): Http & { requests: HttpRequest[] } {
  const requests: HttpRequest[] = [];
  return {
    requests,
    async request(req) {
      requests.push(req);
      const answer = table[req.url];
      if (!answer) throw new HttpFailure("replay_miss", `no recording for ${req.url}`);
      return typeof answer === "function" ? answer() : { status: 200, headers: { "content-type": "text/html" }, text: "", ...answer };
    },
  };
}

function deps(http: Http, clock: FakeClock = fakeClock(), extra: Partial<PageFetchDeps> = {}): PageFetchDeps {
  return { http, clock, readPage: nodePageReader, cache: new PageCache(clock), ...extra };
}

describe("readPageText", () => {
  it("extracts an HTML page with the same Defuddle reader promotion uses, and caches it", async () => {
    const http = answering({ "https://docs.example.org/guide": { text: ARTICLE } });
    const d = deps(http);
    const first = await readPageText("https://docs.example.org/guide", d);
    expect(first).toMatchObject({ kind: "read", cached: false, page: { kind: "html", author: "Ana", title: "Guide" } });
    if (first.kind === "read") {
      expect(first.page.text).toContain("The relay keeps encrypted blobs");
      expect(first.page.text).not.toContain("Home · Docs");
    }
    expect(await readPageText("https://docs.example.org/guide?utm_source=x", d)).toMatchObject({ kind: "read", cached: true });
    expect(http.requests).toHaveLength(1);
  });

  it("gives the very text promotion extracts from the same page", async () => {
    const http = answering({ "https://docs.example.org/guide": { text: ARTICLE } });
    const read = await readPageText("https://docs.example.org/guide", deps(http));
    const promoted = await fetchAndReadPage("https://docs.example.org/guide", http, nodePageReader);
    if (read.kind !== "read" || promoted.kind !== "extracted") throw new Error("both should have read the page");
    expect(read.page.text).toBe(promoted.reading.markdown);
    expect(read.page.author).toBe(promoted.reading.author);
  });

  it("reads no sign-in or front page an old result's address now leads to, and says where it led", async () => {
    const LOGIN = `<!doctype html><html><head><title>Sign in</title></head><body><main><h1>Sign in</h1><p>${"Enter your email address and password to continue reading this article. ".repeat(4)}</p></main></body></html>`;
    const http = answering({
      "https://docs.example.org/guide": { status: 302, headers: { location: "/login?next=/guide" } },
      "https://docs.example.org/login?next=/guide": { text: LOGIN },
      "https://docs.example.org/old/page": { status: 301, headers: { location: "https://docs.example.org/" } },
      "https://docs.example.org/": { text: ARTICLE },
    });
    const signIn = await readPageText("https://docs.example.org/guide", deps(http));
    expect(signIn).toMatchObject({ kind: "skipped", reason: { kind: "unusable", problem: { kind: "redirected", to: "sign_in_page" } } });
    expect(JSON.stringify(signIn)).toContain("sign-in page (https://docs.example.org/login)");
    expect(JSON.stringify(signIn)).not.toContain("Enter your email");
    const gone = await readPageText("https://docs.example.org/old/page", deps(http));
    expect(gone).toMatchObject({ kind: "skipped", reason: { kind: "unusable", problem: { kind: "redirected", to: "front_page" } } });
    expect(JSON.stringify(gone)).toContain("the site's front page");
  });

  it("reads a page that moved to another site, and warns whose text it is", async () => {
    const http = answering({
      "https://doi.example.org/10.1000/182": { status: 302, headers: { location: "https://docs.example.org/guide" } },
      "https://docs.example.org/guide": { text: ARTICLE },
    });
    const read = await readPageText("https://doi.example.org/10.1000/182", deps(http));
    expect(read).toMatchObject({ kind: "read", page: { url: "https://docs.example.org/guide", warnings: ["The address led to another site (https://docs.example.org/guide); the text is that page's."] } });
  });

  it("asks for the page with a size cap before anything is parsed", async () => {
    const http = answering({ "https://docs.example.org/guide": { text: ARTICLE } });
    await readPageText("https://docs.example.org/guide", deps(http));
    expect(http.requests[0]).toMatchObject({ maxBytes: PAGE_READ_LIMITS.maxBytes, redirect: "manual", headers: { accept: anyString() } });
    expect(Object.keys(http.requests[0].headers ?? {})).toEqual(["accept"]);
  });

  it("reads plain text and markdown as they are, by their kind", async () => {
    const http = answering({
      "https://x.example.org/notes.txt": { headers: { "content-type": "text/plain; charset=utf-8" }, text: "Line one.\n\nLine two." },
      "https://x.example.org/readme.md": { headers: { "content-type": "text/markdown" }, text: "# Title\n\nBody." },
    });
    expect(await readPageText("https://x.example.org/notes.txt", deps(http))).toMatchObject({ kind: "read", page: { kind: "text", text: "Line one.\n\nLine two." } });
    expect(await readPageText("https://x.example.org/readme.md", deps(http))).toMatchObject({ kind: "read", page: { kind: "text", text: "# Title\n\nBody." } });
  });

  it("skips a PDF, JSON, an error page, a huge page and an app shell, each with its reason", async () => {
    const http = answering({
      "https://x.example.org/a.pdf": { headers: { "content-type": "application/pdf" }, text: "%PDF-1.7" },
      "https://x.example.org/api": { headers: { "content-type": "application/json" }, text: "{}" },
      "https://x.example.org/gone": { status: 404, text: "<p>Not found</p>" },
      "https://x.example.org/huge": { headers: { "content-type": "text/html", "content-length": String(50 * 1024 * 1024) }, text: "<p>x</p>" },
      "https://x.example.org/app": { text: '<html><body><div id="root"></div></body></html>' },
    });
    const reasons = async (url: string) => {
      const read = await readPageText(url, deps(http));
      return read.kind === "skipped" ? { reason: read.reason, at: read.at, message: read.message } : read;
    };
    expect(await reasons("https://x.example.org/a.pdf")).toMatchObject({ reason: { kind: "pdf" }, at: "fetch" });
    expect(await reasons("https://x.example.org/api")).toMatchObject({ reason: { kind: "unusable", problem: { kind: "not_html" } }, message: stringContaining("application/json") });
    expect(await reasons("https://x.example.org/gone")).toMatchObject({ reason: { kind: "unusable", problem: { kind: "http_error", status: 404 } } });
    expect(await reasons("https://x.example.org/huge")).toMatchObject({ reason: { kind: "unusable", problem: { kind: "too_large" } }, message: stringContaining("2 MB") });
    expect(await reasons("https://x.example.org/app")).toMatchObject({ reason: { kind: "unusable", problem: { kind: "no_readable_text" } }, at: "extract" });
    expect(await reasons("https://x.example.org/not-recorded")).toMatchObject({ reason: { kind: "unusable", problem: { kind: "replay_miss" } }, message: "The replay recordings hold no copy of this page." });
  });

  it("refuses, through the fetch guard, a page on this machine without asking it anything", async () => {
    const http = answering({});
    const read = await readPageText("http://127.0.0.1:8080/admin", deps(http));
    expect(read).toMatchObject({ kind: "skipped", reason: { kind: "refused", refusal: { kind: "blocked_address", range: "loopback" } } });
    expect(http.requests).toEqual([]);
  });

  it("gives up on a page that takes longer than its time limit, and stops its transfer", async () => {
    const clock = fakeClock();
    let aborted = false;
    const http: Http = {
      request: (req) =>
        new Promise((_, reject) => {
          req.signal?.addEventListener("abort", () => {
            aborted = true;
            reject(new HttpFailure("aborted", "cancelled"));
          });
          queueMicrotask(() => clock.advance(PAGE_READ_LIMITS.pageMs + 1));
        }),
    };
    const read = await readPageText("https://slow.example.org/", deps(http, clock));
    expect(read).toMatchObject({ kind: "skipped", reason: { kind: "time_limit", ms: PAGE_READ_LIMITS.pageMs } });
    expect(aborted).toBe(true);
  });

  it("says cancelled when the run is cancelled while the page loads", async () => {
    const controller = new AbortController();
    const http: Http = { request: () => new Promise(() => queueMicrotask(() => controller.abort())) };
    expect(await readPageText("https://slow.example.org/", deps(http, fakeClock(), { signal: controller.signal }))).toMatchObject({ kind: "skipped", reason: { kind: "cancelled" } });
  });
});
