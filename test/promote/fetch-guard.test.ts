import { describe, expect, it } from "vitest";
import { checkFetchTarget, guardedGet, MAX_REDIRECTS, type FetchGuardOptions, type FetchRefusal } from "../../src/promote/fetch-guard";
import { HttpFailure, type HttpRequest, type HttpResponse } from "../../src/ports";
import { fakeClock } from "../support/fake-clock";

async function refusalOf(url: string, guard: FetchGuardOptions = {}): Promise<FetchRefusal | null> {
  const checked = await checkFetchTarget(url, guard);
  return checked.ok ? null : checked.refusal;
}

/** An Http that answers from a table by URL and keeps every request it was asked to make. */
function tableHttp(answers: Record<string, Partial<HttpResponse>>) {
  const requests: HttpRequest[] = [];
  return {
    requests,
    async request(req: HttpRequest): Promise<HttpResponse> {
      requests.push(req);
      const answer = answers[req.url];
      if (!answer) throw new Error(`unexpected request to ${req.url}`);
      return { status: 200, headers: {}, text: "", ...answer };
    },
  };
}

const GET = { accept: "text/html", timeoutMs: 1000, maxBytes: 1000 };

describe("checkFetchTarget: addresses on this device or a local network are refused", () => {
  const cases: [string, string, string][] = [
    ["http://127.0.0.1/", "loopback", "127.0.0.1"],
    ["http://127.1/", "loopback", "127.0.0.1"],
    ["http://0x7f.1/", "loopback", "127.0.0.1"],
    ["http://2130706433/", "loopback", "127.0.0.1"],
    ["http://017700000001/", "loopback", "127.0.0.1"],
    ["http://0177.0.0.01/", "loopback", "127.0.0.1"],
    ["http://127.255.255.254:8080/admin", "loopback", "127.255.255.254"],
    ["http://[::1]/", "loopback", "0:0:0:0:0:0:0:1"],
    ["http://[::ffff:127.0.0.1]/", "loopback", "0:0:0:0:0:ffff:7f00:1"],
    ["http://[0:0:0:0:0:ffff:7f00:1]/", "loopback", "0:0:0:0:0:ffff:7f00:1"],
    ["http://[::ffff:0:10.1.2.3]/", "private", "0:0:0:0:ffff:0:a01:203"],
    ["http://[::127.0.0.1]/", "loopback", "0:0:0:0:0:0:7f00:1"],
    ["http://[64:ff9b::10.0.0.1]/", "private", "64:ff9b:0:0:0:0:a00:1"],
    ["http://[2002:7f00:1::]/", "loopback", "2002:7f00:1:0:0:0:0:0"],
    ["http://0.0.0.0/", "unspecified", "0.0.0.0"],
    ["http://0/", "unspecified", "0.0.0.0"],
    ["http://[::]/", "unspecified", "0:0:0:0:0:0:0:0"],
    ["http://10.0.0.1/", "private", "10.0.0.1"],
    ["http://172.16.5.4/", "private", "172.16.5.4"],
    ["http://172.31.255.255/", "private", "172.31.255.255"],
    ["http://192.168.1.1/", "private", "192.168.1.1"],
    ["http://0xc0.0xa8.1.1/", "private", "192.168.1.1"],
    ["http://3232235777/", "private", "192.168.1.1"],
    ["http://100.64.0.1/", "shared", "100.64.0.1"],
    ["http://169.254.169.254/latest/meta-data/", "link_local", "169.254.169.254"],
    ["http://[fe80::1]/", "link_local", "fe80:0:0:0:0:0:0:1"],
    ["http://[fd12:3456::1]/", "unique_local", "fd12:3456:0:0:0:0:0:1"],
    ["http://[fc00::1]/", "unique_local", "fc00:0:0:0:0:0:0:1"],
    ["http://224.0.0.251/", "multicast", "224.0.0.251"],
    ["http://[ff02::1]/", "multicast", "ff02:0:0:0:0:0:0:1"],
    ["http://255.255.255.255/", "broadcast", "255.255.255.255"],
    ["http://240.0.0.1/", "reserved", "240.0.0.1"],
    ["http://localhost/", "loopback", "localhost"],
    ["http://LOCALHOST./", "loopback", "localhost"],
    ["http://app.localhost:3000/", "loopback", "app.localhost"],
    ["http://printer.local/", "link_local", "printer.local"],
    ["http://router.home.arpa/", "private", "router.home.arpa"],
    ["http://build.corp.internal/", "private", "build.corp.internal"],
    ["http://intranet/", "private", "intranet"],
  ];
  for (const [url, range, address] of cases) {
    it(`${url} is ${range}`, async () => {
      expect(await refusalOf(url)).toMatchObject({ kind: "blocked_address", range, address });
    });
  }
});

