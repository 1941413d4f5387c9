// A server that answers every request with a redirect, to itself for ever or to another site, was
// reached: the run said "Could not reach SearXNG: 127.0.0.1:… kept redirecting" and "Web search
// failed: SearXNG could not be reached", and of a model server "Could not reach the model server at
// …". A SearXNG instance and a model server stand in on 127.0.0.1; the run is the CLI's, in process.
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/run";

const ROOT = path.resolve(__dirname, "../..");
const QUESTION = "why did we choose Automerge over Yjs";
let tmp: string;
let vault: string;
let server: Server;
let origin: string;
let host: string;

beforeEach(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-redirecting-server-"));
  vault = path.join(tmp, "vault");
  cpSync(path.join(ROOT, "examples/vault"), vault, { recursive: true });
  server = createServer((req, res) => {
    req.resume();
    const at = new URL(req.url ?? "/", "http://x");
    // Under /away to the same port on "localhost": another site. Anywhere else, to the very address asked.
    const to = at.pathname.startsWith("/away") ? `http://localhost:${(server.address() as AddressInfo).port}${at.pathname.slice(5)}` : `${at.pathname}${at.search}`;
    res.writeHead(302, { location: to }).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  host = new URL(origin).host;
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(tmp, { recursive: true, force: true });
});

async function research(extra: string[]) {
  let out = "";
  let err = "";
  const argv = ["research", QUESTION, "--vault", vault, "--cache-dir", path.join(tmp, "cache"), "--no-trace", ...extra];
  const code = await runCli(argv, { out: (t) => (out += t), err: (t) => (err += t), env: {}, cwd: tmp });
  return { code, out, err, all: `${out}${err}` };
}

function searxngAt(baseUrl: string): string[] {
  const config = path.join(tmp, "config.json");
  writeFileSync(config, JSON.stringify({ external: { searxng: { baseUrl } } }));
  return ["--config", config, "--external-search", "always", "--external-provider", "searxng"];
}

describe("a SearXNG instance that only redirects", () => {
  it("to itself, for ever: the web stage says it answered but kept redirecting, never that it could not be reached", async () => {
    const run = await research(searxngAt(origin));
    expect(run.code).toBe(0);
    expect(run.out).toContain(`SearXNG answered, but ${host} kept redirecting (more than 5 times); the request was given up on.`);
    // Answered, and never with an error status: it sent nothing but redirects.
    expect(run.out).toContain("Web search failed: SearXNG answered only with redirects.");
    expect(run.all).not.toMatch(/server error/i);
    expect(run.all).not.toMatch(/could not be reached|could not reach/i);
  });

  it("to another site: the web stage says it answered but sent the request elsewhere, never that it could not be reached", async () => {
    const run = await research(searxngAt(`${origin}/away`));
    expect(run.code).toBe(0);
    expect(run.out).toContain(`SearXNG answered, but ${host} redirected to another site (localhost:`);
    expect(run.all).not.toMatch(/could not be reached|could not reach/i);
  });

  it("is a failure of the http kind in the JSON pack's warnings, not a network one", async () => {
    const run = await research([...searxngAt(origin), "--json"]);
    const out = JSON.parse(run.out) as { pack: { warnings: { kind: string; message: string }[] } };
    expect(out.pack.warnings.filter((w) => w.message.includes("kept redirecting")).map((w) => w.kind)).toEqual(["provider_http"]);
  });
});

describe("a model server that only redirects", () => {
  it("to itself, for ever: the run says it answered but kept redirecting, never that it could not be reached", async () => {
    const run = await research(["--model", `openai:stand-in@${origin}/v1`]);
    expect(run.code).toBe(0);
    expect(run.out).toContain(`The model server at ${origin} answered, but ${host} kept redirecting (more than 5 times)`);
    expect(run.all).not.toMatch(/could not be reached|could not reach/i);
  });

  it("to another site: the run says it answered but sent the request elsewhere, never that it could not be reached", async () => {
    const run = await research(["--model", `openai:stand-in@${origin}/away/v1`]);
    expect(run.code).toBe(0);
    expect(run.out).toContain(`answered, but ${host} redirected to another site (localhost:`);
    expect(run.all).not.toMatch(/could not be reached|could not reach/i);
  });
});
