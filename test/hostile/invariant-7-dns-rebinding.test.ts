// DESIGN invariant 7 against DNS rebinding: a name that answers a public address to the fetch
// guard's check and 127.0.0.1 to the next lookup must never reach a server on this machine. The
// attacker is a DNS server on 127.0.0.1 (fake-dns-server.ts) that the CLI's resolver is pointed
// at; the target is an HTTP server on 127.0.0.1 that counts what reaches it. The page connection
// uses the address the guard checked (pinned), so the second, loopback answer is never asked for.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { dnsServerLookup, pinnedDns } from "../../src/node/pinned-dns";
import { createFetchHttp } from "../../src/cli/fetch-http";
import { guardedGet } from "../../src/promote/fetch-guard";
import { HttpFailure } from "../../src/ports";
import { fakeDnsServer, type FakeDnsServer } from "./fake-dns-server";

/** A public address the sandbox cannot reach: connecting to it fails or times out, and reaches nothing here. */
const PUBLIC = "93.184.216.34";
const NAME = "rebind.example.org";

let dns: FakeDnsServer;
let target: Server;
let port: number;
let reached: string[];

beforeEach(async () => {
  reached = [];
  target = createServer((req, res) => {
    reached.push(req.url ?? "");
    if (req.url === "/hop") return void res.writeHead(302, { location: `http://${NAME}:${port}/secret` }).end();
    res.writeHead(200, { "content-type": "text/html" }).end("<p>the admin panel of this machine</p>");
  });
  await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
  port = (target.address() as AddressInfo).port;
});

afterEach(async () => {
  await dns?.close();
  await new Promise((resolve) => target.close(resolve));
});

/** The CLI's page path over the fake DNS: the guard and the connection share one pinned resolver. */
async function pagePath(answers: Record<string, string[]>) {
  dns = await fakeDnsServer(answers);
  const pinned = pinnedDns(dnsServerLookup([dns.server]));
  return { pinned, http: createFetchHttp({ pageDns: pinned }) };
}

const fetchPage = (url: string, http: ReturnType<typeof createFetchHttp>, guard: Parameters<typeof guardedGet>[2]) =>
  guardedGet({ url, accept: "text/html", timeoutMs: 1500, maxBytes: 100_000 }, http, guard).then(
    (outcome) => outcome,
    (error: unknown) => error,
  );

describe("DNS rebinding: public to the check, loopback to the connection", () => {
  it("the page connection uses the checked address and never looks the name up again", async () => {
    const { pinned, http } = await pagePath({ [NAME]: [PUBLIC, "127.0.0.1"] });
    const outcome = await fetchPage(`http://${NAME}:${port}/secret`, http, { resolve: pinned.resolve });
    expect(outcome).toBeInstanceOf(HttpFailure);
    expect(reached).toEqual([]);
    expect(dns.queries).toEqual([NAME]);
  });

  it("a redirect to such a name is checked and pinned at its hop too", async () => {
    const { pinned, http } = await pagePath({ [NAME]: [PUBLIC, "127.0.0.1"] });
    const origin = `http://127.0.0.1:${port}`;
    const outcome = await fetchPage(`${origin}/hop`, http, { resolve: pinned.resolve, allowedOrigins: [origin] });
    expect(outcome).toBeInstanceOf(HttpFailure);
    expect(reached).toEqual(["/hop"]);
    expect(dns.queries).toEqual([NAME]);
  });

  it("a page connection to a name nobody checked resolves it and refuses a loopback answer", async () => {
    const { http } = await pagePath({ [NAME]: ["127.0.0.1"] });
    const outcome = await http.request({ method: "GET", url: `http://${NAME}:${port}/secret`, redirect: "manual", timeoutMs: 1500 }).catch((e: unknown) => e);
    expect(outcome).toBeInstanceOf(HttpFailure);
    expect((outcome as HttpFailure).message).toContain("127.0.0.1, which is not a public address");
    expect(reached).toEqual([]);
  });

  it("two pages of one name read at once: the second lookup's loopback answer never reaches the first page's connection", async () => {
    // Both answers land in one turn of the event loop, as two answers to one attacker's DNS server can:
    // the first public (checked, pinned), the second loopback (refused) before the first page connects.
    dns = await fakeDnsServer({}); // not asked: the lookups below are scripted, but afterEach closes one
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    const answers = [[PUBLIC], ["127.0.0.1"]];
    const pinned = pinnedDns(async () => {
      const addresses = answers.shift() ?? [];
      await answered;
      return addresses;
    });
    const http = createFetchHttp({ pageDns: pinned });
    const both = Promise.all(["/first", "/second"].map((p) => fetchPage(`http://${NAME}:${port}${p}`, http, { resolve: pinned.resolve })));
    answer();
    const [first, second] = await both;
    expect(second).toMatchObject({ kind: "refused", refusal: { kind: "blocked_address", how: "resolved", range: "loopback" } });
    // The first page goes to the public address it was checked at (unreachable here), never to this machine.
    expect(first).toBeInstanceOf(HttpFailure);
    expect(reached).toEqual([]);
  });

  it("the guard refuses a name whose first answer is already loopback, before any connection", async () => {
    const { pinned, http } = await pagePath({ [NAME]: ["127.0.0.1"] });
    const outcome = await fetchPage(`http://${NAME}:${port}/secret`, http, { resolve: pinned.resolve });
    expect(outcome).toMatchObject({ kind: "refused", refusal: { kind: "blocked_address", how: "resolved", range: "loopback" } });
    expect(reached).toEqual([]);
  });
});