describe("checkFetchTarget: schemes, credentials and broken addresses", () => {
  it("refuses every scheme but http and https", async () => {
    for (const url of ["file:///etc/passwd", "ftp://files.example.org/a", "javascript:alert(1)", "data:text/html,<p>x</p>", "gopher://example.org/"]) {
      expect(await refusalOf(url), url).toMatchObject({ kind: "scheme" });
    }
  });

  it("refuses an address that carries a user name or password", async () => {
    expect(await refusalOf("https://user:secret@example.org/")).toEqual({ kind: "credentials" });
    expect(await refusalOf("https://user@example.org/")).toEqual({ kind: "credentials" });
  });

  it("refuses what is not an address at all", async () => {
    expect(await refusalOf("not a url")).toMatchObject({ kind: "not_a_url" });
    expect(await refusalOf("http://[fe80::1%25eth0]/")).toMatchObject({ kind: "not_a_url" });
  });

  it("lets public addresses and names through", async () => {
    for (const url of ["https://example.org/a?b=c", "http://93.184.216.34/", "https://[2606:4700:4700::1111]/", "https://8.8.8.8/", "https://172.32.0.1/", "https://192.169.0.1/"]) {
      expect(await refusalOf(url), url).toBeNull();
    }
  });
});

describe("checkFetchTarget: names are looked up where the platform can (the CLI)", () => {
  const resolver = (table: Record<string, string[]>) => async (host: string) => table[host] ?? [];

  it("refuses a name that resolves to a private address, naming both", async () => {
    const refusal = await refusalOf("https://sneaky.example.com/", { resolve: resolver({ "sneaky.example.com": ["10.0.0.5"] }) });
    expect(refusal).toEqual({ kind: "blocked_address", host: "sneaky.example.com", address: "10.0.0.5", range: "private", how: "resolved" });
  });

  it("refuses a name when any one of its addresses is private, IPv6 included", async () => {
    const resolve = resolver({ "mixed.example.com": ["93.184.216.34", "::1"], "v6.example.com": ["2606:4700::1", "fd00::2"] });
    expect(await refusalOf("https://mixed.example.com/", { resolve })).toMatchObject({ range: "loopback", how: "resolved" });
    expect(await refusalOf("https://v6.example.com/", { resolve })).toMatchObject({ range: "unique_local", how: "resolved" });
  });

  it("lets a name through whose addresses are all public", async () => {
    expect(await refusalOf("https://fine.example.com/", { resolve: resolver({ "fine.example.com": ["93.184.216.34", "2606:4700::1"] }) })).toBeNull();
  });

  it("never looks up a literal address", async () => {
    const asked: string[] = [];
    await checkFetchTarget("https://93.184.216.34/", { resolve: async (h) => (asked.push(h), []) });
    expect(asked).toEqual([]);
  });
});

describe("checkFetchTarget: the test allow-list", () => {
  it("lets exactly the listed origin through, and nothing else on the device", async () => {
    const guard = { allowedOrigins: ["http://127.0.0.1:41234"] };
    expect(await refusalOf("http://127.0.0.1:41234/page", guard)).toBeNull();
    expect(await refusalOf("http://127.0.0.1:41235/page", guard)).toMatchObject({ range: "loopback" });
    expect(await refusalOf("http://localhost:41234/page", guard)).toMatchObject({ range: "loopback" });
  });

  it("is empty by default: the same origin is refused without it", async () => {
    expect(await refusalOf("http://127.0.0.1:41234/page")).toMatchObject({ range: "loopback" });
  });
});

