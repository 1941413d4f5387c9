import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { envSecrets } from "../../src/cli/env-secrets";
import { createFetchHttp } from "../../src/cli/fetch-http";
import { loadReplayDirectory, ReplayDirectoryError } from "../../src/cli/replay-dir";
import { websearchCommand, type WebsearchOptions } from "../../src/cli/websearch-command";
import { HttpFailure, type Http } from "../../src/ports";
import { defaultSettings } from "../../src/settings";
import { braveKey, jsonResponse, replayLogEntries, repoRoot, scriptedHttp } from "./helpers";
import { readWebsearch } from "../support/cli-json";

const demoDir = path.join(repoRoot, "fixtures/replay/brave-demo");

function capture(env: Record<string, string | undefined> = {}, http?: Http) {
  const io = { stdout: "", stderr: "", out: (s: string) => void (io.stdout += s), err: (s: string) => void (io.stderr += s), env, ...(http ? { http } : {}) };
  return io;
}

const options = (over: Partial<WebsearchOptions> = {}): WebsearchOptions => ({
  query: "What changed in the latest Automerge release?",
  providers: ["brave"],
  freshness: "any",
  count: 5,
  settings: defaultSettings(),
  json: false,
  ...over,
});

describe("websearch command over the brave-demo replay", () => {
  it("prints labelled outside-vault rows and says plainly that the answers are recorded samples", async () => {
    const io = capture();
    const code = await websearchCommand(options({ replayDir: demoDir }), io);
    expect(code).toBe(0);
    expect(io.stderr).toBe("");
    const lines = io.stdout.split("\n");
    expect(lines[0]).toBe(`Note: web results below are recorded sample responses replayed from ${demoDir}, not a live search.`);
    expect(io.stdout).toContain("Outside vault: 5 rows from Brave");
    expect(io.stdout).toContain("1. Releases · automerge/automerge\n   https://github.com/automerge/automerge/releases\n   Outside vault · Brave · ephemeral · 2025-09-09\n");
    expect(io.stdout.match(/Outside vault · Brave · ephemeral/g)).toHaveLength(5);
    expect(io.stdout).toContain("https://automerge.org/docs/hello/");
  });

  it("answers any question, since replay matches on origin and path", async () => {
    const io = capture();
    expect(await websearchCommand(options({ query: "automerge 2 release notes", replayDir: demoDir, json: true }), io)).toBe(0);
    const out = readWebsearch(io.stdout);
    expect(out.replay).toEqual({ dir: demoDir, note: "recorded sample responses, not a live search" });
    expect(out.results).toHaveLength(5);
    expect(out.results[0]).toMatchObject({
      label: "Outside vault · Brave · ephemeral",
      origin: "outside_vault",
      provider: "brave",
      also_found_by: [],
      url: "https://github.com/automerge/automerge/releases",
    });
    expect(out.results.map((r) => r.canonical_url)).toContain("https://automerge.org/docs/hello");
    expect(out.responses[0]).toMatchObject({ provider: "brave", endpoint: "llm/context", query: "automerge 2 release notes", count: 5 });
    expect(out.errors).toEqual([]);
  });

  it("merges brave and brave-web answers for the same page into one row", async () => {
    const io = capture();
    await websearchCommand(options({ providers: ["brave", "brave-web"], replayDir: demoDir, json: true }), io);
    const out = readWebsearch(io.stdout);
    const hello = out.results.find((r) => r.canonical_url === "https://automerge.org/docs/hello")!;
    expect(hello.provider).toBe("brave");
    expect(hello.also_found_by).toEqual(["brave-web"]);
  });

  it("logs each replayed request to VAULT_RESEARCH_REPLAY_LOG with the key masked", async () => {
    const log = path.join(mkdtempSync(path.join(os.tmpdir(), "vr-replay-")), "requests.jsonl");
    const io = capture({ VAULT_RESEARCH_REPLAY_LOG: log, BRAVE_SEARCH_API_KEY: braveKey });
    await websearchCommand(options({ replayDir: demoDir }), io);
    const entries = replayLogEntries(log);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ method: "GET", matched: true, headers: { "X-Subscription-Token": "***" } });
    expect(new URL(entries[0].url).searchParams.get("q")).toBe("What changed in the latest Automerge release?");
    expect(readFileSync(log, "utf8")).not.toContain(braveKey);
  });

  it("reports a provider the recordings do not cover as failed, and exits 1 when nothing answered", async () => {
    const io = capture();
    expect(await websearchCommand(options({ providers: ["exa"], replayDir: demoDir }), io)).toBe(1);
    expect(io.stdout).toContain("Failed:\n  Exa (network): No recorded response in");
    expect(io.stdout).toContain("for POST https://api.exa.ai/search");
  });

  it("treats a missing replay folder, an empty query and no provider as usage errors", async () => {
    const io = capture();
    expect(await websearchCommand(options({ replayDir: path.join(demoDir, "nope") }), io)).toBe(2);
    expect(io.stderr).toMatch(/Replay folder .* does not exist/);
    expect(await websearchCommand(options({ query: "  " }), capture())).toBe(2);
    expect(await websearchCommand(options({ providers: [] }), capture())).toBe(2);
  });
});

