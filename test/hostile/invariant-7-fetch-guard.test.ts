// DESIGN invariant 7: outbound fetches of pages (reading pages, promotion) go only to public
// http(s) addresses — never loopback, private, link-local or unique-local ones, re-checked at
// every redirect. The guard is promote/fetch-guard.ts; these are the attacks on it: outside rows
// (from a hostile provider body) at 127.0.0.1, [::1], 169.254.169.254, in other spellings, behind
// credentials, behind a redirect, and behind a name that resolves to an internal address. A
// hostile server on 127.0.0.1 counts what reached it: nothing may.
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFetchHttp } from "../../src/cli/fetch-http";
import { nodePageReader } from "../../src/cli/dom-parser";
import { defaultSettings } from "../../src/settings";
import { promoteOutsideRow } from "../../src/promote/promote";
import { outsideRow } from "../support/pack-fixtures";
import { MemoryNoteStore } from "../support/memory-note-store";
import { traceWith } from "../support/promote-fixtures";
import { fakeClock } from "../support/fake-clock";
import { readPromoteResult, readResearchResult } from "../support/cli-json";
import { braveBody, cli, config, hostileServer, sandbox, WEB_QUESTION, type HostileServer, type Sandbox } from "./hostile-kit";

let box: Sandbox;
let server: HostileServer;

beforeEach(async () => {
  box = sandbox();
  server = await hostileServer(() => ({ body: "<html><title>internal admin</title><body>root password: hunter2</body></html>", headers: { "content-type": "text/html" } }));
});

afterEach(async () => {
  await server.close();
  box.cleanup();
});

const sources = () => (existsSync(path.join(box.vault, "Research/Sources")) ? readdirSync(path.join(box.vault, "Research/Sources")) : []);

/**
 * A research run whose only outside row is at `url`, found by a hostile Brave on 127.0.0.1 (so the
 * run's own page reading goes to the real network, through the guard); returns the trace note's
 * path, the row's key and the --json output.
 */
async function rowAt(url: string, extra: string[] = []): Promise<{ tracePath: string; key: string; json: { pack: { external_evidence: { url: string; content_sections: { role: string }[] }[] } } }> {
  const brave = await hostileServer(() => ({ body: braveBody([{ url, title: "Automerge latest release", snippets: ["The latest Automerge release adds compaction and faster loading."] }]) }));
  try {
    const settings = config(box, { external: { enabled: true, providers: ["brave"], brave: { baseUrl: brave.url } } });
    const run = await cli(box, ["research", WEB_QUESTION, "--trace", "--external-search", "always", "--config", settings, ...extra, "--json"], { BRAVE_SEARCH_API_KEY: "BSA-guard-test" });
    expect(run.code).toBe(0);
    const json = readResearchResult(run.out);
    expect(json.pack.external_evidence).toHaveLength(1);
    return { tracePath: json.trace_path!, key: json.pack.external_evidence[0].source_key, json };
  } finally {
    await brave.close();
  }
}

async function promote(tracePath: string, key: string, extra: string[] = []) {
  return cli(box, ["promote", "--trace", tracePath, "--source-key", key, ...extra, "--json"]);
}