describe("guardedGet", () => {
  it("sends one accept header, asks for redirects by hand, and nothing else", async () => {
    const http = tableHttp({ "https://example.org/a": { text: "<p>hi</p>" } });
    const got = await guardedGet({ url: "https://example.org/a", ...GET }, http);
    expect(got).toMatchObject({ kind: "answered", url: "https://example.org/a", redirects: 0 });
    expect(http.requests).toHaveLength(1);
    expect(http.requests[0].headers).toEqual({ accept: "text/html" });
    expect(http.requests[0].redirect).toBe("manual");
  });

  it("never asks a refused address anything", async () => {
    const http = tableHttp({});
    const got = await guardedGet({ url: "http://127.0.0.1/secret", ...GET }, http);
    expect(got).toMatchObject({ kind: "refused", hop: 0, refusal: { range: "loopback" } });
    if (got.kind === "refused") expect(got.message).toContain("127.0.0.1, a loopback address");
    expect(http.requests).toEqual([]);
  });

  it("follows a relative redirect, checking the new address", async () => {
    const http = tableHttp({
      "https://example.org/old": { status: 301, headers: { location: "/new" } },
      "https://example.org/new": { text: "<p>moved</p>" },
    });
    expect(await guardedGet({ url: "https://example.org/old", ...GET }, http)).toMatchObject({ kind: "answered", url: "https://example.org/new", redirects: 1 });
  });

  it("refuses a redirect to a private address at the hop, and does not follow it", async () => {
    for (const target of ["http://127.0.0.1:8080/admin", "http://[::ffff:10.0.0.1]/", "http://169.254.169.254/latest/meta-data/", "file:///etc/passwd"]) {
      const http = tableHttp({ "https://example.org/go": { status: 302, headers: { location: target } } });
      const got = await guardedGet({ url: "https://example.org/go", ...GET }, http);
      expect(got, target).toMatchObject({ kind: "refused", hop: 1 });
      expect(http.requests.map((r) => r.url)).toEqual(["https://example.org/go"]);
    }
  });

  it(`follows at most ${MAX_REDIRECTS} redirects`, async () => {
    const chain = (hops: number) => {
      const answers: Record<string, Partial<HttpResponse>> = {};
      for (let i = 0; i < hops; i++) answers[`https://example.org/${i}`] = { status: 307, headers: { location: `https://example.org/${i + 1}` } };
      answers[`https://example.org/${hops}`] = { text: "end" };
      return tableHttp(answers);
    };
    expect(await guardedGet({ url: "https://example.org/0", ...GET }, chain(MAX_REDIRECTS))).toMatchObject({ kind: "answered", redirects: MAX_REDIRECTS });
    const tooMany = chain(MAX_REDIRECTS + 1);
    // A site that keeps redirecting answered each time: a `redirect` failure (as requestUrl's loop is), not a refusal.
    const failure = await guardedGet({ url: "https://example.org/0", ...GET }, tooMany).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(HttpFailure);
    expect(failure).toMatchObject({ kind: "redirect", message: `example.org kept redirecting (more than ${MAX_REDIRECTS} times); the page was given up on.` });
    expect(tooMany.requests).toHaveLength(MAX_REDIRECTS + 1);
  });

  it("hands back a 3xx without a Location as the answer it is", async () => {
    const http = tableHttp({ "https://example.org/odd": { status: 302 } });
    expect(await guardedGet({ url: "https://example.org/odd", ...GET }, http)).toMatchObject({ kind: "answered", response: { status: 302 } });
  });

  it("checks names of redirect targets with the resolver too", async () => {
    const http = tableHttp({ "https://example.org/go": { status: 301, headers: { location: "https://rebind.example.net/" } } });
    const resolve = async (host: string) => (host === "rebind.example.net" ? ["192.168.0.10"] : ["93.184.216.34"]);
    expect(await guardedGet({ url: "https://example.org/go", ...GET }, http, { resolve })).toMatchObject({ kind: "refused", hop: 1, refusal: { how: "resolved", range: "private" } });
  });
});