describe("websearch command over the network port", () => {
  it("fails with an auth error naming the variable when no key is set, and sends nothing", async () => {
    const http = scriptedHttp(() => jsonResponse({}));
    const io = capture({}, http);
    expect(await websearchCommand(options(), io)).toBe(1);
    expect(io.stdout).toContain("Brave (auth): No Brave API key is set. Add one in Vault Research settings. Set BRAVE_SEARCH_API_KEY for the CLI.");
    expect(io.stderr).toBe("vault-research websearch: no source answered (Brave: auth).\n");
    expect(http.requests).toHaveLength(0);
  });

  it("names no source that sent nothing among the sources asked: Brave with no key is said not sent the query", async () => {
    const http = scriptedHttp(() => jsonResponse({ grounding: { generic: [] }, sources: {} }));
    const io = capture({}, http);
    expect(await websearchCommand(options(), io)).toBe(1);
    expect(io.stdout).toContain("Sources asked: none (nothing left the device)\nNot sent the query: Brave (nothing was sent; see Failed)\n");
    expect(io.stdout).not.toMatch(/Sources asked: Brave/);

    // Exa, with no key, sends nothing beside Brave, which answers: only Brave was asked.
    const both = capture({ BRAVE_SEARCH_API_KEY: braveKey }, http);
    expect(await websearchCommand(options({ providers: ["exa", "brave"] }), both)).toBe(0);
    expect(both.stdout).toMatch(/Sources asked: Brave \(0 results, \d+ ms\)\nNot sent the query: Exa \(nothing was sent; see Failed\)\n/);
  });

  it("--json names no source that sent nothing: Brave with no key is not among providers_asked", async () => {
    const http = scriptedHttp(() => jsonResponse({}));
    const io = capture({}, http);
    expect(await websearchCommand(options({ json: true }), io)).toBe(1);
    const out = readWebsearch(io.stdout);
    expect(http.requests).toHaveLength(0);
    expect(out.providers_asked).toEqual([]);
    expect(out.sources).toEqual([expect.objectContaining({ source: "brave", status: "failed", error: expect.objectContaining({ kind: "auth" }) })]);
  });

  it("--json names a source whose call left, whether it answered or refused the key (401)", async () => {
    const refused = scriptedHttp(() => jsonResponse({ type: "ErrorResponse", error: { code: "SUBSCRIPTION_TOKEN_INVALID", status: 401 } }, 401));
    const io = capture({ BRAVE_SEARCH_API_KEY: braveKey }, refused);
    expect(await websearchCommand(options({ json: true }), io)).toBe(1);
    expect(refused.requests.length).toBeGreaterThan(0);
    expect(readWebsearch(io.stdout).providers_asked).toEqual(["brave"]);

    // Exa, with no key, sends nothing beside Brave, which answers.
    const answered = scriptedHttp(() => jsonResponse({ grounding: { generic: [] }, sources: {} }));
    const both = capture({ BRAVE_SEARCH_API_KEY: braveKey }, answered);
    expect(await websearchCommand(options({ providers: ["exa", "brave"], json: true }), both)).toBe(0);
    expect(answered.requests.map((r) => new URL(r.url).host)).toEqual(["api.search.brave.com"]);
    expect(readWebsearch(both.stdout).providers_asked).toEqual(["brave"]);
  });

  it("strips terminal control sequences from web text", async () => {
    const http = scriptedHttp(() =>
      jsonResponse({ grounding: { generic: [{ url: "https://evil.example/", title: "Nice \u001b[31mred\u001b[0m title\u0007", snippets: ["ok"] }] }, sources: {} }),
    );
    const io = capture({ BRAVE_SEARCH_API_KEY: braveKey }, http);
    expect(await websearchCommand(options(), io)).toBe(0);
    expect(io.stdout).toContain("1. Nice red title\n");
    expect(io.stdout).not.toMatch(new RegExp(String.raw`[\u0007\u001b]`));
  });
});