describe("promotion of an outside row at an internal address", () => {
  const port = () => new URL(server.url).port;
  const internal: [string, () => string][] = [
    ["127.0.0.1", () => `http://127.0.0.1:${port()}/admin`],
    ["[::1]", () => `http://[::1]:${port()}/admin`],
    ["169.254.169.254 (cloud metadata)", () => "http://169.254.169.254/latest/meta-data/iam/security-credentials/"],
    ["127.0.0.1 spelled as one number", () => `http://2130706433:${port()}/admin`],
    ["127.0.0.1 spelled in hex", () => `http://0x7f.0.0.1:${port()}/admin`],
    ["an IPv4-mapped IPv6 loopback", () => `http://[::ffff:127.0.0.1]:${port()}/admin`],
    ["a private 10.x address", () => "http://10.0.0.5/admin"],
    ["a unique-local IPv6 address", () => "http://[fd00::1]/admin"],
    ["localhost", () => `http://localhost:${port()}/admin`],
    ["credentials before a public-looking name", () => `http://public.example.com@127.0.0.1:${port()}/admin`],
  ];

  for (const [what, url] of internal) {
    it(`${what}: refused, nothing fetched, nothing saved`, async () => {
      const { tracePath, key } = await rowAt(url());
      const result = await promote(tracePath, key);
      expect(result.code).toBe(1);
      expect(readPromoteResult(result.out)).toMatchObject({ status: "failed", error: { kind: "fetch_refused" } });
      expect(server.requests).toEqual([]);
      expect(sources()).toEqual([]);
    });
  }

  it("a public page that redirects to 127.0.0.1: refused at the redirect, nothing saved", async () => {
    const { tracePath, key } = await rowAt("https://public.example.org/article");
    box.write("pages/redirect.json", JSON.stringify({ method: "GET", url: "https://public.example.org/article", status: 302, headers: { location: `http://127.0.0.1:${new URL(server.url).port}/admin` }, body: "" }));
    const result = await promote(tracePath, key, ["--replay", path.join(box.dir, "pages")]);
    expect(result.code).toBe(1);
    expect(readPromoteResult(result.out)).toMatchObject({ status: "failed", error: { kind: "fetch_refused" } });
    expect(readPromoteResult(result.out).message).toMatch(/redirected/);
    expect(server.requests).toEqual([]);
    expect(sources()).toEqual([]);
  });

  it("a redirect chain that ends at the metadata address: refused at that hop", async () => {
    const { tracePath, key } = await rowAt("https://public.example.org/a");
    box.write("pages/a.json", JSON.stringify([
      { method: "GET", url: "https://public.example.org/a", status: 301, headers: { location: "https://public.example.org/b" }, body: "" },
      { method: "GET", url: "https://public.example.org/b", status: 307, headers: { location: "http://169.254.169.254/latest/meta-data/" }, body: "" },
    ]));
    const result = await promote(tracePath, key, ["--replay", path.join(box.dir, "pages")]);
    expect(readPromoteResult(result.out)).toMatchObject({ status: "failed", error: { kind: "fetch_refused" } });
    expect(sources()).toEqual([]);
  });
});

describe("a name that resolves to an internal address", () => {
  const resolving = (answers: Record<string, string[]>) => async (host: string) => answers[host] ?? ["93.184.215.14"];

  for (const [host, address] of [["intranet.example.com", "10.1.2.3"], ["metadata.example.net", "169.254.169.254"], ["rebind.example.org", "127.0.0.1"], ["six.example.org", "::1"]] as const) {
    it(`${host} → ${address}: refused before anything is fetched`, async () => {
      const seen: string[] = [];
      const http = createFetchHttp({ fetch: (async (url: string) => void seen.push(url)) as unknown as typeof fetch });
      const row = outsideRow("brave", `https://${host}/page`, "Internal", "snippet");
      const store = new MemoryNoteStore({});
      const result = await promoteOutsideRow({
        row,
        trace: traceWith("q", [row]),
        tracePath: null,
        store,
        http,
        clock: fakeClock(),
        settings: defaultSettings(),
        readPage: nodePageReader,
        fetchGuard: { resolve: resolving({ [host]: [address] }) },
      });
      expect(result).toMatchObject({ status: "failed", error: { kind: "fetch_refused" } });
      expect(seen).toEqual([]);
      expect(await store.list()).toEqual([]);
    });
  }
});

describe("page reading during research", () => {
  it("does not read an outside row at 127.0.0.1 over the network: the row keeps its snippet and the server sees nothing", async () => {
    const { json } = await rowAt(`http://127.0.0.1:${new URL(server.url).port}/admin`, ["--read-pages", "1"]);
    expect(server.requests).toEqual([]);
    expect(JSON.stringify(json)).not.toContain("hunter2");
    expect(json.pack.external_evidence[0].content_sections.map((s) => s.role)).toEqual(["external_snippet"]);
  });
});