describe("guardedGet: one time limit for the page, its redirects and its lookups", () => {
  /** A clock that moves only when told; its deadline timers never fire on their own. */
  function handClock() {
    let now = 0;
    return {
      advance: (ms: number) => void (now += ms),
      now: () => now,
      sleep: (_ms: number, signal?: AbortSignal) => new Promise<void>((_, reject) => signal?.addEventListener("abort", () => reject(new Error("cancelled")), { once: true })),
    };
  }

  it("gives each hop only what is left, and gives up once it is spent, before asking again", async () => {
    // Each hop answers its redirect after 15 s: under the old per-hop limit, six hops of 20 s each
    // held a promotion for two minutes.
    const clock = handClock();
    const answers = tableHttp(Object.fromEntries([0, 1, 2, 3].map((i) => [`https://slow.example.org/${i}`, { status: 302, headers: { location: `/${i + 1}` } }])));
    const http = {
      requests: answers.requests,
      request: async (req: HttpRequest) => {
        clock.advance(15_000);
        return answers.request(req);
      },
    };
    const error = await guardedGet({ url: "https://slow.example.org/0", accept: "text/html", timeoutMs: 20_000, maxBytes: 1000, clock }, http).catch((e: unknown) => e);
    expect(http.requests.map((r) => r.timeoutMs)).toEqual([20_000, 5_000]);
    expect(error).toBeInstanceOf(HttpFailure);
    expect(error).toMatchObject({ kind: "timeout", message: "The page did not arrive within 20 s: it redirected 2 times, the last to slow.example.org." });
  });

  it("gives a redirect's next hop what is left when the wall clock was set back an hour or forward a day meanwhile (it gave an hour more, or failed at once)", async () => {
    for (const step of [-3_600_000, 24 * 3_600_000]) {
      const clock = fakeClock();
      const answers = tableHttp({
        "https://example.org/first": { status: 302, headers: { location: "/second" } },
        "https://example.org/second": { status: 200, text: "page" },
      });
      const http = {
        requests: answers.requests,
        request: async (req: HttpRequest) => {
          clock.advance(5_000);
          clock.set(clock.now() + step);
          return answers.request(req);
        },
      };
      const answered = await guardedGet({ url: "https://example.org/first", accept: "text/html", timeoutMs: 20_000, maxBytes: 1000, clock }, http);
      expect(answered).toMatchObject({ kind: "answered", redirects: 1 });
      expect(http.requests.map((r) => r.timeoutMs)).toEqual([20_000, 15_000]);
    }
  });

  it("says a hop's own timeout in the page's limit, not in what the hop had left", async () => {
    const clock = handClock();
    const http = {
      request: async (req: HttpRequest) => {
        clock.advance(8_000);
        if (req.url.endsWith("/late")) throw new HttpFailure("timeout", `No answer within ${req.timeoutMs} ms.`);
        return { status: 301, headers: { location: "/late" }, text: "" };
      },
    };
    const error = await guardedGet({ url: "https://example.org/first", accept: "text/html", timeoutMs: 10_000, maxBytes: 1000, clock }, http).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: "timeout", message: "The page did not arrive within 10 s: it redirected 1 time, the last to example.org." });
  });

  it("does not wait past the limit for a name lookup that never answers", { timeout: 5000 }, async () => {
    const http = tableHttp({});
    const resolve = () => new Promise<string[]>(() => {});
    const error = await guardedGet({ url: "https://stalled-dns.example.org/", accept: "text/html", timeoutMs: 50, maxBytes: 1000 }, http, { resolve }).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: "timeout", message: "No answer from stalled-dns.example.org within 50 ms." });
    expect(http.requests).toEqual([]);
  });

  it("stops waiting for a lookup when the caller gives up", { timeout: 5000 }, async () => {
    const controller = new AbortController();
    const resolve = () => {
      controller.abort();
      return new Promise<string[]>(() => {});
    };
    const error = await guardedGet({ url: "https://stalled-dns.example.org/", accept: "text/html", timeoutMs: 60_000, maxBytes: 1000, signal: controller.signal }, tableHttp({}), { resolve }).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: "aborted" });
  });
});