describe("replay folders", () => {
  it("names the file that is not a recorded exchange", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "vr-replay-"));
    writeFileSync(path.join(dir, "a.json"), JSON.stringify([{ method: "GET", url: "https://a.example/x", body: {} }]));
    expect(loadReplayDirectory(dir)).toHaveLength(1);
    writeFileSync(path.join(dir, "b.json"), JSON.stringify({ method: "GET" }));
    expect(() => loadReplayDirectory(dir)).toThrow(/Replay file b\.json is not a recorded exchange: url:/);
    writeFileSync(path.join(dir, "b.json"), "{ not json");
    const error = (() => {
      try {
        loadReplayDirectory(dir);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ReplayDirectoryError);
    expect((error as ReplayDirectoryError).kind).toBe("invalid");
  });
});

describe("env secrets", () => {
  it("reads each key from its variable and treats blank as missing", async () => {
    const secrets = envSecrets({ BRAVE_SEARCH_API_KEY: " k1 ", EXA_API_KEY: "", OPENAI_API_KEY: "k3", ANTHROPIC_API_KEY: "k4" });
    expect(await secrets.get("brave")).toBe("k1");
    expect(await secrets.get("exa")).toBeNull();
    expect(await secrets.get("openai")).toBe("k3");
    expect(await secrets.get("anthropic")).toBe("k4");
  });
});

describe("fetch Http", () => {
  let server: Server;
  let base = "";
  const seen: { method?: string; url?: string; headers: Record<string, unknown>; body: string }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        seen.push({ method: req.method, url: req.url, headers: req.headers, body });
        if (req.url === "/slow") return void setTimeout(() => res.end("late"), 2000);
        if (req.url === "/cp1251") {
          // "Привет" in windows-1251: one byte a letter, not UTF-8.
          res.writeHead(200, { "content-type": "text/html; charset=windows-1251" });
          return void res.end(Buffer.from([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2]));
        }
        if (req.url === "/big") {
          res.writeHead(200, { "content-type": "application/json" });
          return void res.end("x".repeat(5000));
        }
        if (req.url === "/stream") {
          res.writeHead(200);
          let sent = 0;
          const push = (): void => {
            if (sent++ > 50 || res.destroyed) return void res.end();
            res.write("y".repeat(1000));
            setTimeout(push, 1);
          };
          return push();
        }
        res.writeHead(429, { "content-type": "application/json", "Retry-After": "7" });
        res.end(JSON.stringify({ ok: "ünïcode" }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("hands over the raw bytes too, so a page in another charset can be decoded by what it declares", async () => {
    const response = await createFetchHttp().request({ method: "GET", url: `${base}/cp1251` });
    expect(Array.from(response.bytes ?? [])).toEqual([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2]);
    expect(new TextDecoder("windows-1251").decode(response.bytes)).toBe("Привет");
  });

  it("sends method, headers and body, and returns status, lower-cased headers and text", async () => {
    const response = await createFetchHttp().request({ method: "POST", url: `${base}/search`, headers: { "X-Api-Key": "k" }, body: "{\"q\":1}" });
    expect(response.status).toBe(429);
    expect(response.headers["retry-after"]).toBe("7");
    expect(JSON.parse(response.text)).toEqual({ ok: "ünïcode" });
    expect(seen.at(-1)).toMatchObject({ method: "POST", url: "/search", body: "{\"q\":1}", headers: { "x-api-key": "k" } });
  });

  it("aborts at the timeout", async () => {
    const error = await createFetchHttp().request({ method: "GET", url: `${base}/slow`, timeoutMs: 100 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpFailure);
    expect((error as HttpFailure).kind).toBe("timeout");
  });

  it("refuses a body over the byte cap, announced or streamed", async () => {
    const announced = await createFetchHttp().request({ method: "GET", url: `${base}/big`, maxBytes: 1000 }).catch((e: unknown) => e);
    expect((announced as HttpFailure).kind).toBe("too_large");
    const streamed = await createFetchHttp().request({ method: "GET", url: `${base}/stream`, maxBytes: 10_000 }).catch((e: unknown) => e);
    expect((streamed as HttpFailure).kind).toBe("too_large");
  });

  it("reports an unreachable host as a network failure", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await createFetchHttp().request({ method: "GET", url: `http://127.0.0.1:${port}/`, timeoutMs: 2000 }).catch((e: unknown) => e);
    expect((error as HttpFailure).kind).toBe("network");
    expect((error as HttpFailure).message).toContain("ECONNREFUSED");
  });
});

